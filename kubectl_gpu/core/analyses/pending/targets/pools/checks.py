"""A NodePool's checks beyond taints, requirements, instance fit and limits, on the types that fit:

* daemonset host ports (`scheduler.go` `buildDaemonOverheadGroups`, `nodeclaim.go`
  `filterInstanceTypesByRequirements`: a daemon group whose host ports conflict with the pod's is skipped)
  -> `HOST_PORT_CONFLICT` when every fitting type's daemons conflict;
* `minValues` (`cloudprovider/types.go` `InstanceTypes.SatisfiesMinValues`, called by
  `filterInstanceTypesByRequirements` when the requirements have minValues; `--min-values-policy` Strict, the
  default, launches nothing then; BestEffort relaxes it) -> `MIN_VALUES_UNSATISFIED`;
* topology spread and pod (anti-)affinity (`topology.py`), tried again on Karpenter's later attempts when they
  fail (a preferred node affinity is relaxed, `preferences.go`), volume topology (`volumes.py`);
* NodeOverlays whose match the catalog cannot decide leave the instance types unknown.
"""

from __future__ import annotations

from collections.abc import Callable

from kubectl_gpu.core.accelerators.nodes import pods_unread
from kubectl_gpu.core.analyses.pending.checks.evaluation import CAPACITY, SPEC, Check
from kubectl_gpu.core.analyses.pending.checks.topology import HOSTNAME, ZONE, Outcome, Verdict3, pool_topology
from kubectl_gpu.core.analyses.pending.checks.volumes import pinned_fix, pinned_hosts, volume_facts
from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.analyses.pending.targets.pools.facts import PoolFacts
from kubectl_gpu.core.analyses.pending.targets.pools.fit import PoolFit
from kubectl_gpu.core.analyses.pending.targets.pools.template import POOL, POOL_REF
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, Verdict
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.scheduling.instances import CAPACITY_TYPE, IndexedType
from kubectl_gpu.core.scheduling.requirements import Requirements

__all__ = ["pool_checks"]

_OFFERED_CAPACITY = ("on-demand", "spot")


def _pool_domains(
    state: ClusterState, target_reqs: Requirements, zones: tuple[str, ...], key: str
) -> frozenset[str] | None:
    req = target_reqs.get(key)
    if req is not None and not req.complement:
        return frozenset(req.values)
    if key == ZONE and zones:
        return frozenset(z for z in zones if req is None or req.has(z))
    return None


def _zones_of(state: ClusterState, target: PoolFacts) -> tuple[str, ...]:
    ref = target.pool.node_class_ref
    node_class = state.nodeclass_by_ref.get((ref.kind, ref.name)) if ref is not None else None
    return node_class.zones if node_class is not None else ()


def _universe(state: ClusterState, keys: set[str]) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {k: set() for k in keys}
    for pool in state.nodepools:
        for raw in pool.requirements:
            if raw.get("key") in out and raw.get("operator") == "In":
                out[str(raw["key"])].update(str(v) for v in raw.get("values") or ())
        for key in keys & set(pool.template_labels):
            out[key].add(pool.template_labels[key])
        if ZONE in out and not any(r.get("key") == ZONE for r in pool.requirements):
            ref = pool.node_class_ref
            node_class = state.nodeclass_by_ref.get((ref.kind, ref.name)) if ref is not None else None
            if node_class is not None:
                out[ZONE].update(node_class.zones)
    for node in state.nodes:
        for key in keys:
            if key in node.labels:
                out[key].add(node.labels[key])
    return {k: frozenset(v) for k, v in out.items()}


