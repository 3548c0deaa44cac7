"""`kubectl gpu lifecycle`: when each GPU node will be replaced and by what, and whether the GPU jobs on it
will live long enough.

Karpenter v1 semantics this relies on, with where they were read:

* **Expiry is forceful.** The expiration controller deletes the NodeClaim once
  `nodeClaim.CreationTimestamp + nodeClaim.Spec.ExpireAfter` has passed, with no budget check
  (`kubernetes-sigs/karpenter pkg/controllers/nodeclaim/expiration/controller.go`). The docs list Expiration
  under "Automated Forceful Methods": these "can not be rate-limited using NodePool Disruption Budgets, and
  do not wait for a pre-spin replacement node"; "NodePool Disruption Budgets do not prevent Karpenter from
  terminating expired nodes" (`aws/karpenter-provider-aws website/content/en/preview/concepts/disruption.md`
  @01f93d2). `expireAfter` defaults to `720h` in the CRD (`pkg/apis/v1/nodepool.go`, kubebuilder default);
  `Never` disables it.
* **terminationGracePeriod bounds the drain.** Once a node is disrupted the TGP countdown starts; when it
  elapses the remaining pods are deleted and the instance terminated, so "the maximum node lifetime [is] the
  sum of the two fields". Pods with `do-not-disrupt` or a blocking PDB are deleted at
  `TGP - pod.terminationGracePeriodSeconds`. Without a TGP "the controller will wait indefinitely for pods
  to be drained" (nodepool.go field doc; disruption.md "TerminationGracePeriod").
* **do-not-disrupt blocks voluntary disruption, not expiry.** A pod annotated `karpenter.sh/do-not-disrupt`
  excludes its node from consolidation and from drift unless the NodeClaim has a TGP ("If the Node's owning
  NodeClaim has a terminationGracePeriod configured, it will still be eligible for disruption via drift");
  it "does not exclude nodes from the forceful disruption methods: Expiration, Interruption, and manual
  deletion", but the drain will not evict the pod until the TGP elapses (disruption.md "Pod-Level Controls").
  The value is `"true"` or, from Karpenter v1.12, a positive Go duration counted from the pod's start
  (`IsDoNotDisruptActive`: `podAge < duration`; a pod without a start time stays protected; anything else
  is ignored with an `InvalidDoNotDisruptAnnotation` event - `pkg/utils/pod/scheduling.go`). On a node the
  annotation blocks voluntary disruption only when it equals `"true"` (`pkg/controllers/state/statenode.go`).
* **Budgets** (see `core/budgets.py`) rate-limit drift (`Drifted`) and consolidation (`Underutilized`,
  `Empty`) only.
* **EKS Auto Mode** nodes (`eks.amazonaws.com/compute-type=auto`) have a 21-day maximum lifetime, "after
  which they are automatically replaced", whatever `expireAfter` says (EKS user guide automode.adoc, cited in
  EKS-FACTS §4); its built-in NodePools use `expireAfter: 336h` and `terminationGracePeriod: 24h0m0s`
  (EKS-FACTS §3.2). Auto Mode releases AMIs about weekly and drifts nodes onto them (automode-learn-instances
  .adoc "Generally, EKS releases a new AMI each week"; EKS-FACTS §4), so an unprotected GPU job on Auto Mode
  should expect a drift replacement within days.

The Karpenter version embedded in Auto Mode is not published (EKS-FACTS §8), so duration values of
`do-not-disrupt` may be ignored there; the report says so instead of guessing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from kubectl_gpu.core.accelerators import accelerator_requests
from kubectl_gpu.core.budgets import REASONS, UNBOUNDED, BudgetState, PoolBudgets
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.cluster import ClusterState
from kubectl_gpu.core.findings import Finding, ObjectRef, Severity
from kubectl_gpu.core.models import Node, NodeClaim, NodeClass, NodePool, Pod
from kubectl_gpu.core.node_report import build_node_row, compute_type
from kubectl_gpu.core.timeutil import TimeError, format_age, parse_duration, parse_go_duration

__all__ = [
    "AUTO_MODE_MAX_LIFETIME",
    "DO_NOT_DISRUPT",
    "Disruption",
    "LifecycleReport",
    "NodeLifecycle",
    "PodLifecycle",
    "Protection",
    "Setting",
    "Survival",
    "analyse_lifecycle",
]

DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"
AUTO_MODE_MAX_LIFETIME = timedelta(days=21)
KARPENTER_DEFAULT_EXPIRE_AFTER = "720h"
AUTO_MODE_BUILTIN_EXPIRE_AFTER = "336h"
AUTO_MODE_BUILTIN_TGP = "24h0m0s"
AUTO_MODE_BUILTIN_POOLS = ("general-purpose", "system")
DEFAULT_POLICY = "WhenEmptyOrUnderutilized"
FOREVER = datetime.max.replace(tzinfo=UTC)
SOON = timedelta(hours=24)
WEEK = timedelta(days=7)
_DEFAULT_POD_TGPS = 30


def _ts(value: datetime | None) -> str | None:
    if value is None or value == FOREVER:
        return None
    return value.isoformat().replace("+00:00", "Z")


def _hours(delta: timedelta) -> str:
    """A duration the way NodePools write them: `504h`, `1h30m`, `45m`."""
    seconds = int(delta.total_seconds())
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = (f"{hours}h" if hours else "") + (f"{minutes}m" if minutes else "") + (f"{secs}s" if secs else "")
    return text or "0s"


def _in(delta: timedelta) -> str:
    return "now" if delta.total_seconds() <= 0 else f"in {format_age(delta)}"


def _when(at: datetime | None, now: datetime) -> str:
    if at is None or at == FOREVER:
        return "never"
    return f"{_ts(at)} ({_in(at - now)})"


@dataclass(frozen=True, slots=True)
class Setting:
    """A NodePool/NodeClaim field as it applies to a node, and where the value came from."""

    value: str | None
    source: str  # nodeclaim | nodepool | karpenter-default | automode-builtin-default | unset | unknown

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "source": self.source}


@dataclass(frozen=True, slots=True)
class Protection:
    """`karpenter.sh/do-not-disrupt` on one pod."""

    namespace: str
    name: str
    value: str
    kind: str  # permanent | duration | invalid
    until: datetime | None  # duration: start + value; permanent: None

    def active_at(self, t: datetime) -> bool:
        if self.kind == "permanent":
            return True
        return self.kind == "duration" and self.until is not None and t < self.until

    @property
    def ends(self) -> datetime | None:
        """When protection lapses: FOREVER for "true", None when it never protected (invalid)."""
        if self.kind == "permanent":
            return FOREVER
        return self.until if self.kind == "duration" else None

    def to_dict(self, now: datetime) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pod": f"{self.namespace}/{self.name}",
            "value": self.value,
            "kind": self.kind,
            "active": self.active_at(now),
            "until": _ts(self.until),
        }
        if self.kind == "duration":
            out["note"] = "durations need Karpenter v1.12+; older releases ignore any value but 'true'"
        elif self.kind == "invalid":
            out["note"] = "not 'true' and not a positive Go duration: Karpenter ignores it"
        return out


def protection_of(pod: Pod) -> Protection | None:
    value = pod.meta.annotations.get(DO_NOT_DISRUPT)
    if value is None:
        return None
    if value == "true":
        return Protection(pod.namespace, pod.name, value, "permanent", None)
    duration = parse_go_duration(value)
    if duration is None or duration <= timedelta(0):
        return Protection(pod.namespace, pod.name, value, "invalid", None)
    start = pod.started
    # No start time yet: Karpenter keeps the pod protected ("fail safe").
    until = start + duration if start is not None else FOREVER
    return Protection(pod.namespace, pod.name, value, "duration", until)


@dataclass(frozen=True, slots=True)
class Disruption:
    """One way a node (and the pods on it) can be taken away, and the earliest time it can happen."""

    by: str  # expiry | maxLifetime | drift | consolidation
    at: datetime | None  # None: possible but not predictable (a future AMI release)
    forceful: bool  # not rate-limited by budgets, not stopped by do-not-disrupt
    certain: bool  # will happen at `at` (expiry, an existing drift); False: may happen
    detail: str

    def sort_key(self) -> tuple[datetime, int]:
        return (self.at or FOREVER, 0 if self.certain else 1)

    def to_dict(self) -> dict[str, Any]:
        return {
            "by": self.by,
            "at": _ts(self.at),
            "forceful": self.forceful,
            "certain": self.certain,
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True)
class Allowance:
    reason: str
    now: int | None  # None: no active budget limits this reason
    next_at: datetime | None

    def to_dict(self) -> dict[str, Any]:
        return {"now": self.now, "nextAt": _ts(self.next_at)}


@dataclass(frozen=True, slots=True)
class NodeLifecycle:
    name: str
    node_pool: str | None
    node_claim: str | None
    instance_type: str | None
    compute_type: str
    created: datetime | None
    expire_after: Setting
    max_lifetime: timedelta | None
    termination_grace_period: Setting
    expires_at: datetime | None
    expiry_reason: str | None  # expireAfter | maxLifetime
    forced_by: datetime | None  # instance gone at the latest (expiry + TGP, or the Auto Mode cap)
    drifted: bool | None
    drift_reason: str | None
    drifted_since: datetime | None
    consolidation_policy: Setting
    consolidate_after: Setting
    node_do_not_disrupt: str | None
    protections: tuple[Protection, ...]
    budgets: tuple[BudgetState, ...] | None
    budgets_defaulted: bool
    allowances: tuple[Allowance, ...]
    pool_nodes: int
    pool_disrupting: int
    disruptions: tuple[Disruption, ...]
    gpu_pods: int
    notes: tuple[str, ...] = ()

    @property
    def next_disruption(self) -> Disruption | None:
        timed = [d for d in self.disruptions if d.at is not None]
        return min(timed, key=Disruption.sort_key) if timed else None

    def to_dict(self, now: datetime) -> dict[str, Any]:
        nxt = self.next_disruption
        return {
            "name": self.name,
            "nodePool": self.node_pool,
            "nodeClaim": self.node_claim,
            "instanceType": self.instance_type,
            "computeType": self.compute_type,
            "createdAt": _ts(self.created),
            "expireAfter": self.expire_after.value,
            "expireAfterSource": self.expire_after.source,
            "maxLifetime": _hours(self.max_lifetime) if self.max_lifetime else None,
            "terminationGracePeriod": self.termination_grace_period.value,
            "terminationGracePeriodSource": self.termination_grace_period.source,
            "expiresAt": _ts(self.expires_at),
            "expiryReason": self.expiry_reason,
            "forcedTerminationBy": _ts(self.forced_by),
            "drifted": self.drifted,
            "driftReason": self.drift_reason,
            "driftedSince": _ts(self.drifted_since),
            "consolidationPolicy": self.consolidation_policy.value,
            "consolidationPolicySource": self.consolidation_policy.source,
            "consolidateAfter": self.consolidate_after.value,
            "doNotDisrupt": {
                "node": self.node_do_not_disrupt,
                "pods": [p.to_dict(now) for p in self.protections],
            },
            "budgets": None if self.budgets is None else [_budget_dict(b) for b in self.budgets],
            "budgetsDefaulted": self.budgets_defaulted,
            "disruptionAllowed": {a.reason: a.to_dict() for a in self.allowances},
            "poolNodes": self.pool_nodes,
            "poolDisrupting": self.pool_disrupting,
            "nextDisruption": nxt.to_dict() if nxt else None,
            "disruptions": [d.to_dict() for d in self.disruptions],
            "gpuPods": self.gpu_pods,
            "notes": list(self.notes),
        }


def _budget_dict(state: BudgetState) -> dict[str, Any]:
    b = state.spec.budget
    return {
        "nodes": b.nodes,
        "schedule": b.schedule,
        "duration": b.duration,
        "reasons": list(b.reasons),
        "default": state.spec.default,
        "valid": state.spec.error is None,
        "error": state.spec.error,
        "activeNow": state.active,
        "activeUntil": _ts(state.active_until),
        "nextActiveAt": _ts(state.next_start),
        "nextActiveUntil": _ts(state.next_end),
    }


@dataclass(frozen=True, slots=True)
class Survival:
    needs: str
    deadline: datetime
    verdict: str  # yes | no | at-risk
    reasons: tuple[str, ...]
    causes: tuple[Disruption, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "needs": self.needs,
            "until": _ts(self.deadline),
            "verdict": self.verdict,
            "survives": self.verdict == "yes",
            "reasons": list(self.reasons),
        }


@dataclass(frozen=True, slots=True)
class PodLifecycle:
    namespace: str
    name: str
    node: str
    node_pool: str | None
    started: datetime | None
    requests: Mapping[str, str]
    protection: Protection | None
    disruptions: tuple[Disruption, ...]
    risk: str  # high | medium | low
    survival: Survival | None = None

    @property
    def next_disruption(self) -> Disruption | None:
        timed = [d for d in self.disruptions if d.at is not None]
        return min(timed, key=Disruption.sort_key) if timed else None

    def to_dict(self, now: datetime) -> dict[str, Any]:
        nxt = self.next_disruption
        running = now - self.started if self.started else None
        out: dict[str, Any] = {
            "namespace": self.namespace,
            "name": self.name,
            "node": self.node,
            "nodePool": self.node_pool,
            "startedAt": _ts(self.started),
            "runningSeconds": int(running.total_seconds()) if running is not None else None,
            "runningFor": format_age(running) if running is not None else None,
            "requests": dict(self.requests),
            "doNotDisrupt": self.protection.to_dict(now) if self.protection else None,
            "nextDisruption": nxt.to_dict() if nxt else None,
            "disruptions": [d.to_dict() for d in self.disruptions],
            "risk": self.risk,
        }
        if self.survival is not None:
            out["survival"] = self.survival.to_dict()
        return out


@dataclass(frozen=True, slots=True)
class LifecycleReport:
    now: datetime
    nodes: tuple[NodeLifecycle, ...]
    pods: tuple[PodLifecycle, ...]
    findings: tuple[Finding, ...] = field(default=())

    @property
    def survival_failed(self) -> bool:
        return any(p.survival is not None and p.survival.verdict != "yes" for p in self.pods)

    def to_dict(self) -> dict[str, Any]:
        return {
            "apiVersion": "kubectl-gpu/v1",
            "kind": "LifecycleReport",
            "now": _ts(self.now),
            "nodes": [n.to_dict(self.now) for n in self.nodes],
            "pods": [p.to_dict(self.now) for p in self.pods],
            "findings": [f.to_dict() for f in self.findings],
        }


# --------------------------------------------------------------------------- settings


def is_builtin_pool(pool: NodePool) -> bool:
    """Auto Mode's own `general-purpose` / `system` pools (managed by EKS, not editable)."""
    if pool.name not in AUTO_MODE_BUILTIN_POOLS:
        return False
    ref = pool.node_class_ref
    return pool.meta.labels.get("app.kubernetes.io/managed-by") == "eks" or (
        ref is not None and ref.group == "eks.amazonaws.com"
    )


