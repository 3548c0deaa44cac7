"""What the parsers read of each kind, as types a JSON decoder builds directly (msgspec).

A pod as `kubectl get -o json` prints it is ~5 KB, and the parsers read under half of it: volume mounts,
probes, commands, security contexts, projected volumes, pod conditions, resourceVersion ... are never looked
at, nor are a node's images and addresses. Decoding a List through `LIST` builds only the parts named here
(everything else is skipped by the decoder, never turned into Python objects), so the tree is smaller and
faster to build than the whole-file parse, and each object reads exactly as it would whole: the parsers see
the same values under the same keys, and an absent key stays absent.

The rule each type below keeps: a field a parser reads is named with its type `Any` (kept whole), unless the
parser reads only some keys of the objects under it; then those are named in a `TypedDict` of their own. The
parts of a pod's scheduling template (`POD_TEXT_FIELDS`, `CONTAINER_TEXT_FIELDS`: tolerations, affinity,
requests ...) are kept whole as their text (`msgspec.Raw`): replicas share them, so the pod parser keys its
template by that text and reads it once per distinct text (`pods_fast.loaded_spec`), instead of the decoder
building the same lists and dicts for every replica and the parser writing them back to text for the key. A
NodeClaim's spec, labels, capacity, allocatable and conditions are kept as text the same way (a NodePool's
claims share them: `fast.memo_text`, `fast.memo_labels`). A part kept as text is read by `read_text`, as orjson reads it; a number the decoder
let through as text and orjson refuses (`1e400`) raises `UnreadText`, and the file is read whole. A
value that does not fit (a `spec` that is not an object, a container that is a string, a kind not listed)
makes the decode fail, and the caller parses the file whole as before, so every error reads as it did.
tests/core/k8s/test_fields.py holds the parsers to these lists: on every real fixture each object parses the
same either way, and every key the checked parsers look up is one kept here. The one value the two decoders
read differently: an integer beyond 64 bits, an int here and a float in orjson's whole parse (no Kubernetes
field can hold one; the API server refuses it).

The annotations here are not postponed (no `from __future__ import annotations`): TypedDict and msgspec
would otherwise compile each one's text at start-up, some 70 of them, for every command that reads a List.
"""

from collections.abc import Callable
from functools import reduce
from keyword import iskeyword
from operator import or_
from typing import Any, TypedDict

import msgspec
import orjson

__all__ = [
    "CONTAINER_TEXT_FIELDS",
    "LIST",
    "POD_TEXT_FIELDS",
    "SKIPPED_KINDS",
    "Text",
    "UnreadText",
    "as_dict",
    "as_dicts",
    "read_text",
]


class _Owner(TypedDict, total=False):
    """What `common.meta` and `fast.fast_meta` read of an owner (the first): not its apiVersion, uid or flags."""

    kind: Any
    name: Any


class _Meta(TypedDict, total=False):
    """`common.meta` and `fast.fast_meta`: not resourceVersion, generateName, finalizers, managedFields."""

    name: Any
    namespace: Any
    uid: Any
    labels: Any
    annotations: Any
    creationTimestamp: Any
    ownerReferences: list[_Owner] | None
    deletionTimestamp: Any


#: A part of an object kept as its JSON text: `msgspec.Raw`, read by `read_text`.
Text = msgspec.Raw

#: A pod spec's and a container's fields kept as their text (the module's docstring).
POD_TEXT_FIELDS = ("tolerations", "affinity", "overhead", "topologySpreadConstraints")
CONTAINER_TEXT_FIELDS = ("resources", "ports")


class _Container(TypedDict, total=False):
    """What the template key, `effective`, `SlimDetails` and the host ports read of a container (app or init):
    not command, args, volumeMounts, probes, securityContext, lifecycle."""

    name: Any
    image: Any
    env: Any
    ports: msgspec.Raw
    resources: msgspec.Raw
    restartPolicy: Any


class _Volume(TypedDict, total=False):
    """What the claims read of a volume: not the projected, configMap or hostPath sources."""

    name: Any
    persistentVolumeClaim: Any
    ephemeral: Any


class _PodSpec(TypedDict, total=False):
    containers: list[_Container] | None
    initContainers: list[_Container] | None
    volumes: list[_Volume] | None
    tolerations: msgspec.Raw
    nodeSelector: Any
    affinity: msgspec.Raw
    overhead: msgspec.Raw
    topologySpreadConstraints: msgspec.Raw
    priority: Any
    terminationGracePeriodSeconds: Any
    resourceClaims: Any
    schedulingGates: Any
    nodeName: Any
    schedulerName: Any
    # `pods.selectable`: the server's selectable fields (--field-selector)
    restartPolicy: Any
    serviceAccountName: Any
    serviceAccount: Any
    hostNetwork: Any