def _min_values(
    target: PoolFacts,
    shape: PodShape,
    fitting: tuple[IndexedType, ...],
    node_requirements: Callable[[], Requirements],
) -> Check | Blocker | None:
    wanted = {k: r.min_values for k, r in target.requirements.items() if r.min_values}
    if not wanted:
        return None
    if not fitting:
        return Check("minValues", None, "no fitting instance type to count")
    node_reqs = node_requirements()
    short, unknown = [], []
    for key, minimum in sorted(wanted.items()):
        req = node_reqs.get(key)
        if key == CAPACITY_TYPE:
            values = {v for v in _OFFERED_CAPACITY if req is None or req.has(v)}
        elif key == ZONE:
            zones = _pool_domains(target.state, node_reqs, _zones_of(target.state, target), key)
            if zones is None:
                unknown.append(key)
                continue
            values = set(zones)
        else:
            if any(key in e.unknown for e in fitting):
                unknown.append(key)
                continue
            values = {e.labels[key] for e in fitting if key in e.labels}
        assert minimum is not None
        if len(values) < minimum:
            short.append(
                f"{key}: {len(values)} of minValues {minimum} ({', '.join(sorted(values)) or 'none'})"
            )
    if short:
        message = (
            f"NodePool {POOL}: minValues requirement is not met by the {len(fitting)} instance "
            f"type(s) that fit: {'; '.join(short)}"
        )
        return Blocker(
            Verdict.MIN_VALUES_UNSATISFIED,
            SPEC,
            POOL_REF,
            message,
            f"lower minValues in NodePool {POOL}, admit more instance types (the pod's selectors "
            "narrow them too), or run Karpenter with --min-values-policy=BestEffort",
        )
    if unknown:
        return Check("minValues", None, f"the catalog does not know enough about {', '.join(unknown)}")
    return Check("minValues", True, ", ".join(f"{k} >= {v}" for k, v in sorted(wanted.items())))


def pool_checks(
    target: PoolFacts,
    shape: PodShape,
    fitting: tuple[IndexedType, ...],
    node_requirements: Callable[[], Requirements],
    attempt: int,
) -> tuple[tuple[IndexedType, ...], list[Blocker], list[Check]]:
    """The fitting types left, and the blockers and checks to add (`attempt`: the number of Karpenter's
    attempt the pool takes the pod with, `PoolTarget.relaxed`; `node_requirements`: the pool's and the pod's
    requirements together, made only where a check reads them: minValues, topology, volumes)."""
    blockers: list[Blocker] = []
    checks: list[Check] = []
    fit: PoolFit = target.fit
    placement = shape.placement
    if placement.error:
        checks.append(Check("placement", None, f"part of the pod spec cannot be read: {placement.error}"))
    if fitting and fit.overlays and any(fit.overlay_uncertain(e) for e in fitting):
        checks.append(
            Check("node overlays", None, "whether a NodeOverlay applies depends on labels the catalog lacks")
        )
    if fitting and "nodeoverlays" in target.unreadable:
        checks.append(Check("node overlays", None, "NodeOverlays could not be read (forbidden)"))
    if fitting and "daemonsets" in target.unreadable:
        checks.append(Check("daemonsets", None, "DaemonSets could not be read (forbidden): overhead unknown"))
    if placement.host_ports and fitting:
        free = tuple(e for e in fitting if fit.port_conflict(e, placement.host_ports) is None)
        if not free:
            found = fit.port_conflict(fitting[0], placement.host_ports)
            assert found is not None
            ds, port = found
            message = f"host port {port} is taken by DaemonSet {ds.meta.key} on every node of NodePool {POOL}"
            blockers.append(
                Blocker(Verdict.HOST_PORT_CONFLICT, SPEC, POOL_REF, message, "use another hostPort, or none")
            )
            checks.append(Check("host ports", False, message))
        else:
            checks.append(Check("host ports", True, "no daemonset uses them"))
        fitting = free or fitting
    found_min = _min_values(target, shape, fitting, node_requirements)
    if isinstance(found_min, Blocker):
        blockers.append(found_min)
        checks.append(Check("minValues", False, found_min.message))
    elif found_min is not None:
        checks.append(found_min)
    _topology(target, shape, node_requirements, attempt, blockers, checks)
    _volumes(target, shape, node_requirements, blockers, checks)
    return fitting, blockers, checks


def _topology(
    target: PoolFacts,
    shape: PodShape,
    node_requirements: Callable[[], Requirements],
    attempt: int,
    blockers: list[Blocker],
    checks: list[Check],
) -> None:
    placement = shape.placement
    if not (placement.spread or placement.affinity or target.state.placed_with_anti_affinity):
        return
    node_reqs = node_requirements()
    keys = {c.topology_key for c in placement.spread} | {t.topology_key for t in placement.affinity} | {ZONE}
    zones = _zones_of(target.state, target)
    universe = _universe(target.state, keys)

    def outcome_of(reqs: Requirements) -> Outcome:
        domains_of = {k: _pool_domains(target.state, reqs, zones, k) for k in keys}
        return pool_topology(target.state, shape, reqs, domains_of, universe, target.well_known)

    outcome = outcome_of(node_reqs)
    if _fails(outcome):
        # Karpenter relaxes the pod when no NodePool takes it (scheduler.go `trySchedule`, preferences.go
        # `Relax`): a preferred node affinity narrows the domains only until it is dropped
        # (topology_test.go "should not limit spread options by preferred node affinity").
        for reqs in _later_attempts(target, shape, attempt):
            relaxed = outcome_of(target.requirements.intersection(reqs))
            if not _fails(relaxed):
                outcome = Outcome(*(_relaxed(v) for v in (relaxed.spread, relaxed.affinity)))
                break
    outcome.unsure(pods_unread(target.state)).add_to(
        POOL_REF, f"NodePool {POOL}", _TOPOLOGY_FIX, blockers, checks
    )


