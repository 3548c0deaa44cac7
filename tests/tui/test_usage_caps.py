"""What the TUI reads on its own (issue 36, item 2; tui/usage_window.py): its rolling window keeps a bounded
amount of /metrics text whatever the pods answer, its reader believes DCGM exporters as `usage` does (the
config file's usage.exporterNamespaces), and a bad value there is said, not fatal. The reads' own caps
(time, bytes, reads in flight) are tested against the suite's API server in
tests/kube/test_usage_hostile_reads.py (the TUI's `RoundReader`)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from kubectl_gpu.core.usage.scrape import Scrape
from kubectl_gpu.kube.source import LiveClusterSource, SourceOptions
from kubectl_gpu.tui import usage_window
from kubectl_gpu.tui.usage_window import roll
from tests.tui.conftest import DEMO_NOW, Live


def _round(minute: int, size: int) -> tuple[Scrape, ...]:
    return (Scrape("dcgm", "monitoring", "dcgm-a", DEMO_NOW + timedelta(minutes=minute), text="x" * size),)


def test_the_rolling_window_is_bounded_by_the_bytes_of_its_texts() -> None:
    kept: tuple[tuple[Scrape, ...], ...] = ()
    for minute in range(10):
        kept = roll(kept, _round(minute, 1000), max_bytes=3500)
    assert [r[0].taken_at.minute for r in kept] == [7, 8, 9]  # the newest rounds that fit
    kept = roll(kept, _round(10, 5000), max_bytes=3500)
    assert [r[0].taken_at.minute for r in kept] == [10]  # the newest round is kept whatever its size
    assert sum(len(s.text or "") for r in kept for s in r) == 5000


def _config(text: str) -> None:
    import os

    home = Path(os.environ["XDG_CONFIG_HOME"]) / "kubectl-gpu"
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(text)


def _window(live: Live) -> usage_window.UsageWindow:
    source = LiveClusterSource(SourceOptions(kubeconfig=str(live.kubeconfig), context="test"))
    state = source.load(["pods", "nodes"])
    return usage_window.start(None, source, state).window()


def test_the_tui_believes_the_config_files_exporter_namespaces(live: Live) -> None:
    _config("usage:\n  exporterNamespaces: [monitoring]\n")
    window = _window(live)
    assert window.exporter_namespaces == ("monitoring",) and window.config_note is None
    assert window.reader is not None and window.reader.exporter_namespaces == ("monitoring",)


def test_a_bad_config_value_is_said_and_ignored(live: Live) -> None:
    _config("usage:\n  exporterNamespaces: [Not_A_Namespace]\n")
    window = _window(live)
    assert window.exporter_namespaces == ()
    assert (
        window.config_note is not None
        and "'Not_A_Namespace' is not a namespace name: ignored" in window.config_note
    )
    assert window.config_note in window.scrape_set().notes
