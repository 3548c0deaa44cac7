"""The one place that knows the JSON shape of each Kubernetes kind: dict in, frozen model out.

Live and snapshot sources both hand us `kubectl get -o json`-shaped dicts, so both go through here and
behave identically. Unknown kinds give None (the caller counts them); a known kind with a broken required
field raises `ModelError` naming the object and the field.

One module per family of kinds (`pods`, `nodes`, `events`, `karpenter`) over the shared field readers in
`common`; this package's namespace is the API.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kubectl_gpu.core.k8s.models import (
    DaemonSet,
    Event,
    LegacyKarpenterObject,
    Node,
    NodeClaim,
    NodeClass,
    NodeOverlay,
    NodePool,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    PodDisruptionBudget,
    Raw,
    ResourceSlice,
    StorageClass,
)
from kubectl_gpu.core.k8s.parse.common import ModelError
from kubectl_gpu.core.k8s.parse.events import parse_event
from kubectl_gpu.core.k8s.parse.karpenter import (
    nodeclass_parser,
    parse_legacy_karpenter,
    parse_nodeclaim,
    parse_nodepool,
)
from kubectl_gpu.core.k8s.parse.nodes import parse_node, parse_resourceslice
from kubectl_gpu.core.k8s.parse.pods_fast import parse_pod, parse_pod_kept
from kubectl_gpu.core.k8s.parse.policy import parse_pdb
from kubectl_gpu.core.k8s.parse.storage import (
    parse_daemonset,
    parse_nodeoverlay,
    parse_pv,
    parse_pvc,
    parse_storageclass,
)

Model = (
    Node
    | Pod
    | Event
    | NodePool
    | NodeClaim
    | NodeClass
    | ResourceSlice
    | PersistentVolumeClaim
    | PersistentVolume
    | StorageClass
    | DaemonSet
    | PodDisruptionBudget
    | NodeOverlay
    | LegacyKarpenterObject
)

__all__ = [
    "KEPT_KINDS",
    "KINDS",
    "Model",
    "ModelError",
    "kind_of",
    "parse_event",
    "parse_node",
    "parse_nodeclaim",
    "parse_nodepool",
    "parse_object",
    "parse_objects",
    "parse_pod",
    "parse_resourceslice",
]

# (API group, kind) -> parser. The version is not part of the key: v1beta1 and v1 shapes differ only in
# fields we read defensively.
KINDS: dict[tuple[str, str], Callable[[Raw], Model]] = {
    ("", "Node"): parse_node,
    ("", "Pod"): parse_pod,
    ("", "Event"): parse_event,
    ("events.k8s.io", "Event"): parse_event,
    ("karpenter.sh", "NodePool"): parse_nodepool,
    ("karpenter.sh", "NodeClaim"): parse_nodeclaim,
    ("eks.amazonaws.com", "NodeClass"): nodeclass_parser("NodeClass", "eks.amazonaws.com"),
    ("karpenter.k8s.aws", "EC2NodeClass"): nodeclass_parser("EC2NodeClass", "karpenter.k8s.aws"),
    ("resource.k8s.io", "ResourceSlice"): parse_resourceslice,
    ("", "PersistentVolumeClaim"): parse_pvc,
    ("", "PersistentVolume"): parse_pv,
    ("storage.k8s.io", "StorageClass"): parse_storageclass,
    ("apps", "DaemonSet"): parse_daemonset,
    ("policy", "PodDisruptionBudget"): parse_pdb,
    ("karpenter.sh", "NodeOverlay"): parse_nodeoverlay,
    # Karpenter before v0.32 (v1alpha5, removed in v1.0): recognised, not analysed.
    ("karpenter.sh", "Provisioner"): parse_legacy_karpenter,
    ("karpenter.sh", "Machine"): parse_legacy_karpenter,
    ("karpenter.k8s.aws", "AWSNodeTemplate"): parse_legacy_karpenter,
}


#: `KINDS` for objects the caller holds whole anyway (a one-shot command keeps a file read whole until it
#: exits): a pod then reads its details from the object itself instead of a cut-down copy of its parts.
KEPT_KINDS: dict[tuple[str, str], Callable[[Raw], Model]] = {**KINDS, ("", "Pod"): parse_pod_kept}


def kind_of(obj: Raw) -> tuple[str, str]:
    """(API group, kind) of an object dict; group "" for the core API."""
    api_version = obj.get("apiVersion")
    group = api_version.rpartition("/")[0] if isinstance(api_version, str) else ""
    return group, str(obj.get("kind", ""))


def parse_object(obj: Raw) -> Model | None:
    """Parse one object; None for kinds this tool does not analyse."""
    parser = KINDS.get(kind_of(obj))
    return parser(obj) if parser is not None else None


def parse_objects(objs: Iterable[Raw]) -> tuple[list[Model], int]:
    """Parse many objects; returns the models and how many were of kinds we skip."""
    models: list[Model] = []
    skipped = 0
    for obj in objs:
        model = parse_object(obj)
        if model is None:
            skipped += 1
        else:
            models.append(model)
    return models, skipped