class _ContainerStatus(TypedDict, total=False):
    """`pods._container_state`: not imageID, containerID, started, volumeMounts."""

    name: Any
    ready: Any
    restartCount: Any
    state: Any


class _PodStatus(TypedDict, total=False):
    """Not conditions, hostIP(s) or qosClass; the pod's IPs for --field-selector (`pods.selectable`)."""

    phase: Any
    nominatedNodeName: Any
    podIP: Any
    podIPs: Any
    startTime: Any
    containerStatuses: list[_ContainerStatus] | None
    initContainerStatuses: list[_ContainerStatus] | None


class _NodeStatus(TypedDict, total=False):
    """`nodes.parse_node`: not images, addresses, daemonEndpoints, volumesInUse, features, runtimeHandlers."""

    capacity: Any
    allocatable: Any
    conditions: Any
    nodeInfo: Any


class _ClaimStatus(TypedDict, total=False):
    """`karpenter.parse_nodeclaim`: the capacity, allocatable and conditions as their text (the claims of
    one instance type share the first two)."""

    nodeName: Any
    providerID: Any
    imageID: Any
    capacity: msgspec.Raw
    allocatable: msgspec.Raw
    conditions: msgspec.Raw
    lastPodEventTime: Any


# Each kind's struct: its tag is the object's `kind`, its fields what the kind's parsers read at the top.
# `UNSET` stands for an absent key, so that `as_dict` leaves it absent.
_U: Any = msgspec.UNSET


class Pod(msgspec.Struct, tag="Pod", tag_field="kind"):
    apiVersion: Any = _U
    metadata: _Meta | None = _U
    spec: _PodSpec | None = _U
    status: _PodStatus | None = _U


class Node(msgspec.Struct, tag="Node", tag_field="kind"):
    apiVersion: Any = _U
    metadata: _Meta | None = _U
    spec: Any = _U
    status: _NodeStatus | None = _U


class _ClaimMeta(_Meta, total=False):
    """A claim's labels as their text: the claims of a NodePool launched on one instance type in one zone
    carry the same ~25 (1,705 sets for 10,000 claims on bench's `nodeclaims`), read once per text."""

    labels: msgspec.Raw


class NodeClaim(msgspec.Struct, tag="NodeClaim", tag_field="kind"):
    """A NodePool's claims share their spec (but the instance type's requirements) and conditions (their times
    too, where launched together): the spec is kept whole as its text, and the parser reads each distinct
    text once, as it does the conditions'."""

    apiVersion: Any = _U
    metadata: _ClaimMeta | None = _U
    spec: msgspec.Raw = _U
    status: _ClaimStatus | None = _U


class _Involved(TypedDict, total=False):
    """`events.parse_event`: not apiVersion, resourceVersion, fieldPath."""

    kind: Any
    namespace: Any
    name: Any
    uid: Any


class Event(msgspec.Struct, tag="Event", tag_field="kind"):
    """Both APIs' fields: core/v1 and events.k8s.io/v1 Events share the kind."""

    apiVersion: Any = _U
    metadata: _Meta | None = _U
    involvedObject: _Involved | None = _U
    regarding: _Involved | None = _U
    source: Any = _U
    series: Any = _U
    reportingComponent: Any = _U
    reportingController: Any = _U
    count: Any = _U
    type: Any = _U
    reason: Any = _U
    message: Any = _U
    note: Any = _U
    firstTimestamp: Any = _U
    lastTimestamp: Any = _U
    eventTime: Any = _U


_OBJECT_FIELDS = ("apiVersion", "metadata", "spec", "status")
#: StorageClass keeps its settings at the top, not under a spec.
_STORAGE_CLASS_FIELDS = (
    "apiVersion",
    "metadata",
    "provisioner",
    "parameters",
    "reclaimPolicy",
    "allowVolumeExpansion",
    "mountOptions",
    "volumeBindingMode",
    "allowedTopologies",
)


def _whole(kind: str, names: tuple[str, ...] = _OBJECT_FIELDS) -> type[msgspec.Struct]:
    """A kind read whole (these objects are few, and a NodePool's lint looks at every field it has): each
    field kept as it is, and a key not named makes the decode fail (so the input is read whole instead)."""
    fields = [(name, Any, _U) for name in names]
    return msgspec.defstruct(kind, fields, tag=kind, tag_field="kind", forbid_unknown_fields=True)