def _fails(outcome: Outcome) -> bool:
    return any(v is not None and v[0] is False for v in (outcome.spread, outcome.affinity))


def _relaxed(found: Verdict3 | None) -> Verdict3 | None:
    if found is None:
        return None
    ok, detail = found
    return ok, f"{detail}, once Karpenter relaxes the pod (its preferred node affinity, its next term)"


def _later_attempts(target: PoolFacts, shape: PodShape, attempt: int) -> list[Requirements]:
    """Karpenter's attempts after the one this pool takes (`PodSchedulingRequirements.relaxations`) that the
    pool admits and, for an accelerator pod, that leave an instance type holding it."""
    reqs = shape.requirements
    if reqs is None:
        return []
    attempts = reqs.relaxations()
    out = []
    for later in attempts[attempt + 1 :]:
        if list(target.requirements.compatible(later, allow_undefined=target.well_known)):
            continue
        if shape.wants_accelerator and not target.fitting(shape, later)[1]:
            continue
        out.append(later)
    return out


_TOPOLOGY_FIX = (
    "relax the constraint (maxSkew, ScheduleAnyway, preferred affinity) or let the NodePool launch "
    "in the domains it needs (its zone requirement, the NodeClass subnets)"
)


def _volumes(
    target: PoolFacts,
    shape: PodShape,
    node_requirements: Callable[[], Requirements],
    blockers: list[Blocker],
    checks: list[Check],
) -> None:
    facts = volume_facts(target.state, shape, target.unreadable)
    if not facts.relevant:
        return
    if facts.problem:
        message = f"Karpenter ignores the pod: {facts.problem}"
        blockers.append(
            Blocker(
                Verdict.VOLUME_UNAVAILABLE,
                CAPACITY,
                POOL_REF,
                message,
                "kubectl describe pvc: bind or recreate the claim",
            )
        )
        checks.append(Check("volumes", False, message))
        return
    if facts.unknown:
        checks.append(Check("volumes", None, facts.unknown))
        return
    if not facts.alternatives:
        checks.append(Check("volumes", True, "the volumes add no topology requirement"))
        return
    node_reqs = node_requirements()
    zones = _pool_domains(target.state, node_reqs, _zones_of(target.state, target), ZONE)
    problems = []
    for alt in facts.alternatives:
        found = node_reqs.compatible(alt, allow_undefined=target.well_known)
        zone_req = alt.get(ZONE)
        host_req = alt.get(HOSTNAME)
        if host_req is not None and not host_req.complement:
            # A new node's hostname is its own placeholder (`NewNodeClaim`): never the volume's node.
            problems.append(f"the volume is on {host_req.render()}, an existing node")
        elif (
            not found
            and zone_req is not None
            and zones is not None
            and not any(zone_req.has(z) for z in zones)
        ):
            problems.append(f"{zone_req.render()} but the pool launches in {', '.join(sorted(zones))}")
        elif found:
            problems.append("; ".join(str(p) for p in found))
        else:
            checks.append(Check("volumes", True, f"volume topology {alt.render()} fits"))
            return
    message = f"NodePool {POOL} cannot launch where the pod's volumes are: {problems[0]}"
    hosts = pinned_hosts(facts)  # a volume on one node: no zone or pool change helps (issue 37)
    fix = (
        pinned_fix(hosts, target.state, shape)
        if hosts
        else f"allow the volume's zone in NodePool {POOL} (and its NodeClass subnets), or recreate the "
        "volume where the pool launches"
    )
    blockers.append(Blocker(Verdict.VOLUME_TOPOLOGY_CONFLICT, SPEC, POOL_REF, message, fix))
    checks.append(Check("volumes", False, message))
