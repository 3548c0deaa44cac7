"""A source that keeps manifests (the TUI, `explain`) answers `pending` as one that keeps none, and its fix
checks read none of them: a large List's objects are read whole only when a front end shows one, and the
first such read finds where every item lies (a sixth of a parse), so a check that read one would cost the
TUI's first screen that much more than `diagnose`."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from kubectl_gpu.core.analyses.pending import Verdict, analyse_pending
from kubectl_gpu.core.k8s.manifests import Manifests
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.kube.snapshot import load_snapshot
from tests.core.analyses.pending._scenarios import catalog
from tests.core.analyses.pending.test_shapes import DEMO, DEMO_NOW


def _kept_for_later(state: ClusterState, reads: list[tuple[str, str | None, str]]) -> ClusterState:
    """The state with each manifest kept as a large List's are: read on first use, each read counted."""
    later = Manifests()

    def reader(key: tuple[str, str | None, str], obj: Mapping[str, Any]) -> Callable[[], Mapping[str, Any]]:
        def read() -> Mapping[str, Any]:
            reads.append(key)
            return obj

        return read

    for key, obj in state.manifests.items():
        later.keep_later(key, reader(key, obj))
    return dataclasses.replace(state, manifests=later, _memo={})


def test_fix_checks_read_no_kept_manifest_and_answer_as_without_them() -> None:
    reads: list[tuple[str, str | None, str]] = []
    kept = _kept_for_later(load_snapshot([DEMO], keep_manifests=True), reads)
    assert len(kept.manifests) > 20
    answer = analyse_pending(kept, catalog(), DEMO_NOW)
    assert reads == []
    assert answer.to_dict() == analyse_pending(load_snapshot([DEMO]), catalog(), DEMO_NOW).to_dict()
    checked = {d.verdict: d.decision.fix_check for d in answer.pods if d.decision.fix_check is not None}
    # a pod's tolerations, a pod's selector and a NodePool's limits, each changed and verified
    for verdict in (Verdict.MISSING_TOLERATION, Verdict.UNKNOWN_LABEL, Verdict.NODEPOOL_LIMIT_REACHED):
        assert checked[verdict].verified is True, verdict


def test_a_patch_the_model_cannot_take_still_reads_the_manifest() -> None:
    """`simulate`'s engine falls back to the object as read (here: a NodePool's weight)."""
    from kubectl_gpu.core.changes import Change, changed_objects

    reads: list[tuple[str, str | None, str]] = []
    kept = _kept_for_later(load_snapshot([DEMO], keep_manifests=True), reads)
    change = Change("patch", "NodePool", "gpu-training", body={"spec": {"weight": 5}}, patch_type="merge")
    assert changed_objects(kept, (change,))[0].model.weight == 5
    assert reads == [("NodePool", None, "gpu-training")]