def expire_after_of(claim: NodeClaim | None, pool: NodePool | None) -> Setting:
    """The NodeClaim's value wins (it is what the expiration controller reads); else the pool's, else the
    documented default: 336h for the Auto Mode built-in pools, the CRD's 720h for every other pool."""
    if claim is not None and claim.expire_after:
        return Setting(claim.expire_after, "nodeclaim")
    if pool is not None and pool.expire_after:
        return Setting(pool.expire_after, "nodepool")
    if pool is not None and is_builtin_pool(pool):
        return Setting(AUTO_MODE_BUILTIN_EXPIRE_AFTER, "automode-builtin-default")
    if pool is not None or claim is not None:
        return Setting(KARPENTER_DEFAULT_EXPIRE_AFTER, "karpenter-default")
    return Setting(None, "unknown")


def termination_grace_of(claim: NodeClaim | None, pool: NodePool | None) -> Setting:
    if claim is not None and claim.termination_grace_period:
        return Setting(claim.termination_grace_period, "nodeclaim")
    if pool is not None and pool.termination_grace_period:
        return Setting(pool.termination_grace_period, "nodepool")
    if pool is not None and is_builtin_pool(pool):
        return Setting(AUTO_MODE_BUILTIN_TGP, "automode-builtin-default")
    if pool is not None or claim is not None:
        return Setting(None, "unset")
    return Setting(None, "unknown")


