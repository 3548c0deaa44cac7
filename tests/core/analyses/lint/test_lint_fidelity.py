"""Issue 11, Lint: what real manifests showed (public NodePool / NodeClass manifests, tests/fixtures/karpenter
with PROVENANCE.jsonl), and the scenario tests/scenarios/lint/ours__neuron-and-fields.yaml where no real
manifest has the mistake.

- the provider comes from the pool's own nodeClassRef (or its API version), never from other objects;
- removed API versions (karpenter.sh/v1beta1, v1alpha5) are an error;
- one kind and name defined twice across files is a finding;
- Neuron pools get the GPU pools' hygiene;
- families, sizes and types that do not exist are a warning naming the closest real ones;
- fields the v1 CRD schema does not have (or has elsewhere) are an error;
- a suggested fix still admits every type the pool admitted."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from kubectl_gpu.core.analyses.lint.analysis import LintReport, lint
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.scheduling.instances import InstanceIndex
from kubectl_gpu.kube.snapshot import load_snapshot
from tests.core.analyses.lint.test_lint import FIXTURES, SCENARIOS, finding, keys, pool, run

# Codes pinned here rather than in test_lint.py's scenario files.
PINNED_HERE = frozenset(
    {"LINT_REMOVED_API_VERSION", "LINT_UNKNOWN_FIELD", "LINT_UNKNOWN_INSTANCE_NAME", "LINT_DUPLICATE_OBJECT"}
)
SAMPLE = "sample-aws-eks-auto-mode__"  # walidshaari/sample-aws-eks-auto-mode (MIT-0)
V1BETA1 = FIXTURES / "karpenter-provider-aws__examples-v1beta1__large-instances.yaml"
V1ALPHA5 = FIXTURES / "karpenter-provider-aws__examples-provisioner__large-instances-v1alpha5.yaml"
AUTO_NODECLASS = FIXTURES / "eks-docs__automode-nodeclass-reference.yaml"
OURS = SCENARIOS / "ours__neuron-and-fields.yaml"


def from_files(*paths: Path) -> LintReport:
    """Through the snapshot loader, as `lint -f` reads them: it knows the file of each object."""
    return lint(load_snapshot(paths), load_catalog())


class TestProvider:
    def test_a_v1beta1_pool_is_self_managed_whatever_else_is_in_the_input(self) -> None:
        """Karpenter's v1beta1 example (nodeClassRef with a name only) next to an Auto Mode NodeClass: the
        NodeClass used to make the pool "Auto Mode" and its karpenter.k8s.aws/* keys "wrong provider"."""
        alone, mixed = run(V1BETA1), run(V1BETA1, AUTO_NODECLASS)
        assert (
            pool(alone, "large-instances").provider == pool(mixed, "large-instances").provider == "karpenter"
        )
        assert not any(f.code == "LINT_WRONG_PROVIDER_LABEL" for f in mixed.findings)

    def test_a_pool_without_a_ref_has_no_provider(self) -> None:
        report = run(SCENARIOS / "ours__automode-gpu-pools.yaml")
        assert pool(report, "no-class").provider == "unknown"
        assert pool(report, "wrong-keys").provider == "auto"  # its own nodeClassRef group

    def test_pools_of_both_providers_in_one_input(self) -> None:
        report = run(
            FIXTURES / "data-on-eks__nodepool-gpu-g5-g6-g6e-g7e.yaml",
            FIXTURES / f"{SAMPLE}nodepools__gpu-nodepool.yaml",
        )
        assert pool(report, "gpu").provider == "karpenter" and pool(report, "gpu-nodepool").provider == "auto"
        assert not any(f.code == "LINT_WRONG_PROVIDER_LABEL" for f in report.findings)

    def test_a_ref_without_a_group_is_read_by_its_kind(self) -> None:
        from kubectl_gpu.core.analyses.lint.facts import pool_provider
        from kubectl_gpu.core.k8s.parse import parse_nodepool

        def ref(**r: str) -> object:
            spec = {"template": {"spec": {"nodeClassRef": {"name": "x", **r}, "requirements": []}}}
            return pool_provider(
                parse_nodepool(
                    {
                        "apiVersion": "karpenter.sh/v1",
                        "kind": "NodePool",
                        "metadata": {"name": "p"},
                        "spec": spec,
                    }
                )
            )

        assert ref(kind="NodeClass") == "auto" and ref(kind="EC2NodeClass") == "karpenter" and ref() is None


class TestRemovedApiVersions:
    def test_v1beta1_nodepool_and_ec2nodeclass(self) -> None:
        report = run(V1BETA1)
        assert {k for k in keys(report) if k[0] == "LINT_REMOVED_API_VERSION"} == {
            ("LINT_REMOVED_API_VERSION", "error", "large-instances"),
            ("LINT_REMOVED_API_VERSION", "error", "default"),
        }
        assert (
            "karpenter.sh/v1beta1" in finding(report, "LINT_REMOVED_API_VERSION", "large-instances").message
        )

    def test_v1alpha5_provisioner_and_awsnodetemplate(self) -> None:
        report = from_files(V1ALPHA5)
        assert keys(report) == {
            ("LINT_REMOVED_API_VERSION", "error", "default"),
            ("LINT_REMOVED_API_VERSION", "error", "my-provider"),
        }
        assert {f.object.kind for f in report.findings} == {"Provisioner", "AWSNodeTemplate"}
        assert report.exit_code() == 1

    def test_v1_manifests_are_not_flagged(self) -> None:
        report = run(FIXTURES / "karpenter-provider-aws__examples-v1__general-purpose.yaml")
        assert not any(f.code == "LINT_REMOVED_API_VERSION" for f in report.findings)


class TestDuplicates:
    def test_the_same_nodepool_in_two_files_is_a_finding(self) -> None:
        """The sample repository defines NodePool neuron-nodepool in nodepools/ and in examples/neuron/."""
        first = FIXTURES / f"{SAMPLE}nodepools__neuron-nodepool.yaml"
        second = FIXTURES / f"{SAMPLE}examples-neuron__neuron-nodepool.yaml"
        report = from_files(first, second)
        dup = finding(report, "LINT_DUPLICATE_OBJECT", "neuron-nodepool")
        assert dup.severity.value == "error" and str(first) in dup.message and str(second) in dup.message
        assert [p.name for p in report.pools] == ["neuron-nodepool"]  # the last one is checked, and says so
        assert "the last one" in dup.message
        assert not any(f.code == "LINT_DUPLICATE_OBJECT" for f in from_files(first).findings)


class TestNeuronHygiene:
    def test_neuron_pools_get_the_gpu_checks(self) -> None:
        report = run(OURS)
        assert {k for k in keys(report) if k[2] in ("inferentia", "trainium")} == {
            ("LINT_GPU_POOL_CONSOLIDATES_UNDERUTILIZED", "warning", "inferentia"),
            ("LINT_GPU_POOL_NO_TAINT", "warning", "inferentia"),
            ("LINT_HARDCODED_INSTANCE_TYPES", "info", "inferentia"),
            ("LINT_HARDCODED_INSTANCE_TYPES", "warning", "trainium"),
            ("LINT_TRAINING_POOL_NO_BUDGET_WINDOW", "warning", "trainium"),
        }
        assert "aws.amazon.com/neuron" in (finding(report, "LINT_GPU_POOL_NO_TAINT", "inferentia").fix or "")
        facts = pool(report, "trainium")
        assert facts.neuron and not facts.gpu and "Trainium" in "; ".join(facts.training)

    def test_a_tidy_real_neuron_pool_has_no_hygiene_finding(self) -> None:
        """Tainted, WhenEmpty: the sample repository's Neuron pool (its only finding is the inf3 family)."""
        report = run(FIXTURES / f"{SAMPLE}nodepool-templates__neuron-nodepool.yaml")
        assert keys(report) == {("LINT_UNKNOWN_INSTANCE_NAME", "warning", "neuron-nodepool")}
        assert pool(report, "neuron-nodepool").neuron


class TestUnknownNames:
    def test_families_that_do_not_exist_name_the_closest_real_ones(self) -> None:
        """The sample repository's GPU template asks for g3, g4, g5, g6, p3, p4, p5 on Auto Mode."""
        report = run(FIXTURES / f"{SAMPLE}nodepool-templates__gpu-nodepool.yaml")
        found = {
            f.message.split("instance family ")[1].split(" ")[0]: f
            for f in report.findings
            if f.code == "LINT_UNKNOWN_INSTANCE_NAME"
        }
        assert set(found) == {"g3", "g4", "p4"}
        assert "closest real ones: g4ad, g4dn" in found["g4"].message
        assert "closest real ones: p4d, p4de" in found["p4"].message
        assert all(f.severity.value == "warning" for f in found.values())

    def test_inf3(self) -> None:
        report = run(FIXTURES / f"{SAMPLE}examples-neuron__neuron-nodepool.yaml")
        f = finding(report, "LINT_UNKNOWN_INSTANCE_NAME", "neuron-nodepool")
        assert "inf3" in f.message and "inf2" in f.message and f.fix == "use inf2 or inf1"

    def test_sizes_and_instance_types_that_do_not_exist(self) -> None:
        report = run(OURS)
        found = [
            f for f in report.findings if f.code == "LINT_UNKNOWN_INSTANCE_NAME" and f.object.name == "typos"
        ]
        assert sorted(f.message.split(" asks for ")[1].split(" (")[0] for f in found) == [
            "instance size 2xl",
            "instance type p4.24xlarge",
        ]
        assert all(f.fix and f.fix.startswith(("use 2xlarge", "use p4d.24xlarge")) for f in found)

    def test_real_names_and_cpu_families_are_not_flagged(self) -> None:
        for path in (
            FIXTURES / "data-on-eks__nodepool-gpu-g5-g6-g6e-g7e.yaml",
            FIXTURES / "karpenter-provider-aws__examples-v1__general-purpose.yaml",
            FIXTURES / f"{SAMPLE}nodepools__gpu-nodepool.yaml",
        ):
            assert not any(f.code == "LINT_UNKNOWN_INSTANCE_NAME" for f in run(path).findings), path


class TestFields:
    def test_fields_the_v1_schema_has_elsewhere_or_not_at_all(self) -> None:
        report = run(OURS)
        found = {
            f.message.split(" sets ")[1].split(",")[0]: f
            for f in report.findings
            if f.code == "LINT_UNKNOWN_FIELD"
        }
        assert set(found) == {
            "spec.disruption.expireAfter",
            "spec.disruption.terminationGracePeriod",
            "spec.template.spec.requirements[].minvalues",
        }
        assert (
            found["spec.disruption.terminationGracePeriod"].fix
            == "move it to spec.template.spec.terminationGracePeriod"
        )
        assert (
            found["spec.template.spec.requirements[].minvalues"].fix
            == "move it to spec.template.spec.requirements[].minValues"
        )
        assert all(f.severity.value == "error" for f in found.values())

    def test_real_v1_manifests_have_no_unknown_field(self) -> None:
        paths = sorted(FIXTURES.glob("*.yaml"))
        report = run(*[p for p in paths if "v1beta1" not in p.name and "v1alpha5" not in p.name])
        assert not any(f.code == "LINT_UNKNOWN_FIELD" for f in report.findings)

    def test_removed_versions_are_not_checked_against_the_v1_schema(self) -> None:
        assert not any(f.code == "LINT_UNKNOWN_FIELD" for f in run(V1BETA1).findings)


class TestCheckedFix:
    def test_the_gpu_count_line_is_left_out_when_it_would_drop_g6f(self) -> None:
        report = run(OURS)
        fix = finding(report, "LINT_HARDCODED_INSTANCE_TYPES", "fractional").fix or ""
        assert "instance-gpu-count, operator: Gt" not in fix
        assert "# eks.amazonaws.com/instance-gpu-count Gt left out: it would drop g6f.2xlarge" in fix
        assert 'instance-gpu-memory, operator: Gt, values: ["2860"]' in fix  # g6f.large has 2861 MiB
        admitted = {it.name for it in pool(report, "fractional").admitted}
        assert {"g6f.large", "g6.xlarge"} <= admitted

    def test_overlay_capacity_is_named(self) -> None:
        from tests.core.analyses.lint.test_lint import _state

        overlay = {"g6f.large": {"nvidia.com/gpu": Decimal(1)}}
        report = lint(_state(OURS), load_catalog(), overlay=overlay)
        fix = finding(report, "LINT_HARDCODED_INSTANCE_TYPES", "fractional").fix or ""
        assert "g6f.large (nvidia.com/gpu through a NodeOverlay)" in fix

    def test_a_node_overlay_in_the_input_counts_without_being_passed(self, tmp_path: Path) -> None:
        """The NodeOverlays read with the pools are matched per pool (as pending's fit matches them):
        an overlay giving g6f.large a GPU names it in the fix; one scoped to another pool does not."""
        from tests.core.analyses.lint.test_lint import _state

        def overlay_file(pool_name: str) -> Path:
            path = tmp_path / f"overlay-{pool_name}.yaml"
            path.write_text(
                "apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata: {name: fractional-gpu}\n"
                "spec:\n  capacity: {nvidia.com/gpu: '1'}\n  requirements:\n"
                "  - {key: node.kubernetes.io/instance-type, operator: In, values: [g6f.large]}\n"
                f"  - {{key: karpenter.sh/nodepool, operator: In, values: [{pool_name}]}}\n"
            )
            return path

        named = "g6f.large (nvidia.com/gpu through a NodeOverlay)"
        applies = lint(_state(OURS, overlay_file("fractional")), load_catalog())
        assert named in (finding(applies, "LINT_HARDCODED_INSTANCE_TYPES", "fractional").fix or "")
        elsewhere = lint(_state(OURS, overlay_file("some-other-pool")), load_catalog())
        assert named not in (finding(elsewhere, "LINT_HARDCODED_INSTANCE_TYPES", "fractional").fix or "")

    def test_a_fix_with_nothing_to_drop_keeps_every_line(self) -> None:
        fix = (
            finding(
                run(FIXTURES / "eks-docs__automode-nodepool-gpu-g6e-g6.yaml"),
                "LINT_HARDCODED_INSTANCE_TYPES",
                "gpu",
            ).fix
            or ""
        )
        assert "instance-gpu-count, operator: Gt" in fix and "left out" not in fix


def test_every_code_pinned_here_is_emitted_here() -> None:
    reports = [
        run(OURS),
        run(V1BETA1),
        from_files(
            FIXTURES / f"{SAMPLE}nodepools__neuron-nodepool.yaml",
            FIXTURES / f"{SAMPLE}examples-neuron__neuron-nodepool.yaml",
        ),
    ]
    assert {f.code for r in reports for f in r.findings} >= PINNED_HERE


class TestPoolsAlike:
    """A suggested fix is checked once for pools whose requirements, labels and NodeClass are the same
    (`LintPool.admits_with`): linted together, each pool must get what it gets linted alone."""

    def _copies(self, tmp_path: Path) -> Path:
        import yaml

        from tests.core.analyses.lint.test_lint import load_yaml_docs

        docs = list(load_yaml_docs(OURS))
        items = [i for d in docs for i in (d["items"] if d.get("kind") == "List" else [d])]
        fractional = next(
            i for i in items if i["kind"] == "NodePool" and i["metadata"]["name"] == "fractional"
        )
        same = yaml.safe_load(yaml.safe_dump(fractional))
        same["metadata"]["name"] = "fractional-twin"
        narrow = yaml.safe_load(yaml.safe_dump(fractional))
        narrow["metadata"]["name"] = "fractional-big"
        narrow["spec"]["template"]["spec"]["requirements"].append(
            {"key": "eks.amazonaws.com/instance-gpu-memory", "operator": "Gt", "values": ["3000"]}
        )
        path = tmp_path / "copies.yaml"
        path.write_text(yaml.safe_dump_all([same, narrow]))
        return path

    def test_each_pool_gets_the_answer_of_an_unshared_check(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        copies = self._copies(tmp_path)
        shared = lint(_state_of(OURS, copies), load_catalog())

        class Forgetful(dict):  # type: ignore[type-arg]
            def setdefault(self, key: object, default: object = None) -> object:
                return {}  # nothing kept: every check made afresh

        original = InstanceIndex.__init__

        def forgetful_init(self: InstanceIndex, *args: object) -> None:
            original(self, *args)  # type: ignore[arg-type]
            self.derived = Forgetful()

        monkeypatch.setattr(InstanceIndex, "__init__", forgetful_init)
        afresh = lint(_state_of(OURS, copies), load_catalog())
        for name in ("fractional", "fractional-twin", "fractional-big"):
            assert _fixes(shared, name) == _fixes(afresh, name), name
        twin, big = _fixes(shared, "fractional-twin"), _fixes(shared, "fractional-big")
        assert twin == _fixes(shared, "fractional")  # the same requirements: the same fix
        assert big != twin  # g6f.large is not admitted: nothing to leave out for it


def _state_of(*paths: Path) -> ClusterState:
    from tests.core.analyses.lint.test_lint import _state

    return _state(*paths)


def _fixes(report: LintReport, name: str) -> list[tuple[str, str | None]]:
    return sorted(
        (f.code, f.fix)
        for f in report.findings
        if f.object.name == name and f.code == "LINT_HARDCODED_INSTANCE_TYPES"
    )


def test_a_fix_is_checked_on_the_pools_types_as_the_whole_catalog_answers() -> None:
    """`admits_with(extra, among)` asks only the pool's admitted types whether the fix keeps them: for every
    pool of the scenarios and every fix candidate, the answer is the catalog-wide admitted set cut to them."""
    from kubectl_gpu.core.analyses.lint.facts import INSTANCE_TYPE_KEYS, suffix_keys
    from kubectl_gpu.core.analyses.lint.fixes import accelerator_fix_candidates
    from kubectl_gpu.core.analyses.lint.pools import PoolLint
    from kubectl_gpu.core.scheduling.requirements import RequirementError

    catalog = load_catalog()
    state = _state_of(OURS)
    replaced = {*INSTANCE_TYPE_KEYS, *suffix_keys("family")}
    checked = cut = 0
    for nodepool in state.nodepools:
        for provider in ("auto", "karpenter"):
            index = InstanceIndex(catalog, provider)
            linted = PoolLint(nodepool, state, catalog, index)
            among = [e.it for e in index.types[::3]]  # a third of the catalog, some admitted, some not
            kept = [r for r in nodepool.requirements if r.get("key") not in replaced]
            prefix = "eks.amazonaws.com" if provider == "auto" else "karpenter.k8s.aws"
            narrower = [  # each leaves out some of `among`
                {"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]},
                {"key": f"{prefix}/instance-gpu-count", "operator": "Gt", "values": ["4"]},
            ]
            for cand in accelerator_fix_candidates(provider, among):
                for extra in ([cand.requirement], [], *([n] for n in narrower), [{"key": "x", "operator": "In"}]):
                    try:
                        reqs = linted._for_index(linted._requirements([*kept, *extra]))
                    except RequirementError:  # does not parse: the check answers none
                        assert linted.admits_with(extra, among) == frozenset()
                        continue
                    whole = {e.it.name for e in index.admitted(reqs)}
                    assert linted.admits_with(extra, among) == whole & {it.name for it in among}
                    checked += 1
                    cut += not {it.name for it in among} <= whole
    assert checked > 20 and cut > 5
