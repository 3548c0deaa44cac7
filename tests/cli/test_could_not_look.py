""" "Clean" and "could not look" never share an exit code (issue 12, item 2; docs/exit-codes.md).

A kind the command reads that may not be listed (403) still lets the report answer, with a warning; but a
command whose exit code is a verdict (pending, explain, drivers, nvme, lint, diagnose, lifecycle --needs)
then exits 4 instead of 0. Findings (1) and errors (3) outrank it; commands that never exit 1 (nodes,
cost, inventory, lifecycle without --needs) stay 0, unless the kind their rows are made of is the one
forbidden (issue 36: `nodes` with nodes forbidden exits 4, with the server's message). A snapshot taken under the same RBAC answers the same,
and a note about a kind the command does not read changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Result
from tests.helpers import node, pod
from tests.kube.apiserver import FakeKubeAPI

Cli = Callable[..., Result]
NOW = "2026-11-28T09:00:00Z"


def _forbid(api: FakeKubeAPI, resource: str) -> None:
    api.fault(path=rf"^/api/v1/{resource}$", status=403)


@pytest.mark.parametrize(
    ("command", "forbidden", "expected"),
    [
        (("diagnose",), "events", 4),
        (("pending",), "events", 4),
        (("drivers",), "pods", 4),
        (("lint", "--fail-on", "warning"), "pods", 4),
        (("lifecycle", "--pod", "ml/train", "--needs", "1h"), "events", 4),
        (("nodes",), "pods", 0),
        (("nodes",), "nodes", 4),  # issue 36: the rows' own kind forbidden is never an empty all-clear
        (("inventory",), "nodes", 4),
        (("cost",), "nodes", 4),
        (("cost",), "pods", 0),
        (("lifecycle",), "events", 0),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, tuple) else str(v),
)
def test_a_forbidden_kind_is_exit_4_where_the_exit_code_is_a_verdict(
    cli: Cli,
    apiserver: FakeKubeAPI,
    kubeconfig: Path,
    command: tuple[str, ...],
    forbidden: str,
    expected: int,
) -> None:
    apiserver.add(node("n1"), pod("train", "ml", node_name="n1"))
    clean = cli(*command, "--kubeconfig", str(kubeconfig), "--now", NOW)
    assert clean.code == 0, clean.err
    _forbid(apiserver, forbidden)
    result = cli(*command, "--kubeconfig", str(kubeconfig), "--now", NOW)
    assert result.code == expected, result.err
    assert f"warning: forbidden to list {forbidden} cluster-wide" in result.err


def test_findings_outrank_could_not_look(cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.add(node("n1"), pod("waiting", "ml", phase="Pending", requests={"nvidia.com/gpu": "1"}))
    _forbid(apiserver, "events")
    assert cli("pending", "--kubeconfig", str(kubeconfig)).code == 1


def test_a_snapshot_taken_under_the_same_rbac_answers_the_same(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    apiserver.add(node("n1"))
    _forbid(apiserver, "events")
    bundle = tmp_path / "bundle.json"
    assert cli("snapshot", "--kubeconfig", str(kubeconfig), "--out", str(bundle), "--now", NOW).code == 0
    assert cli("diagnose", "--snapshot", str(bundle)).code == 4
    assert cli("pending", "--snapshot", str(bundle)).code == 4
    # drivers does not read events: the note is no hole in what it looked at
    assert cli("drivers", "--snapshot", str(bundle)).code == 0


def test_json_output_carries_the_note_and_the_same_exit_code(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    import json

    apiserver.add(node("n1"))
    _forbid(apiserver, "events")
    result = cli("diagnose", "--kubeconfig", str(kubeconfig), "-o", "json")
    assert result.code == 4
    notes = json.loads(result.out)["notes"]
    assert [(n["code"], n["kind"]) for n in notes] == [("FORBIDDEN", "events")]


def test_nodes_forbidden_is_said_with_the_servers_message_and_exit_4(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    """Issue 36: listing nodes answered 403 and `nodes` printed "No nodes with accelerators" with exit 0."""
    apiserver.add(node("n1"))
    apiserver.fault(
        path=r"^/api/v1/nodes$",
        status=403,
        body={
            "kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden", "code": 403,
            "message": 'nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" '
            "at the cluster scope",
        },
    )  # fmt: skip
    result = cli("nodes", "--kubeconfig", str(kubeconfig))
    assert result.code == 4, result.err
    assert 'the server said: nodes is forbidden: User "alice" cannot list resource "nodes"' in result.err


@pytest.mark.parametrize("command", [("pending",), ("diagnose",), ("nodes",)], ids=lambda c: c[0])
def test_a_namespace_that_does_not_exist_is_said_live(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, command: tuple[str, ...]
) -> None:
    """Issue 36: `pending -n nosuchns` printed "No Pending pods requesting accelerators." and exited 0."""
    apiserver.add(node("n1"), pod("waiting", "default", phase="Pending", requests={"nvidia.com/gpu": "1"}))
    result = cli(*command, "-n", "nosuchns", "--kubeconfig", str(kubeconfig))
    assert result.code == 4, result.err
    assert result.err.startswith('error: namespaces "nosuchns" not found'), result.err
    assert not result.out
    assert cli(*command, "-n", "default", "--kubeconfig", str(kubeconfig)).code != 4


def test_a_namespace_that_cannot_be_checked_is_no_error(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    """A read-only role without `get namespaces`: the answer stands on what was read."""
    apiserver.add(node("n1"), pod("train", "ml", node_name="n1"))
    apiserver.fault(path=r"^/api/v1/namespaces/ml$", status=403)
    assert cli("nodes", "-n", "ml", "--kubeconfig", str(kubeconfig)).code == 0


def test_a_namespace_not_in_a_snapshot_is_said(cli: Cli) -> None:
    DEMO = Path(__file__).resolve().parents[2] / "examples" / "automode-gpu-demo.json"
    result = cli("pending", "-n", "nosuchns", "--snapshot", str(DEMO))
    assert result.code == 4
    assert result.err.startswith('error: namespace "nosuchns" is not in the snapshot'), result.err
    assert cli("pending", "-n", "ml", "--snapshot", str(DEMO)).code == 1
    assert cli("pending", "-A", "--snapshot", str(DEMO)).code == 1
