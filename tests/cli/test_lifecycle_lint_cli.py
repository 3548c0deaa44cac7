"""`kubectl gpu lifecycle` and `kubectl gpu lint` end to end: options, JSON, tables, stdin, exit codes."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from kubectl_gpu.core.analyses.lint.analysis import CODES
from kubectl_gpu.core.report import Severity
from tests.conftest import Result

Cli = Callable[..., Result]

ROOT = Path(__file__).parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "karpenter"
LIFECYCLE = ROOT / "tests" / "scenarios" / "lifecycle"
LINT = ROOT / "tests" / "scenarios" / "lint"
AUTO = str(LIFECYCLE / "ours__automode-lifecycle.yaml")
KARP = str(LIFECYCLE / "ours__karpenter-lifecycle.yaml")
AUTO_NOW = "2026-11-27T16:30:00Z"


class TestLifecycle:
    def test_table(self, cli: Cli) -> None:
        r = cli("lifecycle", "--snapshot", AUTO, "--now", AUTO_NOW)
        assert r.code == 0, r.err
        lines = r.out.splitlines()
        assert lines[0].split()[:5] == ["NODE", "NODEPOOL", "TYPE", "AGE", "EXPIRES"]
        row = next(line for line in lines if line.startswith("i-0inf0001"))
        assert "in 7h30m (21d cap)" in row
        train = next(line for line in lines if line.startswith("i-0train002"))
        assert "drift 0 (in 7h30m)" in train  # blocked until Saturday 00:00 UTC
        assert "LIFECYCLE_NODE_EXPIRING" in r.out and "i-0cpu0001" not in r.out

    def test_wide_and_all(self, cli: Cli) -> None:
        r = cli("lifecycle", "--snapshot", AUTO, "--now", AUTO_NOW, "--all", "-o", "wide")
        assert r.code == 0, r.err
        assert "i-0cpu0001" in r.out and "TGP" in r.out
        assert "nodes 0 from '0 0 * * mon-fri' (UTC) for 24h for every reason [active]" in r.out

    def test_json(self, cli: Cli) -> None:
        r = cli("lifecycle", "--snapshot", AUTO, "--now", AUTO_NOW, "-o", "json")
        assert r.code == 0, r.err
        data = json.loads(r.out)
        assert data["kind"] == "LifecycleReport" and data["apiVersion"] == "kubectl-gpu/v1"
        assert [n["name"] for n in data["nodes"]] == [
            "i-0inf0001",
            "i-0inf0002",
            "i-0train001",
            "i-0train002",
        ]
        assert {p["name"] for p in data["pods"]} == {
            "llm-0",
            "llm-1",
            "pretrain-0",
            "finetune-0",
            "finetune-1",
        }
        assert {f["code"] for f in data["findings"]} >= {"LIFECYCLE_NODE_EXPIRING", "LIFECYCLE_DND_INVALID"}

    def test_yaml(self, cli: Cli) -> None:
        r = cli("lifecycle", "--snapshot", KARP, "--now", "2026-11-29T23:30:00Z", "-o", "yaml")
        assert r.code == 0, r.err
        assert "kind: LifecycleReport" in r.out and "LIFECYCLE_BUDGET_INVALID" in r.out

    @pytest.mark.parametrize(("needs", "code", "verdict"), [("11d", 0, "yes"), ("14d", 1, "no")])
    def test_will_the_job_survive(self, cli: Cli, needs: str, code: int, verdict: str) -> None:
        r = cli(
            "lifecycle", "--snapshot", AUTO, "--now", AUTO_NOW, "--pod", "ml/pretrain-0", "--needs", needs
        )
        assert r.code == code, r.err
        assert {"yes": "survives", "no": "will NOT survive"}[verdict] in r.out
        j = cli(
            "lifecycle",
            "--snapshot",
            AUTO,
            "--now",
            AUTO_NOW,
            "--pod",
            "ml/pretrain-0",
            "--needs",
            needs,
            "-o",
            "json",
        )
        assert j.code == code
        data = json.loads(j.out)
        assert len(data["nodes"]) == 1 and [p["name"] for p in data["pods"]] == ["pretrain-0"]
        assert data["pods"][0]["survival"]["verdict"] == verdict

    def test_at_risk_exits_one(self, cli: Cli) -> None:
        r = cli(
            "lifecycle",
            "--snapshot",
            AUTO,
            "--now",
            AUTO_NOW,
            "-n",
            "ml",
            "--pod",
            "finetune-0",
            "--needs",
            "5d",
        )
        assert r.code == 1
        assert "at risk" in r.out and "LIFECYCLE_POD_SURVIVAL_AT_RISK" in r.out

    def test_needs_for_every_pod(self, cli: Cli) -> None:
        r = cli("lifecycle", "--snapshot", AUTO, "--now", AUTO_NOW, "--needs", "1h", "-o", "json")
        assert r.code == 1  # llm-0 and llm-1 can go now
        verdicts = {p["name"]: p["survival"]["verdict"] for p in json.loads(r.out)["pods"]}
        assert verdicts["pretrain-0"] == "yes" and verdicts["llm-1"] == "no"

    @pytest.mark.parametrize(
        ("args", "message"),
        [
            (["--pod", "ml/nope"], "pod ml/nope not found"),
            (["--pod", "ml/pretrain-0", "--needs", "soon"], "--needs: not a duration"),
            (["--pod", "ml/pretrain-0", "--needs", "0h"], "--needs must be positive"),
        ],
    )
    def test_usage_errors(self, cli: Cli, args: list[str], message: str) -> None:
        r = cli("lifecycle", "--snapshot", AUTO, "--now", AUTO_NOW, *args)
        assert r.code == 2 and message in r.err

    def test_pending_pod(self, cli: Cli, tmp_path: Path) -> None:
        text = Path(AUTO).read_text() + (
            "- apiVersion: v1\n  kind: Pod\n  metadata: {name: waiting, namespace: ml}\n"
            "  spec: {containers: [{name: c, image: x}]}\n  status: {phase: Pending}\n"
        )
        path = tmp_path / "s.yaml"
        path.write_text(text)
        r = cli("lifecycle", "--snapshot", str(path), "--pod", "ml/waiting")
        assert r.code == 2 and "not bound to a node" in r.err

    def test_no_gpu_nodes(self, cli: Cli, tmp_path: Path) -> None:
        path = tmp_path / "empty.json"
        path.write_text('{"apiVersion": "v1", "kind": "List", "items": []}')
        r = cli("lifecycle", "--snapshot", str(path))
        assert r.code == 0 and "No nodes with accelerators" in r.out


class TestLint:
    def test_real_manifest_warnings_pass_by_default(self, cli: Cli) -> None:
        path = str(FIXTURES / "data-on-eks__nodepool-gpu-g5-g6-g6e-g7e.yaml")
        r = cli("lint", "-f", path)
        assert r.code == 0, r.err
        assert (
            "LINT_GPU_POOL_NO_TAINT" in r.out
            and "\n    taints: [{key: nvidia.com/gpu, effect: NoSchedule}]  # and tolerate it in GPU pods\n"
            in r.out
        )
        assert "--fail-on error: pass" in r.out
        strict = cli("lint", "-f", path, "--fail-on", "warning")
        assert strict.code == 1 and "--fail-on warning: FAIL" in strict.out

    def test_several_files_and_a_directory(self, cli: Cli) -> None:
        r = cli(
            "lint",
            "-f",
            str(FIXTURES / "eks-docs__automode-nodepool-gpu-g6e-g6.yaml"),
            "-f",
            str(FIXTURES / "eks-docs__automode-nodeclass-reference.yaml"),
            "-o",
            "json",
        )
        assert r.code == 0
        data = json.loads(r.out)
        assert data["nodeClasses"] == ["NodeClass/default"] and data["failOn"] == "error"
        assert {f["code"] for f in data["findings"]} == {
            "LINT_GPU_POOL_NO_TAINT",
            "LINT_HARDCODED_INSTANCE_TYPES",
        }
        d = cli("lint", "-f", str(LINT), "-o", "json")
        assert d.code == 1 and len(json.loads(d.out)["nodePools"]) == 23  # 12 + 5 + 1 + 5 pools

    def test_the_same_nodepool_in_two_files(self, cli: Cli) -> None:
        """issue 11: walidshaari/sample-aws-eks-auto-mode defines neuron-nodepool twice."""
        first = str(FIXTURES / "sample-aws-eks-auto-mode__nodepools__neuron-nodepool.yaml")
        second = str(FIXTURES / "sample-aws-eks-auto-mode__examples-neuron__neuron-nodepool.yaml")
        r = cli("lint", "-f", first, "-f", second)
        assert r.code == 1 and "error    LINT_DUPLICATE_OBJECT  nodepool/neuron-nodepool\n" in r.out
        assert first in r.out and second in r.out

    def test_a_file_and_stdin_defining_one_nodepool(self, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
        path = FIXTURES / "eks-docs__automode-nodepool-gpu-g6e-g6.yaml"
        monkeypatch.setattr("sys.stdin", io.StringIO(path.read_text()))
        r = cli("lint", "-f", str(path), "-f", "-", "-o", "json")
        assert r.code == 1
        assert "LINT_DUPLICATE_OBJECT" in {f["code"] for f in json.loads(r.out)["findings"]}

    def test_a_v1alpha5_provisioner_alone(self, cli: Cli) -> None:
        path = FIXTURES / "karpenter-provider-aws__examples-provisioner__large-instances-v1alpha5.yaml"
        r = cli("lint", "-f", str(path))
        assert r.code == 1 and "LINT_REMOVED_API_VERSION  provisioner/default" in r.out

    def test_clean_real_manifests(self, cli: Cli) -> None:
        r = cli("lint", "-f", str(FIXTURES / "karpenter-provider-aws__examples-v1__general-purpose.yaml"))
        assert r.code == 0 and r.out.startswith("No findings (1 NodePool, 1 NodeClass)")

    def test_stdin_like_kustomize(self, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
        text = (LINT / "ours__automode-gpu-pools.yaml").read_text()
        monkeypatch.setattr("sys.stdin", io.StringIO(text))
        r = cli("lint", "-f", "-", "-o", "json")
        assert r.code == 1, r.err
        data = json.loads(r.out)
        assert data["kind"] == "LintReport" and data["summary"]["error"] == 8
        assert len(data["nodePools"]) == 12

    def test_stdin_and_a_file_together(self, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(
            "sys.stdin", io.StringIO((FIXTURES / "eks-docs__automode-nodeclass-reference.yaml").read_text())
        )
        r = cli(
            "lint",
            "-f",
            str(FIXTURES / "eks-docs__automode-nodepool-gpu-g6e-g6.yaml"),
            "-f",
            "-",
            "-o",
            "json",
        )
        assert r.code == 0, r.err
        assert json.loads(r.out)["nodeClasses"] == ["NodeClass/default"]

    def test_stdin_json_list(self, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
        """`kubectl get nodepools,ec2nodeclasses -o json` piped in: a JSON List."""
        items = yaml.safe_load(Path(KARP).read_text())
        monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(items)))
        r = cli("lint", "-f", "-")
        assert r.code == 1, r.out + r.err
        assert "LINT_BUDGET_INVALID  nodepool/gpu-broken" in r.out
        assert "checked 2 NodePools, 1 NodeClass" in r.out

    @pytest.mark.parametrize(
        ("stdin", "message"),
        [
            ("", "no input"),
            ("kind: [unclosed", "not valid YAML"),
            ("{bad json", "not valid JSON"),
            ("just: a mapping\n", "is not a Kubernetes object"),
        ],
    )
    def test_bad_stdin(self, cli: Cli, monkeypatch: pytest.MonkeyPatch, stdin: str, message: str) -> None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        r = cli("lint", "-f", "-")
        assert r.code == 2 and message in r.err

    def test_nothing_to_lint(self, cli: Cli) -> None:
        r = cli("lint", "-f", str(FIXTURES / "karpenter-provider-aws__workload-gpu-nvidia.yaml"))
        assert r.code == 2 and "no NodePool, NodeClass or EC2NodeClass" in r.err
        assert "skipped 1 objects" not in r.out

    def test_live_path_with_snapshot(self, cli: Cli) -> None:
        r = cli("lint", "--snapshot", str(LINT / "ours__training-by-dnd-pods.yaml"), "-o", "wide")
        assert r.code == 0, r.err
        assert "LINT_TRAINING_POOL_NO_BUDGET_WINDOW" in r.out and "training pools: batch" in r.out

    def test_missing_file(self, cli: Cli) -> None:
        r = cli("lint", "-f", "/nonexistent/nodepool.yaml")
        assert r.code == 2 and "no such file" in r.err

    @pytest.mark.parametrize("output", [(), ("-o", "json")], ids=["table", "json"])
    def test_fail_on_decides_whether_a_warning_fails(
        self, cli: Cli, warning_only_snapshot: str, output: tuple[str, ...]
    ) -> None:
        snapshot = warning_only_snapshot
        report = json.loads(cli("lint", "--snapshot", snapshot, "-o", "json").out)
        assert "LINT_GPU_POOL_NO_TAINT" in {f["code"] for f in report["findings"]}
        assert max(Severity(f["severity"]).rank for f in report["findings"]) == Severity.WARNING.rank
        warning = cli("lint", "--snapshot", snapshot, "--fail-on", "warning", *output)
        assert warning.code == 1, warning.err
        error = cli("lint", "--snapshot", snapshot, "--fail-on", "error", *output)
        assert error.code == 0, error.err
        assert cli("lint", "--snapshot", snapshot, *output).code == 0  # the default is error

    def test_bad_fail_on(self, cli: Cli) -> None:
        r = cli(
            "lint", "-f", str(FIXTURES / "eks-docs__automode-nodepool-gpu-g6e-g6.yaml"), "--fail-on", "info"
        )
        assert r.code == 2


@pytest.mark.parametrize("command", ["lifecycle", "lint"])
def test_help(cli: Cli, command: str) -> None:
    r = cli(command, "--help")
    assert r.code == 0 and command in r.out


def test_every_code_is_documented() -> None:
    codes_page = (ROOT / "docs" / "codes.md").read_text()
    lifecycle_src = (ROOT / "kubectl_gpu" / "core" / "analyses" / "lifecycle" / "analysis.py").read_text()
    lifecycle_codes = set(re.findall(r'"(LIFECYCLE_[A-Z_]+)"', lifecycle_src))
    assert len(lifecycle_codes) == 10
    for code in sorted(set(CODES) | lifecycle_codes):
        assert f"`{code}`" in codes_page, code
    assert "## Lifecycle (`source: lifecycle`)" in codes_page and "## Lint (`source: lint`)" in codes_page
    for command in ("lifecycle", "lint"):
        page = (ROOT / "docs" / "commands" / f"{command}.md").read_text()
        assert page.startswith(f"# `kubectl gpu {command}`"), command
    readme = (ROOT / "README.md").read_text()
    assert "| `kubectl gpu lifecycle" in readme and "| `kubectl gpu lint" in readme
