"""`kubectl gpu pending --by-workload` (issue 39, item 2): the workload grouping the TUI's Pending view shows,
as a command with JSON, so a runbook sees what the TUI shows. The groups are core's
(`core.analyses.diagnose.workloads`): the CLI's rows and JSON and the TUI's group rows are held to them."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from kubectl_gpu.core.analyses.diagnose.workloads import workload_groups
from kubectl_gpu.core.analyses.pending import analyse
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.kube.source import SourceOptions, open_source
from tests.conftest import Result
from tests.core.analyses.pending._scenarios import NAMES, path_of
from tests.tui.conftest import DEMO, DEMO_NOW

Cli = Callable[..., Result]
NOW = DEMO_NOW.isoformat().replace("+00:00", "Z")


def _core_groups(path: str) -> list[dict[str, object]]:
    state = open_source(SourceOptions(snapshot=[path])).load(None)
    report = analyse(state, load_catalog(), DEMO_NOW)
    return [g.to_dict() for g in workload_groups(report.pods, state)]


@pytest.mark.parametrize("path", [str(DEMO), *(str(path_of(name)) for name in NAMES)])
def test_the_json_holds_core_s_groups_beside_the_pods(cli: Cli, path: str) -> None:
    plain = cli("pending", "--snapshot", path, "-o", "json", "--now", NOW)
    grouped = cli("pending", "--snapshot", path, "-o", "json", "--now", NOW, "--by-workload")
    assert grouped.code == plain.code  # the pending verdict decides, grouped or not
    data = json.loads(grouped.out)
    workloads = data.pop("workloads")
    assert data == json.loads(plain.out)  # the rest is the PendingReport as it was
    assert workloads == _core_groups(path)
    assert sorted(p for group in workloads for p in group["pods"]) == sorted(
        f"{p['namespace']}/{p['name']}" for p in data["pods"]
    )


def test_a_workload_of_several_pods_is_one_row_with_its_count(cli: Cli) -> None:
    result = cli("pending", "--snapshot", str(DEMO), "--now", NOW, "--by-workload", "--no-color")
    assert result.code == 1
    table = result.out.split("\n\n")[0].splitlines()
    assert any("StatefulSet serving/vllm-l40s (2 pods)" in line for line in table)
    assert not any("vllm-l40s-1" in line or "vllm-l40s-2" in line for line in table)  # folded, as in the TUI
    assert any("chat-api-7d9f8c6b5d-x2k4p" in line for line in table)  # a workload of one: its pod's row


def test_watching_by_workload_is_refused(cli: Cli) -> None:
    result = cli("pending", "--snapshot", str(DEMO), "--by-workload", "-w")
    assert result.code == 2 and result.err.startswith("error: --by-workload and -w/--watch")
