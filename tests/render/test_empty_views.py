"""What each view says when there is nothing to show: a cluster with no objects at all."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kubectl_gpu.core.analyses import cost, diagnose, drivers, lifecycle, lint, nodes, nvme, pending
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.k8s.state import ClusterState, StateBuilder
from kubectl_gpu.render.cost_view import cost_view, inventory_view
from kubectl_gpu.render.diagnose_view import diagnose_view
from kubectl_gpu.render.drivers_view import drivers_view
from kubectl_gpu.render.lifecycle_view import lifecycle_view
from kubectl_gpu.render.lint_view import lint_view
from kubectl_gpu.render.nodes_table import nodes_view
from kubectl_gpu.render.nvme_view import nvme_view
from kubectl_gpu.render.pending_view import pending_view
from tests.render.helpers import render

NOW = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def empty() -> ClusterState:
    return StateBuilder().build()


@pytest.mark.parametrize("include_all", [False, True])
def test_nodes(empty: ClusterState, include_all: bool) -> None:
    report = nodes.analyse(empty, load_catalog(), NOW, include_all=include_all)
    expected = (
        "No nodes.\n" if include_all else "No nodes with accelerators (use --all to list every node).\n"
    )
    for wide in (False, True):
        assert render(nodes_view(report, wide=wide, include_all=include_all)) == expected


@pytest.mark.parametrize("all_pending", [False, True])
def test_pending(empty: ClusterState, all_pending: bool) -> None:
    report = pending.analyse(empty, load_catalog(), NOW, all_pending=all_pending)
    expected = "No Pending pods.\n" if all_pending else "No Pending pods requesting accelerators.\n"
    assert render(pending_view(report, wide=False, all_pending=all_pending)) == expected


def test_drivers(empty: ClusterState) -> None:
    report = drivers.analyse(empty, load_catalog(), NOW)
    assert render(drivers_view(report, wide=True)) == "No NVIDIA GPU nodes or GPU workloads.\n"


@pytest.mark.parametrize("include_all", [False, True])
def test_nvme(empty: ClusterState, include_all: bool) -> None:
    report = nvme.analyse(empty, load_catalog(), NOW, include_all=include_all)
    expected = (
        "No nodes.\n" if include_all else "No nodes with accelerators (use --all to list every node).\n"
    )
    assert render(nvme_view(report, wide=False, include_all=include_all)) == expected


@pytest.mark.parametrize("include_all", [False, True])
def test_lifecycle(empty: ClusterState, include_all: bool) -> None:
    report = lifecycle.analyse(empty, load_catalog(), NOW, include_all=include_all)
    expected = (
        "No nodes.\n" if include_all else "No nodes with accelerators (use --all for every Karpenter node).\n"
    )
    assert render(lifecycle_view(report, wide=False, include_all=include_all)) == expected


def test_lint(empty: ClusterState) -> None:
    report = lint.analyse(empty, load_catalog(), NOW)
    assert render(lint_view(report, wide=True)) == "No NodePools or NodeClasses to check.\n"


def test_cost(empty: ClusterState) -> None:
    report = cost.analyse(empty, load_catalog(), NOW)
    assert render(cost_view(report, wide=False)) == "No nodes with accelerators.\n"


@pytest.mark.parametrize("include_all", [False, True])
def test_inventory(empty: ClusterState, include_all: bool) -> None:
    report = cost.analyse_inventory(empty, load_catalog(), NOW, include_all=include_all)
    expected = (
        "No instances.\n"
        if include_all
        else "No instances with accelerators (use --all to list every instance).\n"
    )
    assert render(inventory_view(report, wide=False, include_all=include_all)) == expected


def test_diagnose(empty: ClusterState) -> None:
    report = diagnose.analyse(empty, load_catalog(), NOW)
    expected = f"No findings ({', '.join(diagnose.ANALYSES)}).\n"
    assert render(diagnose_view(report, wide=False)) == expected