def _duration(setting: Setting) -> timedelta | None:
    if setting.value is None or setting.value == "Never":
        return None
    try:
        return parse_duration(setting.value)
    except TimeError:
        return None


# --------------------------------------------------------------------------- per node


def _is_deleting(node: Node) -> bool:
    meta = node.raw.get("metadata")
    deleting = isinstance(meta, dict) and bool(meta.get("deletionTimestamp"))
    return deleting or any(t.key == "karpenter.sh/disrupted" for t in node.taints)


_BLOCK_REASONS = ("DisruptionBlocked", "Unconsolidatable")
EVENT_WINDOW = timedelta(hours=1)


def _blocked_events(state: ClusterState, node: Node, claim: NodeClaim | None, now: datetime) -> list[str]:
    """What Karpenter / Auto Mode said in the last hour about why it could not disrupt this node (PDBs and
    other blockers this tool does not evaluate itself)."""
    events = list(state.events_for("Node", node.name))
    if claim is not None:
        events += state.events_for("NodeClaim", claim.name)
    latest: dict[str, tuple[datetime, str]] = {}
    for event in events:
        seen = event.last_seen
        if event.reason not in _BLOCK_REASONS or seen is None or not now - EVENT_WINDOW <= seen <= now:
            continue
        if event.reason not in latest or seen > latest[event.reason][0]:
            latest[event.reason] = (seen, event.message)
    return [f"{reason} at {_ts(seen)}: {message}" for reason, (seen, message) in sorted(latest.items())]


