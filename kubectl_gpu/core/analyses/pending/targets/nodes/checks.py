"""An existing node's checks beyond taints, selectors and accelerators (kube-scheduler's filter plugins):

* `noderesources` Fit (`fitsRequest`): cpu, memory, ephemeral-storage and every other resource the pod requests
  (extended resources such as `vpc.amazonaws.com/efa`, `hugepages-*`: one the node does not advertise is
  allocatable 0) requested by the pods bound to the node plus the pod's must stay within allocatable, and one
  more pod within allocatable `pods` -> `INSUFFICIENT_RESOURCES` (accelerators stay `INSUFFICIENT_ACCELERATOR`);
* `nodeports` Fit (`fitsPorts`): a host port (protocol, port, IP or the wildcard) another pod on the node
  uses -> `HOST_PORT_CONFLICT`;
* `podtopologyspread`, `interpodaffinity`: see `topology.py`; `volumebinding`: see `volumes.py`.
"""

from __future__ import annotations

from decimal import Decimal

from kubectl_gpu.core.accelerators.nodes import pods_unread
from kubectl_gpu.core.analyses.pending.checks.evaluation import CAPACITY, SPEC, ZERO, Check, short_quantity
from kubectl_gpu.core.analyses.pending.checks.topology import node_topology
from kubectl_gpu.core.analyses.pending.checks.volumes import (
    node_volume_fix,
    node_volume_problem,
    volume_facts,
)
from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, TargetRef, Verdict
from kubectl_gpu.core.k8s.models import Node
from kubectl_gpu.core.k8s.state import ClusterState

__all__ = ["node_checks"]

_RESOURCES = ("cpu", "memory", "ephemeral-storage")
_NONE = "the node has none"


def _quantity(value: Decimal, resource: str) -> str:
    memory_like = resource == "ephemeral-storage" or resource.startswith("hugepages-")
    return short_quantity(value, "memory" if memory_like else resource)


def _resources(state: ClusterState, shape: PodShape, node: Node) -> tuple[list[str], list[str]]:
    """(shortages, what was not reported by the node)."""
    requested = state.requested_by_node.get(node.name, {})
    wanted = {
        **{r: shape.requests.get(r, ZERO) for r in _RESOURCES[:2]},
        "ephemeral-storage": shape.ephemeral_storage,
    }
    short, unknown = [], []
    for resource, want in wanted.items():
        if want <= 0:
            continue
        if resource not in node.allocatable:
            unknown.append(f"{resource} allocatable not reported")
            continue
        free = node.allocatable[resource] - requested.get(resource, ZERO)
        if want > free:
            short.append(
                f"{resource}: {_quantity(max(free, ZERO), resource)} free, {_quantity(want, resource)} wanted"
            )
    for resource, want in shape.scalars:
        have = node.allocatable.get(resource, ZERO)
        free = have - requested.get(resource, ZERO)
        if want > free:
            # fitsRequest: a scalar resource the node does not advertise is allocatable 0 ("Insufficient X")
            now = _NONE if have <= 0 else f"{_quantity(max(free, ZERO), resource)} free"
            short.append(f"{resource}: {now}, {_quantity(want, resource)} wanted")
    pods = node.allocatable.get("pods")
    if pods is not None:
        bound = sum(1 for p in state.pods_by_node.get(node.name, ()) if not p.terminated)
        if bound + 1 > pods:
            short.append(f"pods: {bound} of {int(pods)} allowed already bound")
    return short, unknown


def _port_conflict(state: ClusterState, shape: PodShape, node: Node) -> str | None:
    for pod in state.pods_by_node.get(node.name, ()):
        if pod.terminated:
            continue
        for theirs in pod.placement.host_ports:
            for mine in shape.placement.host_ports:
                if mine.conflicts(theirs):
                    return f"host port {mine} is used by pod {pod.namespace}/{pod.name} on node {node.name}"
    return None


def node_checks(
    state: ClusterState, shape: PodShape, node: Node, ref: TargetRef, unreadable: frozenset[str]
) -> tuple[list[Blocker], list[Check]]:
    blockers: list[Blocker] = []
    checks: list[Check] = []
    unread = pods_unread(state)  # the pods read are a part: a shortage or conflict found is still one
    short, unknown = _resources(state, shape, node)
    if unread is not None:
        unknown.append(f"pods on the node unknown ({unread})")
    if short:
        message = f"node {node.name}: " + "; ".join(short)
        absent = [s.split(":", 1)[0] for s in short if _NONE in s]
        fix = (
            f"run the pod on nodes that offer {', '.join(absent)} (a NodePool whose instance types have it), or "
            "drop the request"
            if absent
            else "free room on this node (kubectl describe node shows its allocated resources), request less, "
            "or add capacity"
        )
        blockers.append(Blocker(Verdict.INSUFFICIENT_RESOURCES, CAPACITY, ref, message, fix))
        checks.append(Check("resources", False, "; ".join(short)))
    elif unknown:
        checks.append(Check("resources", None, "; ".join(unknown)))
    else:
        checks.append(Check("resources", True, "cpu, memory and pod count fit"))
    placement = shape.placement
    if placement.error:
        checks.append(Check("placement", None, f"part of the pod spec cannot be read: {placement.error}"))
    if placement.host_ports:
        conflict = _port_conflict(state, shape, node)
        if conflict:
            blockers.append(
                Blocker(
                    Verdict.HOST_PORT_CONFLICT,
                    SPEC,
                    ref,
                    conflict,
                    "use another hostPort (or none: a Service or hostNetwork-free port), or run on another node",
                )
            )
        ok = False if conflict else (None if unread else True)
        checks.append(
            Check("host ports", ok, conflict or ("unknown: " + unread if unread else "free on the node"))
        )
    node_topology(state, shape, node).unsure(unread).add_to(
        ref, f"node {node.name}", _TOPOLOGY_FIX, blockers, checks
    )
    facts = volume_facts(state, shape, unreadable)
    if facts.relevant:
        if facts.problem:
            blockers.append(Blocker(Verdict.VOLUME_UNAVAILABLE, CAPACITY, ref, facts.problem, _VOLUME_FIX))
            checks.append(Check("volumes", False, facts.problem))
        elif facts.unknown:
            checks.append(Check("volumes", None, facts.unknown))
        else:
            problem = node_volume_problem(facts, node.labels)
            if problem:
                blockers.append(
                    Blocker(
                        Verdict.VOLUME_TOPOLOGY_CONFLICT,
                        SPEC,
                        ref,
                        f"node {node.name}: {problem}",
                        node_volume_fix(facts, state, shape),
                    )
                )
            checks.append(Check("volumes", problem is None, problem or "volume topology allows this node"))
    return blockers, checks


_TOPOLOGY_FIX = (
    "relax the constraint (maxSkew, whenUnsatisfiable: ScheduleAnyway, preferred instead of required affinity) "
    "or make room where it allows (another zone in the NodePool, fewer selected pods)"
)
_VOLUME_FIX = "kubectl describe pvc: bind or recreate the claim (a WaitForFirstConsumer StorageClass lets the pod choose)"