def _skipped(kind: str) -> type[msgspec.Struct]:
    """A kind no parser reads in any API group: only what names it, for the count of skipped kinds."""
    return msgspec.defstruct(kind, [("apiVersion", Any, _U)], tag=kind, tag_field="kind")


#: Kinds often in the same `kubectl get ... -o json` output (`kubectl get all`, a namespace's objects) that
#: nothing here parses: listed so that such a List still decodes this way, each read as just its apiVersion.
SKIPPED_KINDS = (
    "ConfigMap",
    "ControllerRevision",
    "CronJob",
    "Deployment",
    "Endpoints",
    "EndpointSlice",
    "HorizontalPodAutoscaler",
    "Ingress",
    "Job",
    "Lease",
    "Namespace",
    "ReplicaSet",
    "ReplicationController",
    "Secret",
    "Service",
    "ServiceAccount",
    "StatefulSet",
)

_WHOLE = (
    "NodePool",
    "NodeClass",
    "EC2NodeClass",
    "ResourceSlice",
    "PersistentVolumeClaim",
    "PersistentVolume",
    "DaemonSet",
    "PodDisruptionBudget",
    "NodeOverlay",
    "Provisioner",
    "Machine",
    "AWSNodeTemplate",
)

_KINDS: tuple[type[msgspec.Struct], ...] = (
    Pod,
    Node,
    NodeClaim,
    Event,
    _whole("StorageClass", _STORAGE_CLASS_FIELDS),
    *(_whole(kind) for kind in _WHOLE),
    *(_skipped(kind) for kind in SKIPPED_KINDS),
)


#: A List whose every item is of a kind above: what `kubectl get a,b,c -o json` prints (`kind: List`).
#: The decoder's type for a whole List (`msgspec.json.Decoder(LIST)`); `kind` is checked by the caller.
LIST: Any = msgspec.defstruct(
    "ListOfKinds",
    [("items", list[reduce(or_, _KINDS)] | None, None), ("kind", Any, None)],  # type: ignore[misc]
)


def _converter(struct: type[msgspec.Struct]) -> Callable[[Any], dict[str, Any]]:
    """`as_dict` for one kind's struct: straight-line code reading each field by name (a loop of `getattr`
    over the fields took 1.5x as long: 22,500 objects a 1,000-node List)."""
    lines = ["def convert(item):", f"    out = {{'kind': {struct.__struct_config__.tag!r}}}"]
    for name in struct.__struct_fields__:
        if not name.isidentifier() or iskeyword(name):
            raise TypeError(f"{struct.__name__}.{name}: not a field name")
        lines += [f"    value = item.{name}", "    if value is not _U:", f"        out[{name!r}] = value"]
    namespace: dict[str, Any] = {"_U": _U}
    exec("\n".join([*lines, "    return out"]), namespace)  # the code of the kinds' own fields
    convert: Callable[[Any], dict[str, Any]] = namespace["convert"]
    return convert


class _Converters(dict[type[msgspec.Struct], Callable[[Any], dict[str, Any]]]):
    """Each kind's converter, written the first time an object of that kind is read: a List holds a few of the
    ~30 kinds, and writing them all cost every command a few milliseconds at start-up."""

    def __missing__(self, struct: type[msgspec.Struct]) -> Callable[[Any], dict[str, Any]]:
        convert = self[struct] = _converter(struct)
        return convert


_CONVERT = _Converters()


def as_dict(item: msgspec.Struct) -> dict[str, Any]:
    """The object as the parsers read it: `kind` and the fields that were there, as plain dicts."""
    return _CONVERT[type(item)](item)


def as_dicts(items: list[msgspec.Struct]) -> list[dict[str, Any]]:
    """`as_dict` of each item of a List, in order."""
    convert = _CONVERT
    return [convert[type(item)](item) for item in items]


class UnreadText(Exception):
    """A part kept as text that does not read as the whole parse reads it: the decoder takes a number out of
    a double's range (`1e400`) as text, where orjson refuses the file. The caller then reads the file whole
    (`kube/snapshot.py`), which refuses it in orjson's words, as it always did."""


def read_text(text: msgspec.Raw) -> Any:
    """A part kept as text, read as orjson reads it in the whole parse."""
    try:
        return orjson.loads(memoryview(text))
    except orjson.JSONDecodeError as exc:
        raise UnreadText(str(exc)) from None