def _pool_counts(state: ClusterState, pool: str) -> tuple[int, int]:
    """(nodes, disrupting) as BuildDisruptionBudgetMapping counts them for one pool."""
    total = disrupting = 0
    for node in state.nodes:
        if node.labels.get("karpenter.sh/nodepool") != pool:
            continue
        claim = state.nodeclaim_by_node.get(node.name)
        if claim is not None:
            cond = claim.condition("InstanceTerminating")
            if cond is not None and cond.is_true:
                continue
        total += 1
        if not node.ready or _is_deleting(node):
            disrupting += 1
    return total, disrupting


def _ami_tracks_latest(node_class: NodeClass | None) -> bool:
    """A self-managed EC2NodeClass whose AMI alias follows `@latest` drifts on every new AMI."""
    if node_class is None or node_class.kind != "EC2NodeClass":
        return False
    spec = node_class.raw.get("spec")
    terms = spec.get("amiSelectorTerms") if isinstance(spec, dict) else None
    return isinstance(terms, list) and any(
        isinstance(t, dict) and str(t.get("alias", "")).endswith("@latest") for t in terms
    )


@dataclass(frozen=True, slots=True)
class _PoolView:
    """A NodePool's budgets evaluated once per report (every node of the pool shares them)."""

    budgets: PoolBudgets
    nodes: int
    disrupting: int
    allowances: tuple[Allowance, ...]
    states: tuple[BudgetState, ...]


def _pool_view(pool: NodePool, state: ClusterState, now: datetime, cache: dict[str, _PoolView]) -> _PoolView:
    view = cache.get(pool.name)
    if view is None:
        budgets = PoolBudgets(pool.budgets)
        nodes, disrupting = _pool_counts(state, pool.name)
        allowances = []
        for reason in REASONS:
            allowed = budgets.effective(reason, now, max(nodes, 1), disrupting)
            allowances.append(
                Allowance(
                    reason,
                    None if allowed == UNBOUNDED else allowed,
                    budgets.next_allowed(reason, now, max(nodes, 1), disrupting),
                )
            )
        view = cache[pool.name] = _PoolView(
            budgets, nodes, disrupting, tuple(allowances), tuple(budgets.states(now))
        )
    return view


@dataclass
class _Context:
    """What one node's analysis computed, reused for its pods."""

    node: Node
    life: NodeLifecycle
    budgets: PoolBudgets | None
    tgp: timedelta | None
    policy: str | None
    consolidation_enabled: bool
    ami_drift_expected: bool
    protections: dict[str, Protection]  # pod key -> protection


def _block_until(protections: Iterable[Protection], now: datetime) -> datetime | None:
    """Until when active do-not-disrupt pods hold off voluntary disruption (FOREVER for "true")."""
    ends = [p.ends for p in protections if p.active_at(now) and p.ends is not None]
    return max(ends) if ends else None


