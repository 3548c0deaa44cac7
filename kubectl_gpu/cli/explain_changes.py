"""`kubectl gpu explain POD --with FILE`: the pod's answer on a copy of the cluster with the changes made, as
`simulate` makes them (the same files, patches and deletions: kube/change_files.py; the same refusals and
drift: `simulate.changed_cluster`). A note says which changes the answer was made with."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.changes import Applied, Change, ChangeError
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.state import ClusterState, Note

__all__ = ["CHANGED_NOTE", "ChangedExplain"]

#: the note code of an answer made on a changed copy of the cluster (docs/codes.md)
CHANGED_NOTE = "CHANGED"


def _replacement(changed: ClusterState, applied: Sequence[Applied], pod: Pod) -> tuple[Pod, str | None]:
    """The pod in the changed cluster: itself, or the first pod a change made in its place (a workload
    whose template changed gets new replicas)."""
    same = next((p for p in changed.pods if p.namespace == pod.namespace and p.name == pod.name), None)
    if same is not None:
        return same, None
    for item in applied:
        if pod.name in item.pods_removed and item.pods_added:
            ns = item.change.namespace or pod.namespace
            made = next((p for p in changed.pods if p.namespace == ns and p.name in item.pods_added), None)
            if made is not None:
                said = f"pod {pod.namespace}/{pod.name} is replaced by {item.change.ref}"
                return made, f"{said}: its new replica {made.name} is explained"
    by = next((a.change.ref for a in applied if pod.name in a.pods_removed), "the changes")
    raise ChangeError(f"pod {pod.namespace}/{pod.name} is deleted by {by}", "nothing is left to explain")


class ChangedExplain:
    """The explain analysis on the changed copy, and its note."""

    def __init__(self, changes: Sequence[Change], pod: Pod) -> None:
        self.changes = changes
        self.pod = pod
        self.words: list[str] = []

    def analyse(self, state: ClusterState, catalog: Catalog, now: datetime) -> Any:
        from kubectl_gpu.core.analyses import pending
        from kubectl_gpu.core.analyses.simulate import changed_cluster

        changed, applied = changed_cluster(state, self.changes, now)
        pod, replaced = _replacement(changed, applied, self.pod)
        made = ", ".join(f"{a.change.ref} {a.change.action}" for a in applied)
        self.words = [f"answered on a copy of the cluster with {len(applied)} change(s): {made}"]
        if replaced:
            self.words.append(replaced)
        return pending.explain(changed, catalog, now, pod)

    def notes(self, report: Any) -> list[Note]:
        return [Note(CHANGED_NOTE, text) for text in self.words]
