"""`:ns NAME` for a namespace that does not exist says so (issue 36): an error notification, `not found` in
the header and every view's title, the Pending table's own words, never `Pending 0` as if all were fine;
a name that cannot be a namespace is refused in kubectl's words before anything is read. On the demo
snapshot and against the suite's API server (200, 404, 403)."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from kubectl_gpu.tui.app import GpuApp
from kubectl_gpu.tui.widgets.header import ClusterHeader
from tests.tui.conftest import Live, demo_app, settle

SIZE = (120, 40)
#: apimachinery's words for a name that is no DNS-1123 label (what `kubectl -n A_b` gets back)
KUBECTL_WORDS = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'"


def _ns(*name: str) -> tuple[str, ...]:
    return ("colon", *"ns ", *" ".join(name), "enter")


def _header(app: GpuApp) -> str:
    return app.query_one(ClusterHeader).plain


def _title(app: GpuApp) -> str:
    return str(app.view.query_one(".view-title", Static).render())


def _errors(app: GpuApp) -> list[str]:
    return [text for severity, _, text in app.notices if severity == "error"]


async def _missing_is_said(app: GpuApp, pilot: Any, where: str) -> None:
    await settle(pilot, "p", *_ns("nosuch"))
    assert app.config.namespace == "nosuch"
    header = _header(app)
    assert "ns nosuch" in header and "Pending ? (ns not found)" in header
    assert "Pending 0" not in header
    assert _title(app) == "Pending  ns nosuch: not found"  # no count of 0, as if all were fine
    assert app.view.grid.table.empty.startswith('Namespace "nosuch" not found')
    assert _errors(app) == [
        f'namespace "nosuch" not found {where}: no pod to show\n:ns all shows every namespace'
    ]
    await settle(pilot, "n")  # every view says it
    assert "ns nosuch: not found" in _title(app)
    await settle(pilot, "r")  # a refresh does not say it again
    assert len(_errors(app)) == 1
    await settle(pilot, *_ns("all"))
    assert "not found" not in _header(app) and "not found" not in _title(app)


async def test_a_missing_namespace_is_said_on_a_snapshot() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await _missing_is_said(app, pilot, "in this snapshot")


async def test_a_namespace_that_exists_says_nothing() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "p", *_ns("ml"))
        assert app.config.namespace == "ml" and _errors(app) == []
        assert "not found" not in _header(app) and "Pending 4" in _header(app)


async def test_an_invalid_name_is_refused_in_kubectls_words() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        generation = app.generation
        await settle(pilot, *_ns("A_b"))
        assert app.config.namespace is None and app.generation == generation  # nothing read
        (error,) = _errors(app)
        assert error.startswith('invalid namespace "A_b": [' + KUBECTL_WORDS)
        await settle(pilot, *_ns("a" * 64))
        assert "must be no more than 63 characters" in _errors(app)[-1]


async def test_live_missing_and_existing(live: Live) -> None:
    live.api.add({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml"}})
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await _missing_is_said(app, pilot, "in this cluster")
        await settle(pilot, *_ns("ml"))
        assert "not found" not in _header(app) and len(_errors(app)) == 1
    asked = [r.path for r in live.api.requests if r.path.startswith("/api/v1/namespaces/")]
    assert "/api/v1/namespaces/nosuch" in asked and "/api/v1/namespaces/ml" in asked


async def test_live_a_namespace_with_pods_read_is_never_not_found(live: Live) -> None:
    """The suite's API server holds the demo's pods in `serving` but no Namespace object (a real one never
    does): the pods read are proof enough, whatever the 404."""
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "p", *_ns("serving"))
        assert app.config.namespace == "serving" and _errors(app) == []
        assert "not found" not in _header(app) and "not found" not in _title(app)
    assert "/api/v1/namespaces/serving" in [r.path for r in live.api.requests]


async def test_live_forbidden_is_a_warning_not_not_found(live: Live) -> None:
    live.api.fault(path=r"^/api/v1/namespaces/ml$", status=403)
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "p", *_ns("ml"))
        assert app.config.namespace == "ml" and _errors(app) == []
        warnings = [text for severity, _, text in app.notices if severity == "warning"]
        assert any(text.startswith('could not check namespace "ml": 403') for text in warnings)
        assert "not found" not in _header(app) and "not found" not in _title(app)