def _node_context(node: Node, state: ClusterState, now: datetime, pools: dict[str, _PoolView]) -> _Context:
    labels = node.labels
    claim = state.nodeclaim_by_node.get(node.name)
    pool_name = labels.get("karpenter.sh/nodepool") or (claim.node_pool if claim else None)
    pool = state.nodepool_by_name.get(pool_name) if pool_name else None
    ctype = compute_type(labels)
    notes: list[str] = []
    if pool_name is None and claim is None:
        notes.append(
            "not managed by Karpenter or EKS Auto Mode (no karpenter.sh/nodepool label, no NodeClaim)"
        )
    elif pool is None:
        notes.append(f"NodePool {pool_name} was not read: budgets and consolidation policy unknown")
    if pool_name and claim is None and "nodeclaims" not in state.absent:
        notes.append(
            "no NodeClaim for this node was read: drift status and the NodeClaim's own settings unknown"
        )

    blocked = _blocked_events(state, node, claim, now)
    notes.extend(blocked)
    created = claim.meta.created if claim is not None and claim.meta.created else node.meta.created
    expire = expire_after_of(claim, pool)
    tgp_setting = termination_grace_of(claim, pool)
    expire_delta = _duration(expire)
    tgp = _duration(tgp_setting)
    cap = AUTO_MODE_MAX_LIFETIME if ctype == "auto" else None

    expires_at: datetime | None = None
    reason: str | None = None
    forced_by: datetime | None = None
    if created is not None:
        by_expire = created + expire_delta if expire_delta is not None else None
        by_cap = created + cap if cap is not None else None
        if by_expire is not None and (by_cap is None or by_expire <= by_cap):
            expires_at, reason = by_expire, "expireAfter"
        elif by_cap is not None:
            expires_at, reason = by_cap, "maxLifetime"
        if expires_at is not None:
            forced_by = expires_at + tgp if tgp is not None and reason == "expireAfter" else None
            if reason == "maxLifetime":
                forced_by = expires_at
            elif by_cap is not None:
                forced_by = min(forced_by, by_cap) if forced_by is not None else by_cap

    drifted: bool | None = None
    drift_reason = None
    drifted_since = None
    if claim is not None:
        cond = claim.condition("Drifted")
        drifted = cond is not None and cond.is_true
        if cond is not None and cond.is_true:
            drift_reason = cond.reason
            drifted_since = cond.last_transition

    if pool is not None:
        policy = Setting(
            pool.consolidation_policy or DEFAULT_POLICY,
            "nodepool" if pool.consolidation_policy else "karpenter-default",
        )
        after = Setting(
            pool.consolidate_after or "0s", "nodepool" if pool.consolidate_after else "karpenter-default"
        )
    else:
        policy = Setting(None, "unknown")
        after = Setting(None, "unknown")

    pods = [p for p in state.pods_by_node.get(node.name, []) if not p.terminated]
    protections = {f"{p.namespace}/{p.name}": prot for p in pods if (prot := protection_of(p)) is not None}
    gpu_pods = sum(1 for p in pods if _wants_accelerator(p))
    node_dnd = node.meta.annotations.get(DO_NOT_DISRUPT)
    node_blocked = node_dnd == "true"

    view = _pool_view(pool, state, now, pools) if pool is not None else None
    budgets = view.budgets if view is not None else None
    pool_nodes, pool_disrupting = (view.nodes, view.disrupting) if view is not None else (0, 0)
    allowances = list(view.allowances) if view is not None else []

    consolidation_enabled = (
        policy.value in ("WhenEmptyOrUnderutilized", "Balanced")
        and after.value != "Never"
        and not node_blocked
    )
    node_class = None
    if pool is not None and pool.node_class_ref is not None:
        node_class = state.nodeclass_by_ref.get((pool.node_class_ref.kind, pool.node_class_ref.name))
    ami_drift_expected = ctype == "auto" or _ami_tracks_latest(node_class)

    life = NodeLifecycle(
        name=node.name,
        node_pool=pool_name,
        node_claim=claim.name if claim else None,
        instance_type=labels.get("node.kubernetes.io/instance-type"),
        compute_type=ctype,
        created=created,
        expire_after=expire,
        max_lifetime=cap,
        termination_grace_period=tgp_setting,
        expires_at=expires_at,
        expiry_reason=reason,
        forced_by=forced_by,
        drifted=drifted,
        drift_reason=drift_reason,
        drifted_since=drifted_since,
        consolidation_policy=policy,
        consolidate_after=after,
        node_do_not_disrupt=node_dnd,
        protections=tuple(sorted(protections.values(), key=lambda p: (p.namespace, p.name))),
        budgets=view.states if view is not None else None,
        budgets_defaulted=budgets.defaulted if budgets is not None else False,
        allowances=tuple(allowances),
        pool_nodes=pool_nodes,
        pool_disrupting=pool_disrupting,
        disruptions=(),
        gpu_pods=gpu_pods,
        notes=tuple(notes),
    )
    ctx = _Context(
        node,
        life,
        budgets,
        tgp,
        policy.value,
        consolidation_enabled and pool is not None,
        ami_drift_expected,
        protections,
    )
    node_disruptions = _disruptions(ctx, None, now)
    ctx.life = _replace_disruptions(life, node_disruptions)
    return ctx


def _replace_disruptions(life: NodeLifecycle, disruptions: tuple[Disruption, ...]) -> NodeLifecycle:
    return replace(life, disruptions=disruptions)


def _next_allowed(ctx: _Context, reason: str, start: datetime) -> datetime | None:
    if ctx.budgets is None:
        return start
    life = ctx.life
    return ctx.budgets.next_allowed(reason, start, max(life.pool_nodes, 1), life.pool_disrupting)


