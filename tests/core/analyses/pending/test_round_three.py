"""Issue 20 (diagnosis fidelity, round three), one section per cause, each case translated from the upstream
test it follows and citing it.

Karpenter: kubernetes-sigs/karpenter at 226646810 (pkg/controllers/provisioning/scheduling/suite_test.go,
topology_test.go, instance_selection_test.go, pkg/controllers/provisioning/suite_test.go) and the code they
test (scheduler.go, existingnode.go, nodeclaim.go, preferences.go, provisioner.go).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from kubectl_gpu.core.analyses.pending import Verdict as V
from kubectl_gpu.core.analyses.pending import analyse_pending
from kubectl_gpu.core.k8s.state import Note
from tests.core.analyses.pending._scenarios import NOW, catalog, diagnosis, items, state_of

# ---- 9. unknown shown as unknown ------------------------------------------------------------------------


def _with_notes(objects: list[dict[str, Any]], *notes: Note) -> Any:
    return dataclasses.replace(state_of(objects), notes=notes)


def test_free_accelerators_on_a_node_are_unknown_when_pods_were_read_in_part() -> None:
    """With pods readable in one namespace only, what the others request is unknown: a node that looks free
    is not verified (UNVERIFIED, the check `?`), while a shortage among the pods read is still a fact."""
    objects = items("no-karpenter")
    partial = Note("PARTIAL", "forbidden to list pods cluster-wide: counting namespace notebooks", "pods")
    before = analyse_pending(state_of(objects), catalog(), NOW)
    after = analyse_pending(_with_notes(objects, partial), catalog(), NOW)
    assert diagnosis(before, "notebooks/notebook-d").verdict is V.NO_BLOCKER_FOUND
    diag = diagnosis(after, "notebooks/notebook-d")
    assert diag.verdict is V.UNVERIFIED, diag.reason
    assert "free accelerators: free unknown" in diag.reason
    # A shortage among the pods read stays a shortage: more pods can only take more.
    assert diagnosis(after, "training/pretrain-1").verdict is V.INSUFFICIENT_ACCELERATOR
