"""Where the pod's PersistentVolumeClaims let it run.

Karpenter `pkg/controllers/provisioning/scheduling/volumetopology.go`:
* `ValidatePersistentVolumeClaims`: a claim being deleted, `Lost`, bound without the
  `pv.kubernetes.io/bind-completed` annotation, unbound without a StorageClass, or unbound with an `Immediate`
  StorageClass makes Karpenter ignore the pod (kube-scheduler's VolumeBinding PreFilter rejects it too:
  "pod has unbound immediate PersistentVolumeClaims") -> `VOLUME_UNAVAILABLE`.
* `GetRequirements`: a bound claim requires its PersistentVolume's `nodeAffinity.required` terms (one
  alternative per term; `local`/`hostPath` volumes without their hostname requirement), an unbound one its
  StorageClass's `allowedTopologies`; the alternatives of several volumes are merged pairwise
  (`mergeVolumeRequirementAlternatives`) -> a NodePool none of whose alternatives fits: `VOLUME_TOPOLOGY_CONFLICT`.
kube-scheduler `volumebinding` Filter on an existing node: each bound PV's node affinity must match the node
(`CheckNodeAffinity`), each unbound WaitForFirstConsumer claim's StorageClass topology must allow it.
A claim, volume or class that does not exist makes Karpenter ignore the pod too (`GetPersistentVolumeClaim`,
`validateVolume`, the StorageClass `Get` in `ValidatePersistentVolumeClaims` fail) -> `VOLUME_UNAVAILABLE`, when
the data shows that its kind was read (other objects of the kind are there; issue 20, item 6). One not in the
data otherwise, or a kind that could not be read, leaves the check unknown.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.k8s.models import PersistentVolumeClaim, Raw
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.scheduling.requirements import Requirement, RequirementError, Requirements

__all__ = [
    "VolumeFacts",
    "node_volume_fix",
    "node_volume_problem",
    "pinned_fix",
    "pinned_hosts",
    "volume_facts",
]

BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
HOSTNAME = "kubernetes.io/hostname"
_KINDS = ("persistentvolumeclaims", "persistentvolumes", "storageclasses")


class VolumeFacts(msgspec.Struct, frozen=True):
    alternatives: tuple[Requirements, ...]  # () when the volumes add no requirement
    node_terms: tuple[tuple[str, tuple[tuple[Requirement, ...], ...]], ...]  # per claim: (what, OR-terms)
    problem: str | None = None  # VOLUME_UNAVAILABLE
    unknown: str | None = None

    @property
    def relevant(self) -> bool:
        return bool(self.alternatives or self.node_terms or self.problem or self.unknown)


NO_VOLUMES = VolumeFacts((), ())


def _requirements(exprs: tuple[Raw, ...], drop_hostname: bool) -> tuple[Requirement, ...]:
    return tuple(Requirement.from_dict(e) for e in exprs if not (drop_hostname and e.get("key") == HOSTNAME))


def _merge(current: list[Requirements | None], options: list[Requirements]) -> list[Requirements | None]:
    compatible = [
        a.intersection(b) if a is not None else b
        for a in current
        for b in options
        if a is None or not a.conflicts(b)
    ]
    if compatible:
        return list(compatible)
    return [a.intersection(b) if a is not None else b for a in current for b in options]


NodeTerms = list[tuple[str, tuple[tuple[Requirement, ...], ...]]]


def volume_facts(state: ClusterState, shape: PodShape, unreadable: frozenset[str]) -> VolumeFacts:
    claims = shape.placement.claims
    if not claims:
        return NO_VOLUMES
    forbidden = [k for k in _KINDS if k in unreadable]
    if forbidden:
        return VolumeFacts((), (), unknown=f"{', '.join(forbidden)} could not be read (forbidden)")
    alternatives: list[Requirements | None] = [None]
    node_terms: NodeTerms = []
    try:
        for ref in claims:
            pvc = state.pvc_by_key.get((shape.namespace, ref.claim))
            what = f"PersistentVolumeClaim {shape.namespace}/{ref.claim}"
            if pvc is None and state.persistentvolumeclaims:  # claims were read: this one does not exist
                why = (
                    "not created yet (the ephemeral volume controller makes it)"
                    if ref.ephemeral
                    else "not found"
                )
                return VolumeFacts((), (), problem=f"{what} of volume {ref.volume} does not exist: {why}")
            if pvc is None:
                why = "not created yet, or not in the data" if ref.ephemeral else "not in the data"
                return VolumeFacts((), (), unknown=f"{what} of volume {ref.volume}: {why}")
            if pvc.meta.deleting:
                return VolumeFacts((), (), problem=f"{what} is being deleted")
            if pvc.phase == "Lost":
                return VolumeFacts((), (), problem=f"{what} is Lost: its PersistentVolume no longer exists")
            found = (
                _bound(state, pvc, what, node_terms)
                if pvc.volume_name
                else _unbound(state, pvc, what, node_terms)
            )
            if isinstance(found, VolumeFacts):
                return found
            if found:
                alternatives = _merge(alternatives, found)
    except RequirementError as exc:
        return VolumeFacts((), (), unknown=f"a volume's node affinity cannot be read: {exc}")
    return VolumeFacts(tuple(a for a in alternatives if a is not None), tuple(node_terms))


def _bound(
    state: ClusterState, pvc: PersistentVolumeClaim, what: str, node_terms: NodeTerms
) -> list[Requirements] | VolumeFacts:
    """A claim that names its volume: that volume's node affinity (its alternatives), or why not."""
    assert pvc.volume_name is not None
    pv = state.pv_by_name.get(pvc.volume_name)
    if pv is None and state.persistentvolumes:
        return VolumeFacts((), (), problem=f"PersistentVolume {pvc.volume_name} of {what} does not exist")
    if pv is None:
        return VolumeFacts((), (), unknown=f"PersistentVolume {pvc.volume_name} of {what}: not in the data")
    if pv.meta.deleting:
        return VolumeFacts((), (), problem=f"PersistentVolume {pv.name} of {what} is being deleted")
    if BIND_COMPLETED not in pvc.meta.annotations:
        return VolumeFacts(
            (), (), problem=f"{what} names volume {pv.name} but is not bound yet ({BIND_COMPLETED} unset)"
        )
    terms = tuple(_requirements(t, False) for t in pv.node_affinity)
    if terms:
        node_terms.append((f"PersistentVolume {pv.name}", terms))
    options: list[Requirements] = []
    for raw in pv.node_affinity:
        reqs = _requirements(raw, pv.local)
        if reqs or (pv.local and raw):
            options.append(Requirements.of(*reqs))
    return options