def _disruptions(ctx: _Context, pod: Pod | None, now: datetime) -> tuple[Disruption, ...]:
    """Every way the node - or, with `pod`, that pod - can be disrupted, each at its earliest time."""
    life = ctx.life
    key = f"{pod.namespace}/{pod.name}" if pod is not None else None
    own = ctx.protections.get(key) if key is not None else None
    pod_tgps = _pod_tgps(pod) if pod is not None else timedelta(0)
    out: list[Disruption] = []
    node_blocked = life.node_do_not_disrupt == "true"

    # Expiry (forceful): the drain starts at expiresAt whatever the budgets and annotations say.
    if life.expires_at is not None and life.expiry_reason is not None:
        by = life.expiry_reason if life.expiry_reason == "maxLifetime" else "expiry"
        what = (
            "EKS Auto Mode's 21-day maximum node lifetime"
            if by == "maxLifetime"
            else f"expireAfter {life.expire_after.value} ({life.expire_after.source})"
        )
        at: datetime | None = life.expires_at
        detail = f"{what}: forceful, not limited by disruption budgets or do-not-disrupt"
        if own is not None and own.active_at(life.expires_at) and by == "expiry":
            ends = own.ends if own.ends is not None and own.ends != FOREVER else None
            forced = life.forced_by - pod_tgps if life.forced_by is not None else None
            candidates = [t for t in (ends, forced) if t is not None]
            at = max(min(candidates), life.expires_at) if candidates else None
            if at is None:
                detail += (
                    "; the drain starts then but cannot evict this do-not-disrupt pod (no terminationGracePeriod): "
                    "the node stays half-drained until the pod ends"
                )
            else:
                detail += "; do-not-disrupt holds this pod until the terminationGracePeriod (or its duration) runs out"
        if at is not None:  # None: this do-not-disrupt pod outlives the drain (see LIFECYCLE_DND_WITHOUT_TGP)
            out.append(Disruption(by, at, True, True, detail))

    # Drift (graceful, budget "Drifted"): only for a node already marked Drifted.
    others = _block_until(ctx.protections.values(), now)
    if life.drifted:
        reason_text = f"NodeClaim Drifted ({life.drift_reason or 'no reason'})"
        if node_blocked:
            pass  # the node's own do-not-disrupt=true keeps drift from even selecting it
        elif ctx.tgp is not None:
            start = _next_allowed(ctx, "Drifted", now)
            if start is not None:
                at_pod: datetime | None = start
                detail = f"{reason_text}: replacement when the Drifted budget allows; terminationGracePeriod {life.termination_grace_period.value} lets drift proceed past do-not-disrupt"
                if own is not None and own.active_at(start):
                    ends = own.ends if own.ends not in (None, FOREVER) else None
                    deadline = start + ctx.tgp - pod_tgps
                    at_pod = min(t for t in (ends, deadline) if t is not None)
                out.append(Disruption("drift", at_pod, False, True, detail))
        else:
            earliest = now if others is None else max(now, others)
            if earliest != FOREVER:
                start = _next_allowed(ctx, "Drifted", earliest)
                if start is not None:
                    detail = f"{reason_text}: replacement when the Drifted budget allows"
                    if others is not None:
                        detail += " and do-not-disrupt has lapsed"
                    out.append(Disruption("drift", start, False, True, detail))

    # Consolidation (graceful, budget "Underutilized"): may happen when the pods fit elsewhere.
    if ctx.consolidation_enabled:
        earliest = now if others is None else max(now, others)
        if earliest != FOREVER:
            start = _next_allowed(ctx, "Underutilized", earliest)
            if start is not None:
                out.append(
                    Disruption(
                        "consolidation",
                        start,
                        False,
                        False,
                        f"consolidationPolicy {ctx.policy}: the node may be removed or replaced with a cheaper one "
                        "when its pods fit elsewhere (budget Underutilized)",
                    )
                )

    # A future drift (new AMI) cannot be dated; say it is possible where it is.
    if (
        not life.drifted
        and ctx.ami_drift_expected
        and not node_blocked
        and not (ctx.budgets is not None and ctx.budgets.blocked_always("Drifted"))
        and (ctx.tgp is not None or others is None or others != FOREVER)
    ):
        source = (
            "EKS Auto Mode ships a new AMI about weekly"
            if life.compute_type == "auto"
            else ("the EC2NodeClass follows an @latest AMI alias")
        )
        out.append(
            Disruption(
                "drift",
                None,
                False,
                False,
                f"{source}: the node will be marked Drifted and replaced within the Drifted budget",
            )
        )
    return tuple(sorted(out, key=Disruption.sort_key))


def _pod_tgps(pod: Pod) -> timedelta:
    value = pod.spec.get("terminationGracePeriodSeconds")
    seconds = value if isinstance(value, int) and not isinstance(value, bool) else _DEFAULT_POD_TGPS
    return timedelta(seconds=seconds)


def _wants_accelerator(pod: Pod) -> bool:
    return bool(accelerator_requests(pod.requests) or accelerator_requests(pod.limits) or pod.resource_claims)


# --------------------------------------------------------------------------- per pod


def _risk(disruptions: Iterable[Disruption], now: datetime) -> str:
    timed = [d.at for d in disruptions if d.at is not None]
    undated = any(d.at is None for d in disruptions)
    first = min(timed) if timed else None
    if first is not None and first - now <= SOON:
        return "high"
    if (first is not None and first - now <= WEEK) or undated:
        return "medium"
    return "low"


def _survival(disruptions: Iterable[Disruption], now: datetime, needs: timedelta, text: str) -> Survival:
    deadline = now + needs
    verdict = "yes"
    reasons: list[str] = []
    causes: list[Disruption] = []
    for d in disruptions:
        if d.at is None:
            reasons.append(f"possible {d.by} at an unpredictable time: {d.detail}")
            causes.append(d)
            verdict = "no" if verdict == "no" else "at-risk"
        elif d.at < deadline:
            causes.append(d)
            kind = "will" if d.certain else "may"
            reasons.append(f"{d.by} {kind} disrupt it at {_ts(d.at)}: {d.detail}")
            if d.certain:
                verdict = "no"
            elif verdict == "yes":
                verdict = "at-risk"
    return Survival(text, deadline, verdict, tuple(reasons), tuple(causes))


