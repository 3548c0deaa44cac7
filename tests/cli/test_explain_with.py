"""`kubectl gpu explain POD --with FILE` on the demo snapshot: one pod's answer on a copy of the cluster with
the changes made as `simulate` makes them (issue 40)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Result

Cli = Callable[..., Result]
DEMO = str(Path(__file__).resolve().parents[2] / "examples" / "automode-gpu-demo.json")
TRAINING = "ml/pretrain-8x-h100-1"  # NODEPOOL_LIMIT_REACHED on gpu-training (nvidia.com/gpu=8, used up)
CHAT = "default/chat-api-7d9f8c6b5d-x2k4p"  # MISSING_TOLERATION of gpu-inference's nvidia.com/gpu taint
TOLERATION = """spec:
  template:
    spec:
      tolerations:
      - key: nvidia.com/gpu
        operator: Exists
        effect: NoSchedule
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def explain_json(cli: Cli, *args: str) -> tuple[int, dict]:
    result = cli("explain", "--snapshot", DEMO, *args, "-o", "json")
    return result.code, json.loads(result.out) if result.out else {}


def test_limits_lifted_the_pod_launches_and_a_note_says_on_what(cli: Cli, tmp_path: Path) -> None:
    code, before = explain_json(cli, TRAINING)
    assert code == 1 and before["pods"][0]["verdict"] == "NODEPOOL_LIMIT_REACHED"
    assert "notes" not in before
    patch = write(tmp_path, "limits.yaml", "spec:\n  limits:\n    nvidia.com/gpu: '32'\n")
    code, after = explain_json(
        cli, TRAINING, "--with", patch, "--type", "merge", "--target", "nodepool/gpu-training"
    )
    assert after["pods"][0]["verdict"] == "NO_BLOCKER_FOUND"  # (still Pending: exit 1, as explain says)
    assert [n["code"] for n in after["notes"]] == ["CHANGED"]
    assert "NodePool/gpu-training patch" in after["notes"][0]["message"]


def test_a_toleration_on_the_deployment_explains_its_new_replica(cli: Cli, tmp_path: Path) -> None:
    patch = write(tmp_path, "tol.yaml", TOLERATION)
    result = cli(
        "explain",
        "--snapshot",
        DEMO,
        CHAT,
        "--with",
        patch,
        "--type",
        "strategic",
        "--target",
        "deploy/chat-api",
    )
    assert "MISSING_TOLERATION" not in result.out
    assert "tolerated: nvidia.com/gpu:NoSchedule" in result.out
    assert "is replaced by Deployment/default/chat-api: its new replica" in result.err


def test_a_whole_object_and_a_deletion(cli: Cli, tmp_path: Path) -> None:
    pool = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu-training
spec:
  template:
    spec:
      nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name: gpu}
      requirements:
      - {key: eks.amazonaws.com/instance-family, operator: In, values: [p5]}
  limits:
    nvidia.com/gpu: "64"
"""
    code, after = explain_json(cli, TRAINING, "--with", write(tmp_path, "pool.yaml", pool))
    assert code in (0, 1)
    assert after["pods"][0]["verdict"] != "NODEPOOL_LIMIT_REACHED", after["pods"][0]
    _, gone = explain_json(cli, TRAINING, "--delete", "nodepool/gpu-training")
    assert gone["pods"][0]["verdict"] != "NODEPOOL_LIMIT_REACHED"
    assert "NodePool/gpu-training delete" in gone["notes"][0]["message"]


def test_bad_input_is_exit_2_with_nothing_answered(cli: Cli, tmp_path: Path) -> None:
    bad = cli("explain", "--snapshot", DEMO, TRAINING, "--with", write(tmp_path, "bad.yaml", "kind: [\n"))
    assert bad.code == 2 and "bad.yaml" in bad.err and not bad.out
    unknown = cli("explain", "--snapshot", DEMO, TRAINING, "--delete", "nodepool/nope")
    assert unknown.code == 2 and "not found" in unknown.err
    alone = cli("explain", "--snapshot", DEMO, TRAINING, "--type", "merge")
    assert alone.code == 2 and "--with" in alone.err
