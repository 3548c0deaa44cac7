"""Every command's view on the demo bundle, at 120 columns, plain and -o wide, against golden text files.

The views get the reports the commands build (the same analyses, options and price book), so a golden
file reads as `COLUMNS=120 kubectl gpu ... --snapshot examples/automode-gpu-demo.json` prints on a
terminal, less the colours and the notes on stderr.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from rich.console import RenderableType

from kubectl_gpu.core.analyses import cost, diagnose, drivers, lifecycle, lint, nodes, nvme, pending
from kubectl_gpu.core.catalog import Catalog, load_catalog
from kubectl_gpu.core.catalog.pricing import PriceBook, cluster_regions, price_book
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import FailOn
from kubectl_gpu.kube.snapshot import load_snapshot
from kubectl_gpu.render.cost_view import cost_view, inventory_view
from kubectl_gpu.render.diagnose_view import diagnose_view
from kubectl_gpu.render.drivers_view import drivers_view
from kubectl_gpu.render.lifecycle_view import lifecycle_view
from kubectl_gpu.render.lint_view import lint_view
from kubectl_gpu.render.nodes_table import nodes_view
from kubectl_gpu.render.nvme_view import nvme_view
from kubectl_gpu.render.pending_view import explain_view, pending_view
from tests.render.helpers import check_golden, render

DEMO = Path(__file__).resolve().parents[2] / "examples" / "automode-gpu-demo.json"


@dataclass(frozen=True)
class Demo:
    state: ClusterState
    catalog: Catalog
    now: datetime
    prices: PriceBook


@pytest.fixture(scope="module")
def demo() -> Demo:
    state = load_snapshot([DEMO])
    assert state.captured_at is not None
    catalog = load_catalog()
    prices = price_book(catalog, detected=cluster_regions((n.labels for n in state.nodes), state.context))
    return Demo(state, catalog, state.captured_at, prices)


def _nodes(d: Demo, wide: bool, include_all: bool = False) -> RenderableType:
    report = nodes.analyse(d.state, d.catalog, d.now, include_all=include_all, prices=d.prices)
    return nodes_view(report, wide=wide, include_all=include_all, price_region=d.prices.region)


def _pending(d: Demo, wide: bool) -> RenderableType:
    return pending_view(pending.analyse(d.state, d.catalog, d.now), wide=wide)


def _explain(d: Demo, namespace: str, name: str) -> RenderableType:
    pod = next(p for p in d.state.pods if (p.namespace, p.name) == (namespace, name))
    return explain_view(pending.explain(d.state, d.catalog, d.now, pod).pod)


def _nvme(d: Demo, wide: bool, include_all: bool = False) -> RenderableType:
    report = nvme.analyse(d.state, d.catalog, d.now, include_all=include_all)
    return nvme_view(report, wide=wide, include_all=include_all)


def _lifecycle(d: Demo, wide: bool, needs: bool = False, include_all: bool = False) -> RenderableType:
    target = ("ml", "pretrain-8x-h100-0") if needs else None
    wanted = (timedelta(days=11), "11d") if needs else None
    report = lifecycle.analyse(d.state, d.catalog, d.now, pod=target, needs=wanted, include_all=include_all)
    return lifecycle_view(report, wide=wide, include_all=include_all)


def _lint(d: Demo, wide: bool, fail_on: FailOn = FailOn.error) -> RenderableType:
    return lint_view(lint.analyse(d.state, d.catalog, d.now, fail_on=fail_on), wide=wide)


def _cost(d: Demo, wide: bool) -> RenderableType:
    return cost_view(cost.analyse(d.state, d.catalog, d.now, prices=d.prices), wide=wide)


def _inventory(d: Demo, wide: bool, include_all: bool = False) -> RenderableType:
    report = cost.analyse_inventory(d.state, d.catalog, d.now, prices=d.prices, include_all=include_all)
    return inventory_view(report, wide=wide, include_all=include_all, price_region=d.prices.region)


# golden file name -> the view, as the command of that name renders it
CASES: dict[str, Callable[[Demo], RenderableType]] = {
    "nodes": lambda d: _nodes(d, False),
    "nodes-wide": lambda d: _nodes(d, True),
    "nodes-all": lambda d: _nodes(d, False, include_all=True),
    "pending": lambda d: _pending(d, False),
    "pending-wide": lambda d: _pending(d, True),
    "explain-toleration": lambda d: _explain(d, "default", "chat-api-7d9f8c6b5d-x2k4p"),
    "explain-limit": lambda d: _explain(d, "ml", "pretrain-8x-h100-1"),
    "drivers": lambda d: drivers_view(drivers.analyse(d.state, d.catalog, d.now), wide=False),
    "drivers-wide": lambda d: drivers_view(drivers.analyse(d.state, d.catalog, d.now), wide=True),
    "nvme": lambda d: _nvme(d, False),
    "nvme-wide": lambda d: _nvme(d, True),
    "nvme-all": lambda d: _nvme(d, False, include_all=True),
    "lifecycle": lambda d: _lifecycle(d, False),
    "lifecycle-wide": lambda d: _lifecycle(d, True),
    "lifecycle-all": lambda d: _lifecycle(d, False, include_all=True),
    "lifecycle-needs": lambda d: _lifecycle(d, False, needs=True),
    "lint": lambda d: _lint(d, False),
    "lint-wide-fail-on-warning": lambda d: _lint(d, True, FailOn.warning),
    "cost": lambda d: _cost(d, False),
    "cost-wide": lambda d: _cost(d, True),
    "inventory": lambda d: _inventory(d, False),
    "inventory-wide": lambda d: _inventory(d, True),
    "inventory-all": lambda d: _inventory(d, False, include_all=True),
    "diagnose": lambda d: diagnose_view(diagnose.analyse(d.state, d.catalog, d.now), wide=False),
    "diagnose-wide": lambda d: diagnose_view(diagnose.analyse(d.state, d.catalog, d.now), wide=True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_view_matches_golden(name: str, demo: Demo) -> None:
    check_golden(name, render(CASES[name](demo)))