def _pod_life(pod: Pod, ctx: _Context, now: datetime, needs: tuple[timedelta, str] | None) -> PodLifecycle:
    disruptions = _disruptions(ctx, pod, now)
    acc = {**accelerator_requests(pod.limits), **accelerator_requests(pod.requests)}
    requests = {k: str(int(v)) if v == v.to_integral_value() else str(v) for k, v in sorted(acc.items())}
    return PodLifecycle(
        namespace=pod.namespace,
        name=pod.name,
        node=ctx.node.name,
        node_pool=ctx.life.node_pool,
        started=pod.started or pod.meta.created,
        requests=requests,
        protection=ctx.protections.get(f"{pod.namespace}/{pod.name}"),
        disruptions=disruptions,
        risk=_risk(disruptions, now),
        survival=_survival(disruptions, now, needs[0], needs[1]) if needs is not None else None,
    )


# --------------------------------------------------------------------------- findings


def _node_findings(ctx: _Context, now: datetime) -> list[Finding]:
    life = ctx.life
    ref = ObjectRef("Node", life.name)
    out: list[Finding] = []
    gpu_pods = life.gpu_pods
    if life.expires_at is not None:
        left = life.expires_at - now
        what = (
            "the 21-day Auto Mode maximum lifetime"
            if life.expiry_reason == "maxLifetime"
            else (f"expireAfter {life.expire_after.value}")
        )
        if left <= timedelta(0):
            out.append(
                Finding(
                    "LIFECYCLE_NODE_EXPIRED",
                    Severity.WARNING,
                    ref,
                    f"node passed {what} at {_ts(life.expires_at)}; Karpenter is draining it (forceful: "
                    f"budgets and do-not-disrupt do not stop expiry)"
                    + (
                        f"; instance terminated by {_ts(life.forced_by)} at the latest"
                        if life.forced_by
                        else ""
                    ),
                    "nothing to undo: let replacement capacity come up; move long jobs to a fresh node",
                    "lifecycle",
                )
            )
        elif left <= SOON:
            out.append(
                Finding(
                    "LIFECYCLE_NODE_EXPIRING",
                    Severity.WARNING if gpu_pods else Severity.INFO,
                    ref,
                    f"node reaches {what} at {_ts(life.expires_at)} ({_in(left)}); {gpu_pods} GPU pod(s) "
                    "will be evicted then (expiry is forceful)",
                    "checkpoint or move the jobs now; budgets and do-not-disrupt cannot postpone expiry",
                    "lifecycle",
                )
            )
    if life.drifted:
        nxt = next((d for d in life.disruptions if d.by == "drift" and d.at is not None), None)
        if life.node_do_not_disrupt == "true":
            when = "blocked by the node's karpenter.sh/do-not-disrupt=true annotation"
        elif nxt is None:
            holding = [f"{p.namespace}/{p.name}" for p in life.protections if p.kind == "permanent"]
            if holding and ctx.tgp is None:
                when = (
                    f"blocked: do-not-disrupt pod(s) {', '.join(holding)} hold it (no terminationGracePeriod lets "
                    "drift override them)"
                )
            elif ctx.budgets is not None and ctx.budgets.errors:
                when = "blocked: a disruption budget of the pool is invalid, so Karpenter allows no drift"
            else:
                when = "blocked: no budget allows Drifted disruption in the next 35 days"
        else:
            when = f"replacement can start {_when(nxt.at, now)}"
        out.append(
            Finding(
                "LIFECYCLE_NODE_DRIFTED",
                Severity.WARNING
                if gpu_pods and nxt is not None and nxt.at is not None and nxt.at <= now
                else Severity.INFO,
                ref,
                f"NodeClaim {life.node_claim} is Drifted ({life.drift_reason or 'no reason given'}); {when}"
                + "".join(
                    f"; Karpenter reported {n}" for n in life.notes if n.startswith("DisruptionBlocked")
                ),
                "schedule replacement inside a budget window (budgets with reasons: [Drifted] and a schedule)",
                "lifecycle",
            )
        )
    active = [p for p in life.protections if life.expires_at is not None and p.active_at(life.expires_at)]
    if (
        active
        and life.expires_at is not None
        and life.expiry_reason == "expireAfter"
        and life.termination_grace_period.source == "unset"
    ):
        names = ", ".join(f"{p.namespace}/{p.name}" for p in active)
        cap = " (the 21-day Auto Mode cap still terminates it)" if life.compute_type == "auto" else ""
        out.append(
            Finding(
                "LIFECYCLE_DND_WITHOUT_TGP",
                Severity.WARNING,
                ref,
                f"do-not-disrupt pod(s) {names} still protected when the node expires at {_ts(life.expires_at)}, and no "
                f"terminationGracePeriod: expiry starts the drain but cannot evict them, leaving a half-drained "
                f"node{cap}",
                f"set spec.template.spec.terminationGracePeriod on NodePool {life.node_pool} (e.g. 24h) so the "
                "drain has an upper bound",
                "lifecycle",
            )
        )
    for p in life.protections:
        if p.kind == "invalid":
            out.append(
                Finding(
                    "LIFECYCLE_DND_INVALID",
                    Severity.WARNING,
                    ObjectRef("Pod", p.name, p.namespace),
                    f"karpenter.sh/do-not-disrupt={p.value!r} is neither 'true' nor a positive Go duration: "
                    "Karpenter ignores it (InvalidDoNotDisruptAnnotation) and the pod is not protected",
                    'use karpenter.sh/do-not-disrupt: "true" (or a duration such as "12h" on Karpenter v1.12+)',
                    "lifecycle",
                )
            )
    if life.node_do_not_disrupt is not None and life.node_do_not_disrupt != "true":
        out.append(
            Finding(
                "LIFECYCLE_NODE_DND_IGNORED",
                Severity.WARNING,
                ref,
                f"node annotation karpenter.sh/do-not-disrupt={life.node_do_not_disrupt!r} is ignored: on nodes "
                "Karpenter honours only the exact value 'true'",
                f'kubectl annotate node {life.name} karpenter.sh/do-not-disrupt="true" --overwrite',
                "lifecycle",
            )
        )
    return out


