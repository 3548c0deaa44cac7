"""`kubectl gpu simulate` end to end on the demo snapshot: the text, the JSON contract, the exit codes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Result

Cli = Callable[..., Result]
DEMO = str(Path(__file__).resolve().parents[2] / "examples" / "automode-gpu-demo.json")
LIMITS = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu-training
spec:
  limits:
    nvidia.com/gpu: "32"
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_merge_patch_that_only_improves_exits_zero(cli: Cli, tmp_path: Path) -> None:
    result = cli("simulate", "--snapshot", DEMO, "-f", write(tmp_path, "p.yaml", LIMITS), "--type", "merge")
    assert result.code == 0, result.err
    assert "BETTER" in result.out and "pretrain-8x-h100-1" in result.out


def test_json_contract_and_fail_on(cli: Cli, tmp_path: Path) -> None:
    patch = LIMITS + "  template:\n    spec:\n      expireAfter: 336h\n"
    path = write(tmp_path, "p.yaml", patch)
    result = cli("simulate", "--snapshot", DEMO, "-f", path, "--type", "merge", "-o", "json")
    assert result.code == 1, result.err  # the drift got worse
    report = json.loads(result.out)
    assert (report["apiVersion"], report["kind"], report["simulateVersion"]) == (
        "kubectl-gpu/v1",
        "SimulateReport",
        1,
    )
    assert set(report["summary"]) == {"better", "worse", "unchanged"}
    assert report["blastRadius"][0]["reason"] == "NodePoolDrifted"
    for effect in report["effects"]:
        assert set(effect) == {"area", "direction", "object", "message", "fix", "detail"}
    assert cli("simulate", "--snapshot", DEMO, "-f", path, "--type", "merge", "--fail-on", "none").code == 0


def test_bad_input_is_exit_two_naming_the_file(cli: Cli, tmp_path: Path) -> None:
    broken = write(tmp_path, "broken.yaml", "kind: [\n")
    result = cli("simulate", "--snapshot", DEMO, "-f", broken)
    assert result.code == 2 and "broken.yaml" in result.err and "does not parse" in result.err
    unknown = write(tmp_path, "svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n")
    assert cli("simulate", "--snapshot", DEMO, "-f", unknown).code == 2
    strategic = write(tmp_path, "s.yaml", LIMITS)
    result = cli("simulate", "--snapshot", DEMO, "-f", strategic, "--type", "strategic")
    assert result.code == 2 and "use --type merge or --type json" in result.err
    assert cli("simulate", "--snapshot", DEMO, "--delete", "nodepool/nope").code == 2
    assert "Traceback" not in result.err


def test_a_partial_object_without_type_is_refused_with_the_patch_hint(cli: Cli, tmp_path: Path) -> None:
    """Without --type the file is a whole NodePool, which the CRD refuses (no nodeClassRef); the hint says
    that a file of the fields to change is a patch."""
    path = write(tmp_path, "p.yaml", LIMITS)
    result = cli("simulate", "--snapshot", DEMO, "-f", path)
    assert result.code == 2
    assert "spec.template.spec.nodeClassRef: Required value" in result.err
    assert result.err.rstrip().endswith("it is a patch: --type merge")
