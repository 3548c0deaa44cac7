"""ClusterState's shared indexes: what analyses look up per pod or node, built once."""

from __future__ import annotations

from kubectl_gpu.core.accelerators.nodes import all_node_rows, build_node_row, node_rows
from kubectl_gpu.core.catalog import load_catalog
from tests.core.analyses.pending._scenarios import find, items, state_of


def test_launching_nodeclaims_by_pool_leave_out_initialized_claims() -> None:
    objects = items("automode-capacity")
    state = state_of(objects)
    launching = state.launching_nodeclaims_by_pool
    assert [c.name for c in launching["neuron"]] == ["neuron-x9p2m"]
    assert state.nodeclaim_by_name["neuron-x9p2m"].node_pool == "neuron"
    for claims in launching.values():
        for claim in claims:
            ready = claim.condition("Initialized")
            assert not (ready and ready.is_true)
    find(objects, "NodeClaim", "neuron-x9p2m")["status"]["conditions"] = [
        {"type": "Initialized", "status": "True"}
    ]
    assert "neuron" not in state_of(objects).launching_nodeclaims_by_pool


def test_node_rows_are_built_once_per_state_and_catalog() -> None:
    state = state_of(items("automode-capacity"))
    catalog = load_catalog()
    first = all_node_rows(state, catalog)
    assert all_node_rows(state, catalog) is first  # diagnose's analyses share one build
    assert first == tuple(build_node_row(n, state, catalog) for n in state.nodes)
    assert {r.name for r in node_rows(state, catalog)} <= {r.name for r in first}
    assert state.memo("k", lambda: [1]) is state.memo("k", lambda: [2])


def test_an_objects_events_are_oldest_first_untimed_last() -> None:
    """Each object's events oldest first, those without a time last, ties in the input's order (a stable sort
    by (no time, time) of its own events), sorted once; `events_by_object` keeps the input's order."""
    times = ["2026-11-28T08:00:00Z", "2026-11-28T07:00:00Z", None, "2026-11-28T07:00:00Z", None]
    objects = []
    for n in range(40):
        when = times[n % len(times)]
        event: dict[str, object] = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"e{n}", "namespace": "ml"},
            "involvedObject": {"kind": "Pod", "namespace": "ml", "name": f"p{n % 3}"},
            "reason": "FailedScheduling",
            "message": f"message {n}",
        }
        if when is not None:
            event["lastTimestamp"] = when
        objects.append(event)
    state = state_of(objects)
    for pod in ("p0", "p1", "p2"):
        own = [e for e in state.events if e.involved.name == pod]
        expected = sorted(own, key=lambda e: (e.last_seen is None, e.last_seen))
        assert [e.meta.name for e in state.events_for("Pod", pod, "ml")] == [e.meta.name for e in expected]
        assert len(expected) > 10
        assert state.events_for("Pod", pod, "ml") is state.events_for("Pod", pod, "ml")
        assert state.events_by_object[("Pod", "ml", pod)] == own
    assert state.events_for("Pod", "p3", "ml") == []