def _pool_findings(pool: NodePool) -> list[Finding]:
    out = []
    for spec in PoolBudgets(pool.budgets).errors:
        out.append(
            Finding(
                "LIFECYCLE_BUDGET_INVALID",
                Severity.ERROR,
                ObjectRef("NodePool", pool.name),
                f"disruption budget #{spec.index + 1} ({spec.describe()}): {spec.error}; Karpenter fails closed "
                "and allows no drift or consolidation in this pool at all",
                "fix the budget (five-field cron in UTC, day-of-week 0-6, duration like 8h or 30m, set together)",
                "lifecycle",
            )
        )
    return out


def _survival_fix(survival: Survival) -> str:
    parts = []
    if any(d.forceful for d in survival.causes):
        parts.append(
            "expiry cannot be postponed on this node: restart the job on a fresh node (a new NodeClaim gets its "
            "full lifetime) or checkpoint before then"
        )
    if any(not d.forceful for d in survival.causes):
        parts.append(
            'block voluntary disruption: karpenter.sh/do-not-disrupt: "true" on the pod (drift still proceeds '
            'when the NodeClaim has a terminationGracePeriod) and a budget {nodes: "0", reasons: [Drifted, '
            "Underutilized]} on the NodePool for the job's duration"
        )
    return "; ".join(parts)


def _pod_findings(life: PodLifecycle, now: datetime) -> list[Finding]:
    ref = ObjectRef("Pod", life.name, life.namespace)
    out = []
    nxt = life.next_disruption
    if life.risk == "high" and nxt is not None:
        out.append(
            Finding(
                "LIFECYCLE_POD_AT_RISK",
                Severity.WARNING,
                ref,
                f"GPU pod on {life.node} can be disrupted {_when(nxt.at, now)} by {nxt.by}: {nxt.detail}",
                'checkpoint now; for voluntary disruption add karpenter.sh/do-not-disrupt: "true" to the pod; '
                "expiry cannot be postponed",
                "lifecycle",
            )
        )
    if life.survival is not None and life.survival.verdict != "yes":
        s = life.survival
        no = s.verdict == "no"
        out.append(
            Finding(
                "LIFECYCLE_POD_WILL_NOT_SURVIVE" if no else "LIFECYCLE_POD_SURVIVAL_AT_RISK",
                Severity.ERROR if no else Severity.WARNING,
                ref,
                f"needs {s.needs} more (until {_ts(s.deadline)}): " + "; ".join(s.reasons),
                _survival_fix(s),
                "lifecycle",
            )
        )
    return out


# --------------------------------------------------------------------------- entry point


def analyse_lifecycle(
    state: ClusterState,
    catalog: Catalog,
    now: datetime,
    *,
    pod: tuple[str, str] | None = None,
    needs: tuple[timedelta, str] | None = None,
    include_all: bool = False,
) -> LifecycleReport:
    """Lifecycle of every accelerator node (with `include_all`, every Karpenter node) and of the running
    accelerator pods on them. `pod` = (namespace, name) narrows to that pod and its node; `needs` = (how
    long, as written) asks whether each listed pod survives that long. The caller checks that `pod` exists
    and is bound to a node."""
    if pod is not None:
        target = next(p for p in state.pods if (p.namespace, p.name) == pod)
        nodes = [state.node_by_name[target.node_name]] if target.node_name in state.node_by_name else []
    else:
        nodes = [
            n
            for n in state.nodes
            if build_node_row(n, state, catalog).accelerator is not None
            or (include_all and compute_type(n.labels) != "other")
        ]
    pools: dict[str, _PoolView] = {}
    contexts = [_node_context(n, state, now, pools) for n in nodes]
    contexts.sort(key=lambda c: (c.life.node_pool or "~", c.life.expires_at or FOREVER, c.life.name))

    pods: list[PodLifecycle] = []
    for ctx in contexts:
        for p in state.pods_by_node.get(ctx.node.name, []):
            if pod is not None:
                if (p.namespace, p.name) != pod:
                    continue
            elif p.phase != "Running" or not _wants_accelerator(p):
                continue
            pods.append(_pod_life(p, ctx, now, needs))
    pods.sort(key=lambda p: (p.started or now, p.namespace, p.name))

    findings: list[Finding] = []
    pools_seen: set[str] = set()
    for ctx in contexts:
        pool = state.nodepool_by_name.get(ctx.life.node_pool) if ctx.life.node_pool else None
        findings.extend(_node_findings(ctx, now))
        if pool is not None and pool.name not in pools_seen:
            pools_seen.add(pool.name)
            findings.extend(_pool_findings(pool))
    for life in pods:
        findings.extend(_pod_findings(life, now))
    findings.sort(key=Finding.sort_key)
    return LifecycleReport(now, tuple(c.life for c in contexts), tuple(pods), tuple(findings))
