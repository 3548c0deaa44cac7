"""`diagnose` (and each TUI refresh) builds every node's row once: health reads the list price's rows, cost
the region's, and only the prices differ between them (issue 18: each analysis once; issue 22: C1000's
diagnose built them twice)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kubectl_gpu.core.accelerators import nodes as node_module
from kubectl_gpu.core.analyses.diagnose import run_suite
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.catalog.pricing import PriceBook
from kubectl_gpu.kube.snapshot import load_snapshot
from tests.helpers import REPO

DEMO = REPO / "examples" / "automode-gpu-demo.json"
NOW = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)


def test_diagnose_builds_each_node_row_once(monkeypatch: pytest.MonkeyPatch) -> None:
    state = load_snapshot([DEMO])
    built: list[str] = []
    real = node_module.build_node_row

    def counting(node: Any, *args: Any, **kwargs: Any) -> Any:
        built.append(node.name)
        return real(node, *args, **kwargs)

    monkeypatch.setattr(node_module, "build_node_row", counting)
    run_suite(state, load_catalog(), NOW, prices=PriceBook(load_catalog(), region="eu-west-1"))
    assert sorted(built) == sorted(n.name for n in state.nodes)


def test_rows_priced_for_another_book_differ_only_in_price() -> None:
    state, catalog = load_snapshot([DEMO]), load_catalog()
    listed = node_module.all_node_rows(state, catalog)
    regional = node_module.all_node_rows(state, catalog, PriceBook(catalog, region="eu-west-1"))
    fresh = tuple(
        node_module.build_node_row(n, state, catalog, PriceBook(catalog, region="eu-west-1"))
        for n in state.nodes
    )
    assert regional == fresh
    assert [r.name for r in listed] == [r.name for r in regional]
