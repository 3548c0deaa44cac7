"""Property: `pending` never answers NO_BLOCKER_FOUND while a check of the nearest target is unknown or a
kind it depends on could not be read (issue 11, item 10)."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_gpu.core.analyses.pending import Verdict, analyse_pending
from kubectl_gpu.core.k8s.state import Note
from tests.core.analyses.pending._scenarios import NOW, catalog, find, items, state_of

_UNKNOWN_KEYS = ("eks.amazonaws.com/instance-hypervisor", "eks.amazonaws.com/instance-cpu-manufacturer")
_FORBIDDABLE = ("nodepools", "nodeclaims", "events", "nodes")


@st.composite
def clusters(draw: st.DrawFn) -> Any:
    objects = items("automode-gpu")
    if draw(st.booleans()):
        objects = [o for o in objects if o["kind"] != "NodeClass"]
    reqs = find(objects, "NodePool", "gpu")["spec"]["template"]["spec"]["requirements"]
    for key in draw(st.lists(st.sampled_from(_UNKNOWN_KEYS), unique=True)):
        reqs.append({"key": key, "operator": "Exists"})
    gpus = draw(st.integers(min_value=1, max_value=4))
    objects.append(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p", "namespace": "t", "uid": "uid-p"},
            "spec": {
                "tolerations": [{"operator": "Exists"}],
                "containers": [
                    {"name": "m", "image": "x", "resources": {"requests": {"nvidia.com/gpu": str(gpus)}}}
                ],
            },
            "status": {"phase": "Pending"},
        }
    )
    forbidden = draw(st.lists(st.sampled_from(_FORBIDDABLE), unique=True))
    state = state_of(o for o in objects if o["kind"].lower() + "s" not in forbidden)
    notes = tuple(Note("FORBIDDEN", f"forbidden to list {k}", k) for k in forbidden)
    return dataclasses.replace(state, notes=notes), frozenset(forbidden)


@settings(max_examples=60, deadline=None)
@given(clusters())
def test_no_blocker_found_only_when_every_check_passed(cluster: Any) -> None:
    state, forbidden = cluster
    for diag in analyse_pending(state, catalog(), NOW).pods:
        if diag.verdict is not Verdict.NO_BLOCKER_FOUND:
            continue
        nearest = next(e for e in diag.evaluations if e.target == diag.nearest)
        assert all(c.ok is True for c in nearest.checks), (diag.key, nearest.checks)
        assert not forbidden & {"nodepools", "nodeclaims", "nodes"}, (diag.key, forbidden)