def _unbound(
    state: ClusterState, pvc: PersistentVolumeClaim, what: str, node_terms: NodeTerms
) -> list[Requirements] | VolumeFacts:
    """A claim not bound yet: its StorageClass's allowed topologies, or why the pod waits."""
    if not pvc.storage_class:
        return VolumeFacts((), (), problem=f"{what} is unbound and names no StorageClass")
    sc = state.storageclass_by_name.get(pvc.storage_class)
    if sc is None and state.storageclasses:
        return VolumeFacts((), (), problem=f"StorageClass {pvc.storage_class} of {what} does not exist")
    if sc is None:
        return VolumeFacts((), (), unknown=f"StorageClass {pvc.storage_class} of {what}: not in the data")
    if sc.binding_mode == "Immediate":
        return VolumeFacts(
            (),
            (),
            problem=f"{what} is unbound and StorageClass {sc.name} binds Immediately: the pod waits "
            "for the volume to be provisioned and bound",
        )
    topo = tuple(
        tuple(Requirement(key, "In", values) for key, values in term) for term in sc.allowed_topologies
    )
    topo = tuple(t for t in topo if t)
    if topo:
        node_terms.append((f"StorageClass {sc.name}", topo))
    return [Requirements.of(*t) for t in topo]


def node_volume_problem(facts: VolumeFacts, labels: Mapping[str, str]) -> str | None:
    """Why the volumes do not allow this node (kube-scheduler VolumeBinding Filter), or None."""
    for what, terms in facts.node_terms:
        if not any(all(req.matches(labels) for req in term) for term in terms):
            shown = " or ".join("; ".join(str(r) for r in term) for term in terms)
            return f"{what} requires {shown}"
    return None


def pinned_hosts(facts: VolumeFacts) -> tuple[str, ...]:
    """The nodes a volume is pinned to, when some claim's every node-affinity term names
    `kubernetes.io/hostname` with `In` (a volume that lives on one node): the advice is about that node, not
    a zone (issue 37). Empty otherwise."""
    for _, terms in facts.node_terms:
        hosts: set[str] = set()
        for term in terms:
            named = [r for r in term if r.key == HOSTNAME and r.operator == "In"]
            if not named:
                break
            hosts.update(named[0].values)
        else:
            if hosts:
                return tuple(sorted(hosts))
    return ()


_MOVE = "move the data to a volume not pinned to one node and recreate the claim"


def pinned_fix(hosts: tuple[str, ...], state: ClusterState, shape: PodShape) -> str:
    """What to do for a pod whose volume lives on `hosts`: only those nodes can take it, so make room there,
    unless none of them exists or has the accelerators the pod asks for (then only moving the data helps)."""
    nodes = " or ".join(f"node {h}" for h in hosts)
    where = f"the pod's volume lives on {nodes}: only there can the pod run (no new node can be that node)"
    found = [n for h in hosts if (n := state.node_by_name.get(h)) is not None]
    if not found:
        return f"{where}, and no such node is in the data (deleted or replaced?): {_MOVE}"
    wanted = sorted(shape.accelerators)
    able = [n for n in found if all(n.allocatable.get(r, 0) > 0 for r in wanted)]
    if not able:
        return (
            f"{where}, and it has no {', '.join(wanted)}: the pod cannot run while its data is there; {_MOVE}"
        )
    return (
        f"{where}; make room for it there (kubectl gpu nodes shows its free accelerators; check its taints), "
        f"or {_MOVE}"
    )


def node_volume_fix(facts: VolumeFacts, state: ClusterState, shape: PodShape) -> str:
    """The advice for an existing node its volumes rule out: about the node when a volume is pinned to one."""
    hosts = pinned_hosts(facts)
    if hosts:
        return pinned_fix(hosts, state, shape)
    return "run the pod where its volume is (its zone), or use a volume in this node's zone"
