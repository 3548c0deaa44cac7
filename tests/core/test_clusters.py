"""`core.clusters`: the fleet's JSON document and its exit code."""

from __future__ import annotations

import pytest

from kubectl_gpu.core.clusters import ClusterFailure, ClusterResult, combine, fleet_exit_code
from kubectl_gpu.core.errors import ExitCode

OK, FINDINGS, USAGE, CLUSTER, INCOMPLETE = (
    ExitCode.OK,
    ExitCode.FINDINGS,
    ExitCode.USAGE,
    ExitCode.CLUSTER,
    ExitCode.INCOMPLETE,
)


def _read(name: str, code: ExitCode) -> ClusterResult:
    return ClusterResult(name, document={"kind": "NodeReport"}, exit_code=code)


def _failed(name: str, code: ExitCode) -> ClusterResult:
    return ClusterResult(name, error=ClusterFailure(f"context {name}: down", code))


@pytest.mark.parametrize(
    ("results", "expected"),
    [
        ([], OK),
        ([_read("a", OK), _read("b", OK)], OK),
        ([_read("a", OK), _read("b", FINDINGS)], FINDINGS),
        ([_read("a", FINDINGS), _failed("b", CLUSTER)], FINDINGS),  # findings outrank a failed cluster
        ([_read("a", OK), _failed("b", CLUSTER)], INCOMPLETE),  # part of the fleet was not looked at
        ([_read("a", OK), _read("b", INCOMPLETE)], INCOMPLETE),
        ([_read("a", INCOMPLETE), _read("b", FINDINGS)], FINDINGS),
        ([_failed("a", CLUSTER), _failed("b", USAGE)], CLUSTER),  # nothing read: as one cluster
        ([_failed("a", USAGE)], USAGE),
    ],
)
def test_fleet_exit_code(results: list[ClusterResult], expected: ExitCode) -> None:
    assert fleet_exit_code(results) == expected


def test_document() -> None:
    fleet = combine("nodes", [_read("a", OK), _failed("b", CLUSTER)])
    doc = fleet.to_dict()
    assert list(doc)[:2] == ["apiVersion", "kind"] and doc["kind"] == "FleetReport"
    assert doc["command"] == "nodes" and doc["reportKind"] == "NodeReport" and doc["exitCode"] == 4
    assert doc["summary"] == {"clusters": 2, "read": 1, "failed": 1}
    assert doc["clusters"][1] == {
        "context": "b",
        "cluster": None,
        "exitCode": 3,
        "error": {"message": "context b: down", "exitCode": 3},
        "notes": [],
        "report": None,
    }
