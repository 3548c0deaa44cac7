"""A --snapshot of several clusters' bundles is a fleet, and each cluster's answer is, byte for byte, what
the single-cluster command gives on that cluster's bundle alone: the fleet adds a column, never a number."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Result

Cli = Callable[..., Result]
DEMO = Path(__file__).resolve().parents[2] / "examples" / "automode-gpu-demo.json"
COMMANDS = [
    ["nodes"],
    ["nodes", "--all"],
    ["pending"],
    ["explain", "ml/batch-spot"],
    ["diagnose"],
    ["diagnose", "--fail-on", "warning"],
    ["drivers"],
    ["nvme"],
    ["lifecycle"],
    ["lint"],
    ["cost"],
    ["inventory"],
]


@pytest.fixture
def bundles(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    """The demo bundle as two clusters: `prod` (all of it) and `staging` (without the p5 node and the
    Pending pods), in one directory, and each alone in a directory of its own."""
    demo = json.loads(DEMO.read_text())
    staging = [
        o
        for o in demo["objects"]
        if not (o["kind"] == "Node" and "p5." in json.dumps(o["metadata"].get("labels", {})))
        and not (o["kind"] == "Pod" and o.get("status", {}).get("phase") == "Pending")
    ]
    fleet = tmp_path / "fleet"
    fleet.mkdir()
    alone: dict[str, Path] = {}
    for context, objects in (("prod", demo["objects"]), ("staging", staging)):
        text = json.dumps({**demo, "context": context, "objects": objects})
        (fleet / f"{context}.json").write_text(text)
        alone[context] = tmp_path / context
        alone[context].mkdir()
        (alone[context] / "bundle.json").write_text(text)
    return fleet, alone


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_each_cluster_answers_as_alone(
    cli: Cli, bundles: tuple[Path, dict[str, Path]], command: list[str]
) -> None:
    fleet, alone = bundles
    result = cli(*command, "--snapshot", str(fleet), "-o", "json")
    doc = json.loads(result.out)
    assert doc["kind"] == "FleetReport" and [c["context"] for c in doc["clusters"]] == ["prod", "staging"]
    codes = []
    for cluster in doc["clusters"]:
        single = cli(*command, "--snapshot", str(alone[cluster["context"]]), "-o", "json")
        if single.code == 2:  # explain: the pod is only in prod
            assert cluster["error"]["exitCode"] == 2 and single.err.strip().endswith(
                cluster["error"]["message"].split(": ", 1)[1]
            )
            codes.append(2)
            continue
        expected = json.loads(single.out)
        notes = expected.pop("notes", [])
        assert cluster["report"] == expected and cluster["notes"] == notes
        assert cluster["exitCode"] == single.code
        codes.append(single.code)
    assert result.code == doc["exitCode"] == (1 if 1 in codes else 4 if set(codes) - {0, 1} else 0)


@pytest.mark.parametrize("command", [["nodes"], ["pending"], ["drivers"], ["cost"]], ids=" ".join)
def test_table_rows_are_the_single_clusters_rows(
    cli: Cli, bundles: tuple[Path, dict[str, Path]], command: list[str]
) -> None:
    fleet, alone = bundles
    table = cli(*command, "--snapshot", str(fleet)).out.splitlines()
    for context in ("prod", "staging"):
        single = cli(*command, "--snapshot", str(alone[context])).out.splitlines()
        rows = [line.split(None, 1)[1].split() for line in table if line.startswith(f"{context} ")]
        single_rows = [line.split() for line in single if line.strip()]
        assert all(row in single_rows for row in rows)
        assert rows or single[0].startswith("No ")  # staging has no Pending pod: "No Pending GPU pods."


def test_the_single_cluster_output_has_no_cluster_column(
    cli: Cli, bundles: tuple[Path, dict[str, Path]]
) -> None:
    _, alone = bundles
    result = cli("nodes", "--snapshot", str(alone["prod"]))
    assert result.out.splitlines()[0].startswith("NAME ")
    assert (
        json.loads(cli("nodes", "--snapshot", str(alone["prod"]), "-o", "json").out)["kind"] == "NodeReport"
    )
