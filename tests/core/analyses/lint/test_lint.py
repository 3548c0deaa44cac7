"""`kubectl gpu lint` on the real NodePool / NodeClass manifests (what each one should and should not
trigger) and on scenario files with one mistake per pool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.analyses.lint.analysis import CODES, LintReport, PoolFacts, lint
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.k8s.parse import parse_objects
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import FailOn, Finding, Severity
from tests.helpers import FIXTURES as ALL_FIXTURES
from tests.helpers import SCENARIOS as ALL_SCENARIOS
from tests.helpers import load_yaml_docs

FIXTURES = ALL_FIXTURES / "karpenter"
SCENARIOS = ALL_SCENARIOS / "lint"

Key = tuple[str, str, str]  # code, severity, object name


def _state(*paths: Path) -> ClusterState:
    items: list[dict[str, Any]] = []
    for path in paths:
        for doc in load_yaml_docs(path):
            items.extend(doc["items"] if doc.get("kind") == "List" else [doc])
    models, _ = parse_objects(items)
    state = ClusterState.of(models)
    return state


def run(*paths: Path) -> LintReport:
    return lint(_state(*paths), load_catalog())


def keys(report: LintReport) -> set[Key]:
    return {(f.code, f.severity.value, f.object.name) for f in report.findings}


def pool(report: LintReport, name: str) -> PoolFacts:
    return next(p for p in report.pools if p.name == name)


def finding(report: LintReport, code: str, name: str) -> Finding:
    return next(f for f in report.findings if f.code == code and f.object.name == name)


class TestRealManifests:
    def test_data_on_eks_gpu_pool(self) -> None:
        """g5/g6/g6e/g7e self-managed pool: WhenEmptyOrUnderutilized 15m, no taint, a family list."""
        report = run(FIXTURES / "data-on-eks__nodepool-gpu-g5-g6-g6e-g7e.yaml")
        assert keys(report) == {
            ("LINT_GPU_POOL_CONSOLIDATES_UNDERUTILIZED", "warning", "gpu"),
            ("LINT_GPU_POOL_NO_TAINT", "warning", "gpu"),
            ("LINT_HARDCODED_INSTANCE_TYPES", "info", "gpu"),
        }
        facts = pool(report, "gpu")
        assert facts.provider == "karpenter" and facts.gpu and not facts.training
        names = {it.name for it in facts.admitted}
        assert len(names) == 27  # sizes xlarge..48xlarge without 16xlarge; g7e starts at 2xlarge
        assert {"g5.xlarge", "g6e.48xlarge", "g7e.2xlarge"} <= names
        assert not names & {"g5.16xlarge", "g6.16xlarge", "p5.48xlarge", "g5g.xlarge"}
        # limits cpu 1000 / nvidia.com/gpu 8 hold every admitted size (the 48xlarge have 8 GPUs)
        assert not any(f.code.startswith("LINT_LIMITS") for f in report.findings)
        fix = finding(report, "LINT_HARDCODED_INSTANCE_TYPES", "gpu").fix or ""
        assert "karpenter.k8s.aws/instance-gpu-memory, operator: Gt" in fix and "values: [g]" in fix
        assert report.exit_code(FailOn.error) == 0 and report.exit_code(FailOn.warning) == 1

    def test_data_on_eks_pool_with_its_ec2nodeclasses(self) -> None:
        """The gpu EC2NodeClass has instanceStorePolicy RAID0: no NVMe finding; the other six are unused."""
        report = run(
            FIXTURES / "data-on-eks__nodepool-gpu-g5-g6-g6e-g7e.yaml",
            FIXTURES / "data-on-eks__ec2nodeclasses-multi-incl-gpu-raid0.yaml",
        )
        assert len(report.node_classes) == 8
        assert not any(f.code == "LINT_NVME_CACHE_DISABLED" for f in report.findings)
        assert {f.code for f in report.findings} == {
            "LINT_GPU_POOL_CONSOLIDATES_UNDERUTILIZED",
            "LINT_GPU_POOL_NO_TAINT",
            "LINT_HARDCODED_INSTANCE_TYPES",
        }

    def test_ec2nodeclasses_alone(self) -> None:
        assert run(FIXTURES / "data-on-eks__ec2nodeclasses-multi-incl-gpu-raid0.yaml").findings == ()

    def test_eks_docs_automode_gpu_pool(self) -> None:
        """The Auto Mode g6e/g6 pool of the EKS docs: WhenEmpty (fine) but no taint and a family list."""
        report = run(FIXTURES / "eks-docs__automode-nodepool-gpu-g6e-g6.yaml")
        assert keys(report) == {
            ("LINT_GPU_POOL_NO_TAINT", "warning", "gpu"),
            ("LINT_HARDCODED_INSTANCE_TYPES", "info", "gpu"),
        }
        facts = pool(report, "gpu")
        assert facts.provider == "auto" and len(facts.admitted) == 16
        assert {it.family for it in facts.admitted} == {"g6", "g6e"}
        assert "eks.amazonaws.com/instance-gpu-memory" in (
            finding(report, "LINT_HARDCODED_INSTANCE_TYPES", "gpu").fix or ""
        )

    def test_eks_docs_pool_with_the_default_nodeclass(self) -> None:
        """nodeClassRef default + the reference NodeClass (80Gi, below every NVMe): no NVMe finding."""
        report = run(
            FIXTURES / "eks-docs__automode-nodepool-gpu-g6e-g6.yaml",
            FIXTURES / "eks-docs__automode-nodeclass-reference.yaml",
        )
        assert report.node_classes == ("NodeClass/default",)
        assert {f.code for f in report.findings} == {
            "LINT_GPU_POOL_NO_TAINT",
            "LINT_HARDCODED_INSTANCE_TYPES",
        }

    @pytest.mark.parametrize(
        "name",
        [
            "eks-docs__automode-nodeclass-ephemeral-storage.yaml",
            "eks-docs__automode-nodeclass-reference.yaml",
        ],
    )
    def test_automode_nodeclasses_alone(self, name: str) -> None:
        report = run(FIXTURES / name)
        assert report.findings == () and len(report.node_classes) == 1

    @pytest.mark.parametrize(
        "name",
        [
            "karpenter-provider-aws__examples-v1__general-purpose.yaml",
            "karpenter-provider-aws__examples-v1__spot.yaml",
            "karpenter-provider-aws__examples-v1__bottlerocket.yaml",
            "karpenter-provider-aws__examples-v1__al2023-custom-userdata.yaml",
            "karpenter-provider-aws__examples-v1__instance-store-ephemeral-storage.yaml",
            "karpenter-provider-aws__examples-v1__min-values-family.yaml",
            "karpenter-provider-aws__examples-v1__multiple-ebs.yaml",
        ],
    )
    def test_official_cpu_examples_are_clean(self, name: str) -> None:
        """c/m/r pools admit no GPU type: not GPU pools, no accelerator intent, nothing to report."""
        report = run(FIXTURES / name)
        assert report.findings == ()
        assert len(report.pools) == 1 and not report.pools[0].gpu and report.pools[0].provider == "karpenter"
        assert len(report.node_classes) == 1

    def test_workload_manifest_has_nothing_to_lint(self) -> None:
        report = run(FIXTURES / "karpenter-provider-aws__workload-gpu-nvidia.yaml")
        assert report.pools == () and report.node_classes == () and report.findings == ()


@pytest.fixture(scope="module")
def automode() -> LintReport:
    return run(SCENARIOS / "ours__automode-gpu-pools.yaml")


@pytest.fixture(scope="module")
def karpenter() -> LintReport:
    return run(SCENARIOS / "ours__karpenter-gpu-pools.yaml")


class TestAutoModeScenario:
    def test_every_finding(self, automode: LintReport) -> None:
        assert keys(automode) == {
            ("LINT_BUDGET_INVALID", "error", "sunday-seven"),
            ("LINT_INVALID_REQUIREMENT", "error", "bad-operator"),
            ("LINT_LIMITS_BELOW_SMALLEST_TYPE", "error", "llm-train"),
            ("LINT_NO_INSTANCE_TYPE", "error", "contradiction"),
            ("LINT_NO_INSTANCE_TYPE", "error", "g-sixteen-gpus"),
            ("LINT_NO_INSTANCE_TYPE", "warning", "future-family"),
            ("LINT_UNKNOWN_INSTANCE_NAME", "warning", "future-family"),  # g9x: closest g5, g6, ...
            ("LINT_NO_NODECLASS_REF", "error", "no-class"),
            ("LINT_WRONG_PROVIDER_LABEL", "error", "wrong-keys"),
            ("LINT_EXPIRE_NEVER_AUTO_MODE", "warning", "pinned-types"),
            ("LINT_GPU_POOL_CONSOLIDATES_UNDERUTILIZED", "warning", "wrong-keys"),
            ("LINT_GPU_POOL_CONSOLIDATES_UNDERUTILIZED", "info", "pinned-types"),
            ("LINT_GPU_POOL_NO_TAINT", "warning", "wrong-keys"),
            ("LINT_HARDCODED_INSTANCE_TYPES", "warning", "pinned-types"),
            ("LINT_HARDCODED_INSTANCE_TYPES", "info", "llm-train"),
            ("LINT_HARDCODED_INSTANCE_TYPES", "info", "sunday-seven"),
            ("LINT_NVME_CACHE_DISABLED", "warning", "gpu-big-disk"),
            ("LINT_TRAINING_POOL_NO_BUDGET_WINDOW", "warning", "llm-train"),
            ("LINT_EXPIRE_AFTER_OVER_AUTO_MODE_CAP", "info", "llm-train"),
            ("LINT_LIMITS_EXCLUDE_TYPES", "info", "capped"),
        }

    def test_clean_pool_has_no_findings(self, automode: LintReport) -> None:
        assert not [f for f in automode.findings if f.object.name == "inference-ok"]
        facts = pool(automode, "inference-ok")
        assert facts.gpu and not facts.training
        assert {it.accelerator_name for it in facts.admitted} >= {"l40s"}
        assert all((it.gpu_memory_mib or 0) > 40000 and it.accelerator_count < 8 for it in facts.admitted)

    def test_wrong_provider_keys_name_the_right_ones(self, automode: LintReport) -> None:
        fixes = {
            f.fix
            for f in automode.findings
            if f.code == "LINT_WRONG_PROVIDER_LABEL" and f.object.name == "wrong-keys"
        }
        assert fixes == {"use eks.amazonaws.com/instance-family", "use eks.amazonaws.com/instance-gpu-count"}
        # The keys restrict nothing on Auto Mode, so the pool admits every GPU type.
        assert len([it for it in pool(automode, "wrong-keys").admitted if it.is_gpu]) > 50

    def test_no_instance_type_explains_itself(self, automode: LintReport) -> None:
        contradiction = finding(automode, "LINT_NO_INSTANCE_TYPE", "contradiction")
        assert "In ['g6e']; NotIn ['g6e']" in contradiction.message
        sixteen = finding(automode, "LINT_NO_INSTANCE_TYPE", "g-sixteen-gpus")
        assert "it requires eks.amazonaws.com/instance-gpu-count" in sixteen.message
        assert "most types fail on" in sixteen.message
        future = finding(automode, "LINT_NO_INSTANCE_TYPE", "future-family")
        assert "g9x" in future.message and future.severity is Severity.WARNING

    def test_limits(self, automode: LintReport) -> None:
        below = finding(automode, "LINT_LIMITS_BELOW_SMALLEST_TYPE", "llm-train")
        assert "p4d.24xlarge" in below.message and "memory 1152Gi > 1000Gi" in below.message
        exclude = finding(automode, "LINT_LIMITS_EXCLUDE_TYPES", "capped")
        assert "g6e.48xlarge" in exclude.message and "g6e.12xlarge" not in exclude.message

    def test_training_and_expiry(self, automode: LintReport) -> None:
        assert pool(automode, "llm-train").training == (
            "name, labels or taints say train",
            "it admits only P-family or 8-GPU instance types",
        )
        assert (
            "default 10% budget"
            in finding(automode, "LINT_TRAINING_POOL_NO_BUDGET_WINDOW", "llm-train").message
        )
        never = finding(automode, "LINT_EXPIRE_NEVER_AUTO_MODE", "pinned-types")
        assert "21 days" in never.message and "drift" in never.message

    def test_nvme_lists_the_types_it_hides(self, automode: LintReport) -> None:
        f = finding(automode, "LINT_NVME_CACHE_DISABLED", "gpu-big-disk")
        assert f.object.kind == "NodeClass" and "(NodePool big-disk)" in f.message and "500Gi" in f.message
        # 500Gi = 536.9 GB: g6e.4xlarge (600 GB) keeps its NVMe for ephemeral storage.
        assert "local NVMe of g6e.xlarge (250 GB), g6e.2xlarge (450 GB):" in f.message
        # The 200Gi NodeClass (214.7 GB) is below the NVMe of everything the clean pools admit.
        assert not [x for x in automode.findings if x.object.name == "gpu-small-disk"]

    def test_budget_invalid_and_consolidation_default(self, automode: LintReport) -> None:
        assert "day-of-week must be 0-6" in finding(automode, "LINT_BUDGET_INVALID", "sunday-seven").message
        default = finding(automode, "LINT_GPU_POOL_CONSOLIDATES_UNDERUTILIZED", "wrong-keys")
        assert "the default when consolidationPolicy is unset" in default.message

    def test_failing_thresholds(self, automode: LintReport) -> None:
        assert automode.exit_code(FailOn.error) == 1 and automode.exit_code(FailOn.warning) == 1

    def test_json_shape(self, automode: LintReport) -> None:
        data = automode.to_dict()
        assert (data["apiVersion"], data["kind"]) == ("kubectl-gpu/v1", "LintReport")
        assert data["summary"] == {"info": 5, "warning": 8, "error": 8}
        first = data["findings"][0]
        assert set(first) == {"code", "severity", "object", "message", "fix", "source"}
        assert first["severity"] == "error" and first["source"] == "lint"
        assert [f["severity"] for f in data["findings"]] == sorted(
            (f["severity"] for f in data["findings"]), key=["error", "warning", "info"].index
        )
        llm = next(p for p in data["nodePools"] if p["name"] == "llm-train")
        assert llm["gpuPool"] and llm["trainingPool"] and "p5.48xlarge" in llm["admittedInstanceTypes"]


class TestKarpenterScenario:
    def test_every_finding(self, karpenter: LintReport) -> None:
        assert keys(karpenter) == {
            ("LINT_WRONG_PROVIDER_LABEL", "error", "gpu-auto-keys"),
            ("LINT_NVME_CACHE_DISABLED", "warning", "gpu-no-raid"),
            ("LINT_NVME_CACHE_DISABLED", "info", "gpu-own-raid"),
            ("LINT_HARDCODED_INSTANCE_TYPES", "info", "train-frozen"),
            ("LINT_HARDCODED_INSTANCE_TYPES", "info", "train-windowed"),
        }

    def test_reverse_wrong_provider(self, karpenter: LintReport) -> None:
        f = finding(karpenter, "LINT_WRONG_PROVIDER_LABEL", "gpu-auto-keys")
        assert (
            "eks.amazonaws.com/instance-gpu-name" in f.message
            and f.fix == "use karpenter.k8s.aws/instance-gpu-name"
        )

    def test_nvme_one_finding_per_nodeclass(self, karpenter: LintReport) -> None:
        own = finding(karpenter, "LINT_NVME_CACHE_DISABLED", "gpu-own-raid")
        assert own.object.kind == "EC2NodeClass" and "userData seems to set up local disks" in own.message
        assert "NodePools gpu-own-raid, reserved-h100, train-frozen, train-windowed" in own.message

    def test_training_pools_with_windows_or_frozen_drift_pass(self, karpenter: LintReport) -> None:
        for name in ("train-frozen", "train-windowed", "reserved-h100"):
            assert pool(karpenter, name).training
        assert not any(f.code == "LINT_TRAINING_POOL_NO_BUDGET_WINDOW" for f in karpenter.findings)

    def test_reserved_capacity_is_not_filtered_out(self, karpenter: LintReport) -> None:
        admitted = pool(karpenter, "reserved-h100").admitted
        # p3.* carry no exact labels in the catalog, so a GPU-name requirement can neither admit nor exclude them.
        assert {it.name for it in admitted if it.exact_labels} == {"p5.4xlarge", "p5.48xlarge"}


def test_training_pool_by_do_not_disrupt_pods() -> None:
    report = run(SCENARIOS / "ours__training-by-dnd-pods.yaml")
    assert keys(report) == {("LINT_TRAINING_POOL_NO_BUDGET_WINDOW", "warning", "batch")}
    assert pool(report, "batch").training == ("its nodes run do-not-disrupt pods (research/sweep-7)",)


def test_every_code_is_declared() -> None:
    reports = [
        run(SCENARIOS / "ours__automode-gpu-pools.yaml"),
        run(SCENARIOS / "ours__karpenter-gpu-pools.yaml"),
        run(SCENARIOS / "ours__training-by-dnd-pods.yaml"),
    ]
    emitted = {f.code for r in reports for f in r.findings}
    from tests.core.analyses.lint.test_lint_fidelity import PINNED_HERE  # issue 11: real manifests
    from tests.core.analyses.lint.test_round_four_static import PINNED_HERE as STATIC  # issue 37, cause 9

    assert emitted | PINNED_HERE | STATIC == set(CODES)
    for report in reports:
        for f in report.findings:
            default, _ = CODES[f.code]
            assert f.severity.value == default or f.code in {
                "LINT_NO_INSTANCE_TYPE",
                "LINT_GPU_POOL_CONSOLIDATES_UNDERUTILIZED",
                "LINT_HARDCODED_INSTANCE_TYPES",
                "LINT_NVME_CACHE_DISABLED",
            }
