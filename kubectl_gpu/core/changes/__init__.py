"""Changes applied to a captured cluster in memory (`kubectl gpu simulate`): full objects to add or replace,
patches (kubectl's strategic, merge and json types) and deletions, giving a new frozen `ClusterState`.

Pure: the files are read by the adapters (`kube/change_files.py`); this package never touches the cluster.
"""

from kubectl_gpu.core.changes.apply import Applied, apply_changes, changed_objects
from kubectl_gpu.core.changes.model import (
    KINDS,
    Change,
    ChangeError,
    PatchType,
    change_kind,
)
from kubectl_gpu.core.changes.model import (
    NAMESPACED as NAMESPACED_KINDS,
)
from kubectl_gpu.core.changes.patches import json_merge, json_patch, strategic_merge

__all__ = [
    "KINDS",
    "NAMESPACED_KINDS",
    "Applied",
    "Change",
    "ChangeError",
    "PatchType",
    "apply_changes",
    "change_kind",
    "changed_objects",
    "json_merge",
    "json_patch",
    "strategic_merge",
]
