"""`explain` makes cluster text safe as every other command does (issue 36, item 6): an Event's message
quoted in a disagreement, and a condition's message quoted in a check's detail, cannot forge a line, drive
the terminal or reverse what a line says; JSON keeps the exact values.

The input is the demo bundle (examples/, generated) with a hostile Event and NodeClass condition put in
here, at test time."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Result
from tests.hostile import DEMO, FORGED, unsafe_in

Cli = Callable[..., Result]

POD = "ml/batch-spot"
#: A line break, a carriage return, a CSI that clears the screen, OSC 52 (clipboard) and a bidi override.
HOSTILE = f"\n{FORGED} error: all fine\r\x1b[2J\x1b]52;c;ZXZpbA==\x07\u202etxt.exe"
#: Karpenter's limits message naming a NodePool the analysis does not find exhausted: a disagreement that
#: quotes the message's part (the NodePool name is where the hostile text goes).
EVENT = (
    "Failed to schedule pod, all available instance types exceed limits for nodepool "
    f"(NodePool=gpu-zzz{HOSTILE})"
)


def _bundle(tmp_path: Path, *, event: bool = False, nodeclass: bool = False) -> Path:
    data: dict[str, Any] = json.loads(DEMO.read_text())
    for obj in data["objects"]:
        if event and _provisioner_event(obj):
            obj["message"] = EVENT
        if nodeclass and obj["kind"] == "NodeClass":
            for condition in obj["status"]["conditions"]:
                if condition["type"] == "Ready":
                    condition.update(status="False", reason="Failed", message=f"subnets{HOSTILE}")
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(data))
    return path


def _provisioner_event(obj: dict[str, Any]) -> bool:
    """The pod's FailedScheduling from EKS Auto Mode (the provisioner whose latest message is compared)."""
    return (
        obj["kind"] == "Event"
        and obj["involvedObject"].get("name") == "batch-spot"
        and obj["reason"] == "FailedScheduling"
        and "auto-mode" in obj["source"]["component"]
    )


def test_a_disagreement_quoting_a_hostile_event_is_one_safe_line(cli: Cli, tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, event=True)
    result = cli("explain", POD, "--snapshot", str(bundle))
    assert result.code == 1, result.err
    assert unsafe_in(result.out + result.err) == []
    (line,) = [line for line in result.out.splitlines() if line.startswith("Disagreement: ")]
    assert "gpu-zzz\\nFORGED-LINE error: all fine\\r\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07\\u202etxt.exe" in line
    assert not any(line.startswith(FORGED) for line in result.out.splitlines())


def test_a_check_quoting_a_hostile_condition_is_one_safe_line(cli: Cli, tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, nodeclass=True)
    result = cli("explain", POD, "--snapshot", str(bundle))
    assert result.code == 1, result.err
    assert unsafe_in(result.out + result.err) == []
    details = [line for line in result.out.splitlines() if line.startswith("nodeclass ")]
    assert details and all("subnets\\nFORGED-LINE error: all fine\\r\\x1b[2J" in line for line in details)


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_machine_output_keeps_the_exact_values(cli: Cli, tmp_path: Path, fmt: str) -> None:
    bundle = _bundle(tmp_path, event=True, nodeclass=True)
    result = cli("explain", POD, "--snapshot", str(bundle), "-o", fmt)
    assert result.code == 1, result.err
    if fmt == "json":
        document = json.loads(result.out)
    else:  # YAML escapes what it cannot hold raw, in its own syntax: the value read back is exact
        import yaml

        document = yaml.safe_load(result.out)
    (pod,) = document["pods"]
    assert any(f"gpu-zzz{HOSTILE}" in line for line in pod["disagreements"])
    strings = list(_strings(document))
    assert EVENT in strings  # the Event's message, as the cluster holds it
    assert any(f"subnets{HOSTILE}" in text for text in strings)  # the condition's, in a check's detail


def _strings(value: Any) -> Any:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
