"""The resource types the fake API server knows: built-in ones and the CRDs a test may install.

Each entry carries what discovery advertises (verbs, short names, categories, subresources) and the field
labels the real API server accepts in a field selector for that kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.kube.selectors import FieldMap

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
META_FIELDS = ("metadata.name", "metadata.namespace")


@dataclass(frozen=True)
class Subresource:
    name: str
    kind: str
    verbs: tuple[str, ...]


@dataclass(frozen=True)
class ResourceType:
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    verbs: tuple[str, ...] = ALL_VERBS
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: tuple[Subresource, ...] = ()
    field_labels: tuple[str, ...] = META_FIELDS
    fields: FieldMap = field(default_factory=dict)  # label -> (JSON path, value when absent)
    crd: bool = False

    @property
    def key(self) -> str:
        """Store key and CRD name: `pods`, `nodepools.karpenter.sh`."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def singular(self) -> str:
        return self.kind.lower()

    def discovery(self) -> list[dict[str, object]]:
        """This resource and its subresources as `APIResourceList.resources` entries."""
        main: dict[str, object] = {
            "name": self.plural,
            "singularName": self.singular,
            "namespaced": self.namespaced,
            "kind": self.kind,
            "verbs": list(self.verbs),
        }
        if self.short_names:
            main["shortNames"] = list(self.short_names)
        if self.categories:
            main["categories"] = list(self.categories)
        subs: list[dict[str, object]] = [
            {
                "name": f"{self.plural}/{sub.name}",
                "singularName": "",
                "namespaced": self.namespaced,
                "kind": sub.kind,
                "verbs": list(sub.verbs),
            }
            for sub in self.subresources
        ]
        return [main, *subs]


def _status(kind: str) -> Subresource:
    return Subresource("status", kind, ("get", "patch", "update"))


POD_FIELDS = (
    *META_FIELDS,
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
)
EVENT_FIELDS = (
    *META_FIELDS,
    *(
        f"involvedObject.{f}"
        for f in ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")
    ),
    "reason",
    "reportingComponent",
    "source",
    "type",
)

BUILTIN: tuple[ResourceType, ...] = (
    ResourceType(
        "",
        "v1",
        "Node",
        "nodes",
        namespaced=False,
        short_names=("no",),
        subresources=(_status("Node"), Subresource("proxy", "NodeProxyOptions", ("create", "delete", "get"))),
        field_labels=(*META_FIELDS, "spec.unschedulable"),
        fields={"spec.unschedulable": ("spec.unschedulable", "false")},
    ),
    ResourceType(
        "",
        "v1",
        "Pod",
        "pods",
        namespaced=True,
        short_names=("po",),
        categories=("all",),
        subresources=(
            Subresource("attach", "PodAttachOptions", ("create", "get")),
            Subresource("ephemeralcontainers", "Pod", ("get", "patch", "update")),
            Subresource("exec", "PodExecOptions", ("create", "get")),
            Subresource("log", "Pod", ("get",)),
            Subresource("portforward", "PodPortForwardOptions", ("create", "get")),
            _status("Pod"),
        ),
        field_labels=POD_FIELDS,
    ),
    ResourceType(
        "",
        "v1",
        "Event",
        "events",
        namespaced=True,
        short_names=("ev",),
        field_labels=EVENT_FIELDS,
        fields={"source": ("source.component", "")},
    ),
    ResourceType(
        "",
        "v1",
        "Namespace",
        "namespaces",
        namespaced=False,
        short_names=("ns",),
        verbs=("create", "delete", "get", "list", "patch", "update", "watch"),
        subresources=(_status("Namespace"),),
        field_labels=(*META_FIELDS, "status.phase"),
    ),
    ResourceType(
        "authorization.k8s.io",
        "v1",
        "SelfSubjectAccessReview",
        "selfsubjectaccessreviews",
        namespaced=False,
        verbs=("create",),
    ),
    ResourceType(
        "resource.k8s.io",
        "v1",
        "ResourceSlice",
        "resourceslices",
        namespaced=False,
        field_labels=(*META_FIELDS, "spec.nodeName", "spec.driver"),
    ),
    ResourceType(
        "",
        "v1",
        "PersistentVolumeClaim",
        "persistentvolumeclaims",
        namespaced=True,
        short_names=("pvc",),
        subresources=(_status("PersistentVolumeClaim"),),
    ),
    ResourceType(
        "",
        "v1",
        "PersistentVolume",
        "persistentvolumes",
        namespaced=False,
        short_names=("pv",),
        subresources=(_status("PersistentVolume"),),
    ),
    ResourceType(
        "storage.k8s.io", "v1", "StorageClass", "storageclasses", namespaced=False, short_names=("sc",)
    ),
    ResourceType(
        "apps",
        "v1",
        "DaemonSet",
        "daemonsets",
        namespaced=True,
        short_names=("ds",),
        categories=("all",),
        subresources=(_status("DaemonSet"),),
    ),
    ResourceType(
        "policy",
        "v1",
        "PodDisruptionBudget",
        "poddisruptionbudgets",
        namespaced=True,
        short_names=("pdb",),
        subresources=(_status("PodDisruptionBudget"),),
    ),
    ResourceType(
        "resource.k8s.io",
        "v1",
        "ResourceClaim",
        "resourceclaims",
        namespaced=True,
        subresources=(_status("ResourceClaim"),),
    ),
)

CRDS: tuple[ResourceType, ...] = (
    ResourceType(
        "karpenter.sh",
        "v1",
        "NodePool",
        "nodepools",
        namespaced=False,
        categories=("karpenter",),
        subresources=(_status("NodePool"),),
        crd=True,
    ),
    ResourceType(
        "karpenter.sh",
        "v1",
        "NodeClaim",
        "nodeclaims",
        namespaced=False,
        categories=("karpenter",),
        subresources=(_status("NodeClaim"),),
        crd=True,
    ),
    ResourceType(
        "eks.amazonaws.com",
        "v1",
        "NodeClass",
        "nodeclasses",
        namespaced=False,
        subresources=(_status("NodeClass"),),
        crd=True,
    ),
    ResourceType(
        "karpenter.k8s.aws",
        "v1",
        "EC2NodeClass",
        "ec2nodeclasses",
        namespaced=False,
        short_names=("ec2nc", "ec2ncs"),
        categories=("karpenter",),
        subresources=(_status("EC2NodeClass"),),
        crd=True,
    ),
)

CRDS += (
    ResourceType(
        "karpenter.sh",
        "v1alpha1",
        "NodeOverlay",
        "nodeoverlays",
        namespaced=False,
        short_names=("overlays",),
        categories=("karpenter",),
        subresources=(_status("NodeOverlay"),),
        crd=True,
    ),
)

ALL: tuple[ResourceType, ...] = BUILTIN + CRDS
CRD_NAMES: frozenset[str] = frozenset(rt.key for rt in CRDS)


def by_kind(api_version: str, kind: str) -> ResourceType:
    """The resource type an object with this apiVersion and kind is stored under."""
    for rt in ALL:
        if rt.group_version == api_version and rt.kind == kind:
            return rt
    raise KeyError(f"no resource type for apiVersion={api_version!r} kind={kind!r}")


def by_name(name: str) -> ResourceType:
    """Resolve `pods`, `nodepools` or `nodepools.karpenter.sh`."""
    for rt in ALL:
        if name in (rt.key, rt.plural):
            return rt
    raise KeyError(f"unknown resource {name!r}")
