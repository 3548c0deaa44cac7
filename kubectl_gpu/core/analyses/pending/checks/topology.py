"""Topology spread (`DoNotSchedule`) and required pod (anti-)affinity, for a new node of a NodePool and for an
existing node.

NodePool (Karpenter `pkg/controllers/provisioning/scheduling/`): the domains of a key are those the
NodePools can launch in (`topology.go` `buildDomainGroups`: their `In` requirement values, or for zones the
instance types' offerings, which are the NodeClass subnets' zones here) plus those of existing nodes; the
pods counted are the selected pods bound to nodes, not terminating (`countDomains`), on nodes the pod's node
requirements admit (`nodeAffinityPolicy: Honor`). Spread (`topologygroup.go` `nextDomainTopologySpread`,
`domainMinCount`): a domain the new node can be in is valid when count (+1 if the pod selects itself) - the
minimum over the pod's domains <= maxSkew (the minimum is 0 when fewer domains than minDomains);
`kubernetes.io/hostname` is always satisfiable on a new node. Affinity (`nextDomainAffinity`): a domain with
a selected pod, or any domain when no pod is selected and the pod selects itself; anti-affinity: a domain
without a selected pod; a new node has no pods, so hostname anti-affinity always passes and hostname affinity
to existing pods never does. Pods already placed whose anti-affinity selects this pod exclude their domains
(`Topology.AddRequirements`, inverse anti-affinity).

Existing node (kube-scheduler `podtopologyspread` Filter, `interpodaffinity` Filter): the node must carry
the key; skew = matches in its domain + self - the minimum over domains of eligible nodes > maxSkew fails;
affinity needs a selected pod in the node's domain (or none anywhere and the pod selecting itself),
anti-affinity none, and no placed pod's anti-affinity may select this pod in the node's domain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import msgspec

from kubectl_gpu.core.analyses.pending.checks.evaluation import Check
from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, BlockerClass, TargetRef, Verdict
from kubectl_gpu.core.k8s.models import Node, Pod
from kubectl_gpu.core.k8s.placement import AffinityTerm, SpreadConstraint
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.scheduling.affinity import selector_matches
from kubectl_gpu.core.scheduling.requirements import RequirementError, Requirements
from kubectl_gpu.core.scheduling.taints import untolerated

__all__ = ["HOSTNAME", "ZONE", "Verdict3", "node_topology", "pool_topology"]

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"

# (ok, detail) with ok None: not decidable from the data.
Verdict3 = tuple[bool | None, str]


class Outcome(msgspec.Struct, frozen=True):
    spread: Verdict3 | None  # None: the pod has no DoNotSchedule constraint
    affinity: (
        Verdict3 | None
    )  # None: no required pod (anti-)affinity and no placed pod's anti-affinity for it

    def unsure(self, why: str | None) -> Outcome:
        """This outcome when the pods already placed are not all known (`why`): a pass is unknown then,
        because a pod not read may be the one that counts."""
        if why is None:
            return self

        def weaker(found: Verdict3 | None) -> Verdict3 | None:
            return (None, f"{found[1]}, counting only the pods read ({why})") if found and found[0] else found

        return Outcome(weaker(self.spread), weaker(self.affinity))

    def add_to(
        self, ref: TargetRef, where: str, fix: str, blockers: list[Blocker], checks: list[Check]
    ) -> None:
        """The "topology spread" and "pod affinity" checks of a target, and a capacity blocker for each that
        fails (`where` starts its message: "node X", "NodePool X")."""
        for name, found, code in (
            ("topology spread", self.spread, Verdict.TOPOLOGY_SPREAD_UNSATISFIABLE),
            ("pod affinity", self.affinity, Verdict.POD_AFFINITY_UNSATISFIABLE),
        ):
            if found is None:
                continue
            ok, detail = found
            if ok is False:
                blockers.append(Blocker(code, BlockerClass.CAPACITY, ref, f"{where}: {detail}", fix))
            checks.append(Check(name, ok, detail))


def _placed(state: ClusterState) -> Iterable[tuple[Pod, Node]]:
    for pod in state.pods:
        if not pod.node_name or pod.terminated or pod.meta.deleting:
            continue
        node = state.node_by_name.get(pod.node_name)
        if node is not None:
            yield pod, node


def _labels(shape: PodShape) -> dict[str, str]:
    return dict(shape.labels)


def _node_eligible(shape: PodShape, node: Node, constraint: SpreadConstraint) -> bool:
    if constraint.node_affinity_policy != "Ignore":
        try:
            ok, _ = selector_matches(shape.node_selector, shape.node_affinity, node.labels)
        except RequirementError:
            ok = True
        if not ok:
            return False
    return not (constraint.node_taints_policy == "Honor" and untolerated(shape.tolerations, node.taints))


# Counting walks every node and pod: once per (state, shape, constraint or term), not once per target.
_MEMO: dict[tuple[int, object, object], tuple[ClusterState, Any]] = {}


def _memo(state: ClusterState, shape: PodShape, part: object, compute: Callable[[], Any]) -> Any:
    key = (id(state), shape.key, part)
    found = _MEMO.get(key)
    if found is not None and found[0] is state:
        return found[1]
    if len(_MEMO) > 1024:
        _MEMO.clear()
    value = compute()
    _MEMO[key] = (state, value)
    return value


def spread_counts(state: ClusterState, shape: PodShape, c: SpreadConstraint) -> dict[str, int]:
    """Selected pods per domain, over eligible nodes (every eligible node's domain present, maybe 0)."""
    result: dict[str, int] = _memo(state, shape, c, lambda: _spread_counts(state, shape, c))
    return result


def _spread_counts(state: ClusterState, shape: PodShape, c: SpreadConstraint) -> dict[str, int]:
    counts: dict[str, int] = {}
    for node in state.nodes:
        value = node.labels.get(c.topology_key)
        if value is not None and _node_eligible(shape, node, c):
            counts.setdefault(value, 0)
    if c.selector is None:
        return counts
    for pod, node in _placed(state):
        value = node.labels.get(c.topology_key)
        if value not in counts or pod.namespace != shape.namespace:
            continue
        if c.selector.matches(pod.meta.labels):
            counts[value] += 1
    return counts


def _term_domains(state: ClusterState, shape: PodShape, term: AffinityTerm) -> set[str]:
    result: set[str] = _memo(state, shape, term, lambda: _domains_of_term(state, shape, term))
    return result


def _domains_of_term(state: ClusterState, shape: PodShape, term: AffinityTerm) -> set[str]:
    out = set()
    for pod, node in _placed(state):
        value = node.labels.get(term.topology_key)
        if value is not None and term.selects(pod.namespace, shape.namespace, pod.meta.labels):
            out.add(value)
    return out


def _inverse(state: ClusterState, shape: PodShape) -> list[tuple[str, str, str]]:
    """(key, domain, pod) of placed pods whose required anti-affinity selects this pod."""
    labels = _labels(shape)
    out = []
    for pod in state.placed_with_anti_affinity:
        node = state.node_by_name.get(pod.node_name or "")
        if node is None:
            continue
        for term in pod.placement.affinity:
            if term.anti and term.selects(shape.namespace, pod.namespace, labels):
                value = node.labels.get(term.topology_key)
                if value is not None:
                    out.append((term.topology_key, value, f"{pod.namespace}/{pod.name}"))
    return out


def _self_selects(shape: PodShape, term: AffinityTerm) -> bool:
    return term.selects(shape.namespace, shape.namespace, _labels(shape))


# --- NodePool -------------------------------------------------------------------------------------------


def pool_topology(
    state: ClusterState,
    shape: PodShape,
    node_reqs: Requirements,
    domains_of: Mapping[str, frozenset[str] | None],
    universe: Mapping[str, frozenset[str]],
    well_known: frozenset[str] = frozenset(),
) -> Outcome:
    """`node_reqs`: the new node's requirements (pool and pod); `domains_of[key]`: where this pool can
    launch for the key (None: unknown); `universe[key]`: every registered domain; `well_known`: the keys
    instance types or offerings define (their domains may be unknown here, never absent)."""
    placement = shape.placement
    spread: Verdict3 | None = None
    required = [c for c in placement.spread if c.required]
    if required:
        spread = (True, f"{len(required)} DoNotSchedule constraint(s) satisfiable")
        for c in required:
            found = _pool_spread(state, shape, c, node_reqs, domains_of, universe, well_known)
            if found[0] is not True:
                spread = found
                if found[0] is False:
                    break
    affinity: Verdict3 | None = None
    inverse = _inverse(state, shape)
    if placement.affinity or inverse:
        affinity = (True, "required pod (anti-)affinity satisfiable on a new node")
        for term in placement.affinity:
            found = _pool_affinity(state, shape, term, node_reqs, domains_of)
            if found[0] is not True:
                affinity = found
                if found[0] is False:
                    return Outcome(spread, affinity)
        # The domains every required anti-affinity excludes, together (topology.go AddRequirements narrows the
        # new node's requirements by each in turn): three placed pods that each exclude one zone exclude three.
        excluded: dict[str, dict[str, str]] = {}
        for term in placement.affinity:
            if term.anti and term.topology_key != HOSTNAME:
                for domain in _term_domains(state, shape, term):
                    excluded.setdefault(term.topology_key, {}).setdefault(
                        domain, "the pod's own anti-affinity"
                    )
        for key, domain, who in inverse:
            if key != HOSTNAME:
                excluded.setdefault(key, {}).setdefault(domain, f"pod {who}'s anti-affinity")
        for key, by_domain in sorted(excluded.items()):
            possible = _possible(key, node_reqs, domains_of)
            shown = ", ".join(f"{key}={d} ({who})" for d, who in sorted(by_domain.items()))
            if possible is None:
                affinity = (None, f"required anti-affinity excludes {shown}; this pool's domains are unknown")
            elif not (possible - set(by_domain)):
                return Outcome(
                    spread,
                    (False, f"required anti-affinity excludes {shown}: every domain this pool can launch in"),
                )
    return Outcome(spread, affinity)


def _defines(state: ClusterState, key: str) -> bool:
    """Whether a NodePool has a requirement or template label on `key`."""
    return any(
        key in pool.template_labels or any(r.get("key") == key for r in pool.requirements)
        for pool in state.nodepools
    )


def _possible(
    key: str, node_reqs: Requirements, domains_of: Mapping[str, frozenset[str] | None]
) -> set[str] | None:
    domains = domains_of.get(key)
    if domains is None:
        return None
    req = node_reqs.get(key)
    return {d for d in domains if req is None or req.has(d)}


def _pool_spread(
    state: ClusterState,
    shape: PodShape,
    c: SpreadConstraint,
    node_reqs: Requirements,
    domains_of: Mapping[str, frozenset[str] | None],
    universe: Mapping[str, frozenset[str]],
    well_known: frozenset[str] = frozenset(),
) -> Verdict3:
    if c.topology_key == HOSTNAME:
        return True, "hostname spread: a new node holds none of the selected pods"
    counts = spread_counts(state, shape, c)
    pod_req = shape.requirements.strict.get(c.topology_key) if shape.requirements else None
    all_domains = set(universe.get(c.topology_key, frozenset())) | set(counts)
    if not all_domains and c.topology_key not in well_known and not _defines(state, c.topology_key):
        # topology_test.go "should ignore unknown topology keys": the pod is not scheduled.
        return False, (
            f"topology spread on {c.topology_key}: no node carries it and no NodePool defines it, so there is no "
            "domain to place the pod in"
        )
    pod_domains = {d for d in all_domains if pod_req is None or pod_req.has(d)}
    low = min((counts.get(d, 0) for d in pod_domains), default=0)
    if c.min_domains is not None and len(pod_domains) < c.min_domains:
        low = 0
    own = 1 if c.selector is not None and c.selector.matches(_labels(shape)) else 0
    valid = {d for d in pod_domains if counts.get(d, 0) + own - low <= c.max_skew}
    possible = _possible(c.topology_key, node_reqs, domains_of)
    if possible is None:
        if valid == pod_domains:
            return True, f"every {c.topology_key} domain is within maxSkew {c.max_skew}"
        return None, (
            f"{c.topology_key} spread allows only {', '.join(sorted(valid)) or 'no domain'}, and where this pool "
            "can launch is unknown (no In requirement, NodeClass subnets not reported)"
        )
    ok = valid & possible
    if ok:
        return True, f"{c.topology_key} spread: {', '.join(sorted(ok))} within maxSkew {c.max_skew}"
    shown = ", ".join(f"{d}={counts.get(d, 0)}" for d in sorted(all_domains)) or "no domain"
    return False, (
        f"topology spread on {c.topology_key} (maxSkew {c.max_skew}) allows "
        f"{', '.join(sorted(valid)) or 'no domain'}; this pool launches in {', '.join(sorted(possible)) or 'none'} "
        f"(selected pods: {shown})"
    )


def _pool_affinity(
    state: ClusterState,
    shape: PodShape,
    term: AffinityTerm,
    node_reqs: Requirements,
    domains_of: Mapping[str, frozenset[str] | None],
) -> Verdict3:
    domains = _term_domains(state, shape, term)
    kind = "anti-affinity" if term.anti else "affinity"
    if term.anti:
        if term.topology_key == HOSTNAME or not domains:
            return True, f"pod {kind} on {term.topology_key}: no conflict on a new node"
        possible = _possible(term.topology_key, node_reqs, domains_of)
        if possible is None:
            return (
                None,
                f"pod anti-affinity excludes {', '.join(sorted(domains))}; this pool's domains are unknown",
            )
        if possible - domains:
            return True, f"pod anti-affinity leaves {', '.join(sorted(possible - domains))}"
        return False, (
            f"required pod anti-affinity on {term.topology_key} excludes {', '.join(sorted(domains))}, every domain "
            "this pool can launch in"
        )
    if not domains:
        if _self_selects(shape, term):
            return True, "pod affinity: no selected pod yet and the pod selects itself"
        return (
            False,
            f"required pod affinity on {term.topology_key} selects no running pod (and not the pod itself)",
        )
    if term.topology_key == HOSTNAME:
        return False, (
            "required pod affinity on kubernetes.io/hostname: the selected pods run on existing nodes, which a new "
            "node is not"
        )
    possible = _possible(term.topology_key, node_reqs, domains_of)
    if possible is None:
        return None, f"pod affinity needs {', '.join(sorted(domains))}; this pool's domains are unknown"
    if possible & domains:
        return True, f"pod affinity: {', '.join(sorted(possible & domains))}"
    return False, (
        f"required pod affinity on {term.topology_key} needs {', '.join(sorted(domains))}; this pool launches in "
        f"{', '.join(sorted(possible)) or 'none'}"
    )


# --- existing node --------------------------------------------------------------------------------------


def node_topology(state: ClusterState, shape: PodShape, node: Node) -> Outcome:
    placement = shape.placement
    spread: Verdict3 | None = None
    required = [c for c in placement.spread if c.required]
    if required:
        spread = (True, "within maxSkew")
        for c in required:
            value = node.labels.get(c.topology_key)
            if value is None:
                spread = (False, f"node has no {c.topology_key} label (topology spread)")
                break
            counts = spread_counts(state, shape, c)
            low = min(counts.values(), default=0)
            if c.min_domains is not None and len(counts) < c.min_domains:
                low = 0
            own = 1 if c.selector is not None and c.selector.matches(_labels(shape)) else 0
            skew = counts.get(value, 0) + own - low
            if skew > c.max_skew:
                spread = (
                    False,
                    f"topology spread on {c.topology_key}: skew {skew} in {value} > maxSkew {c.max_skew}",
                )
                break
    affinity: Verdict3 | None = None
    inverse = _inverse(state, shape)
    if placement.affinity or inverse:
        affinity = (True, "required pod (anti-)affinity satisfied")
        wanted = [t for t in placement.affinity if not t.anti]
        found = {id(t): _term_domains(state, shape, t) for t in placement.affinity}
        # kube-scheduler `satisfyPodAffinity`: every term's key on the node and a selected pod in its domain,
        # or no pod selected by any term anywhere and the pod selecting itself with every term.
        first = not any(found[id(t)] for t in wanted) and all(_self_selects(shape, t) for t in wanted)
        for term in placement.affinity:
            value = node.labels.get(term.topology_key)
            domains = found[id(term)]
            if term.anti and value is not None and value in domains:
                why = f"required pod anti-affinity: a selected pod runs in {term.topology_key}={value}"
                return Outcome(spread, (False, why))
            if not term.anti and (value is None or (value not in domains and not first)):
                why = f"required pod affinity: no selected pod in {term.topology_key}={value}"
                return Outcome(spread, (False, why))
        for key, domain, who in inverse:
            if node.labels.get(key) == domain:
                return Outcome(spread, (False, f"pod {who}'s required anti-affinity excludes {key}={domain}"))
    return Outcome(spread, affinity)
