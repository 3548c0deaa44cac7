"""A refresh when nothing changed (issue 13): nothing is listed or parsed again, and at the same instant
nothing is analysed again either; the rows on screen stay the very same."""

from __future__ import annotations

import itertools
import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest

from kubectl_gpu.kube.source import SourceOptions
from kubectl_gpu.tui.app import GpuApp
from kubectl_gpu.tui.config import TuiConfig
from tests.kube.kubelet import gpu_node
from tests.tui.conftest import DEMO, DEMO_NOW, Live, settle

SIZE = (100, 30)


def _models(app: GpuApp) -> list[Any]:
    return [view.model for view in app.views()]


def _lists(live: Live) -> int:
    lists = (r for r in live.api.requests if "/proxy/" not in r.path)  # /metrics reads (the usage view)
    return sum(1 for r in lists if r.query.get("watch") is None and "/v1/" in r.path)


async def test_an_unchanged_live_cluster_is_not_listed_or_analysed_again(live: Live) -> None:
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first, models, listed = app.snapshot, _models(app), _lists(live)
        assert first is not None and not first.reused
        await settle(pilot, "r")
        assert app.snapshot is not None and app.snapshot.reused and app.error is None
        assert app.snapshot.state is first.state and app.snapshot.diagnose is first.diagnose
        assert _lists(live) == listed  # only watches asked whether anything changed
        kept = {v.view_id: a is b for v, a, b in zip(app.views(), _models(app), models, strict=True)}
        assert kept.pop("usage") is False  # the usage view's window read one more round of /metrics
        assert all(kept.values())
        live.api.add(gpu_node("i-000aaaaaaaaaaaaaa", labels={"karpenter.sh/nodepool": "gpu-inference"}))
        await settle(pilot, "r")
        assert not app.snapshot.reused and len(app.snapshot.nodes.rows) == 5
        assert _lists(live) > listed


async def test_live_without_now_analyses_the_same_state_at_the_new_instant(live: Live) -> None:
    ticks = (DEMO_NOW + timedelta(minutes=m) for m in itertools.count())
    config = msgspec.structs.replace(live.config(), now=None)
    app = GpuApp(config, clock=lambda: next(ticks))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first, listed = app.snapshot, _lists(live)
        assert first is not None
        await settle(pilot, "r")
        assert app.snapshot is not None and not app.snapshot.reused
        assert app.snapshot.state is first.state  # not listed again...
        assert app.snapshot.now > first.now  # ...but time-based findings are evaluated anew
        assert _lists(live) == listed


async def test_an_unchanged_snapshot_file_is_not_parsed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bundle.json"
    shutil.copy(DEMO, path)
    import kubectl_gpu.kube.snapshot as snapshot_module

    reads: list[object] = []
    original = snapshot_module.load_snapshot

    def counted(*args: Any, **kw: Any) -> Any:
        reads.append(args)
        return original(*args, **kw)

    monkeypatch.setattr(snapshot_module, "load_snapshot", counted)
    app = GpuApp(TuiConfig(SourceOptions(snapshot=(str(path),)), refresh=None), clock=lambda: DEMO_NOW)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = app.snapshot
        await settle(pilot, "r")
        assert len(reads) == 1
        assert app.snapshot is not None and app.snapshot.reused and app.snapshot.state is first.state  # type: ignore[union-attr]
        path.write_bytes(path.read_bytes().replace(b'"gpu-inference"', b'"gpu-inference"', 1) + b"\n")
        await settle(pilot, "r")
        assert len(reads) == 2 and not app.snapshot.reused
