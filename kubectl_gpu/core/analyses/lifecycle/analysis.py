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
* **Budgets** (see `core/karpenter/budgets.py`) rate-limit drift (`Drifted`) and consolidation (`Underutilized`,
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

from datetime import datetime, timedelta

from kubectl_gpu.core.accelerators.nodes import all_node_rows, compute_type
from kubectl_gpu.core.analyses.lifecycle.disruptions import NodeContext
from kubectl_gpu.core.analyses.lifecycle.nodes import EVENT_WINDOW as EVENT_WINDOW
from kubectl_gpu.core.analyses.lifecycle.nodes import PoolView, node_context
from kubectl_gpu.core.analyses.lifecycle.pods import accelerator_pods, pod_lifecycle
from kubectl_gpu.core.analyses.lifecycle.report import Allowance as Allowance
from kubectl_gpu.core.analyses.lifecycle.report import (
    Disruption,
    LifecycleReport,
    NodeLifecycle,
    PodLifecycle,
    Survival,
)
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.k8s.durations import FOREVER as FOREVER
from kubectl_gpu.core.k8s.durations import SOON as SOON
from kubectl_gpu.core.k8s.durations import WEEK as WEEK
from kubectl_gpu.core.k8s.durations import countdown, timestamp, when_text
from kubectl_gpu.core.k8s.models import NodePool
from kubectl_gpu.core.k8s.state import ClusterState

# The analysis lives in the lifecycle_* modules and do_not_disrupt; a name imported `as` itself is
# re-exported, so everything this module defined before the split is still importable from here.
from kubectl_gpu.core.karpenter.budgets import PoolBudgets
from kubectl_gpu.core.karpenter.do_not_disrupt import DO_NOT_DISRUPT, Protection, blocks_disruption
from kubectl_gpu.core.karpenter.do_not_disrupt import protection_of as protection_of
from kubectl_gpu.core.karpenter.settings import (
    AUTO_MODE_BUILTIN_EXPIRE_AFTER as AUTO_MODE_BUILTIN_EXPIRE_AFTER,
)
from kubectl_gpu.core.karpenter.settings import AUTO_MODE_BUILTIN_POOLS as AUTO_MODE_BUILTIN_POOLS
from kubectl_gpu.core.karpenter.settings import AUTO_MODE_BUILTIN_TGP as AUTO_MODE_BUILTIN_TGP
from kubectl_gpu.core.karpenter.settings import AUTO_MODE_MAX_LIFETIME, Setting
from kubectl_gpu.core.karpenter.settings import DEFAULT_POLICY as DEFAULT_POLICY
from kubectl_gpu.core.karpenter.settings import (
    KARPENTER_DEFAULT_EXPIRE_AFTER as KARPENTER_DEFAULT_EXPIRE_AFTER,
)
from kubectl_gpu.core.karpenter.settings import expire_after_of as expire_after_of
from kubectl_gpu.core.karpenter.settings import is_builtin_pool as is_builtin_pool
from kubectl_gpu.core.karpenter.settings import termination_grace_of as termination_grace_of
from kubectl_gpu.core.report import Finding, ObjectRef, Severity

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
    "analyse",
    "analyse_lifecycle",
]


# --------------------------------------------------------------------------- findings


def _expiry_finding(life: NodeLifecycle, ref: ObjectRef, now: datetime) -> Finding | None:
    if life.expires_at is None:
        return None
    left = life.expires_at - now
    what = (
        "the 21-day Auto Mode maximum lifetime"
        if life.expiry_reason == "maxLifetime"
        else (f"expireAfter {life.expire_after.value}")
    )
    if left <= timedelta(0):
        return Finding(
            "LIFECYCLE_NODE_EXPIRED",
            Severity.WARNING,
            ref,
            f"node passed {what} at {timestamp(life.expires_at)}; Karpenter is draining it (forceful: "
            f"budgets and do-not-disrupt do not stop expiry)"
            + (
                f"; instance terminated by {timestamp(life.forced_by)} at the latest"
                if life.forced_by
                else ""
            ),
            "nothing to undo: let replacement capacity come up; move long jobs to a fresh node",
            "lifecycle",
        )
    if left <= SOON:
        return Finding(
            "LIFECYCLE_NODE_EXPIRING",
            Severity.WARNING if life.gpu_pods else Severity.INFO,
            ref,
            f"node reaches {what} at {timestamp(life.expires_at)} ({countdown(left)}); {life.gpu_pods} GPU pod(s) "
            "will be evicted then (expiry is forceful)",
            "checkpoint or move the jobs now; budgets and do-not-disrupt cannot postpone expiry",
            "lifecycle",
        )
    return None


def _drift_finding(ctx: NodeContext, ref: ObjectRef, now: datetime) -> Finding | None:
    life = ctx.life
    if not life.drifted:
        return None
    nxt = next((d for d in life.disruptions if d.by == "drift" and d.at is not None), None)
    if blocks_disruption(ctx.node.meta.annotations):
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
        when = f"replacement can start {when_text(nxt.at, now)}"
    return Finding(
        "LIFECYCLE_NODE_DRIFTED",
        Severity.WARNING
        if life.gpu_pods and nxt is not None and nxt.at is not None and nxt.at <= now
        else Severity.INFO,
        ref,
        f"NodeClaim {life.node_claim} is Drifted ({life.drift_reason or 'no reason given'}); {when}"
        + "".join(f"; Karpenter reported {n}" for n in life.notes if n.startswith("DisruptionBlocked")),
        "schedule replacement inside a budget window (budgets with reasons: [Drifted] and a schedule)",
        "lifecycle",
    )


def _do_not_disrupt_findings(ctx: NodeContext, ref: ObjectRef) -> list[Finding]:
    life = ctx.life
    out: list[Finding] = []
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
                f"do-not-disrupt pod(s) {names} still protected when the node expires at {timestamp(life.expires_at)}, and no "
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
    if life.node_do_not_disrupt is not None and not blocks_disruption(ctx.node.meta.annotations):
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


def _node_findings(ctx: NodeContext, now: datetime) -> list[Finding]:
    ref = ObjectRef("Node", ctx.life.name)
    found = [_expiry_finding(ctx.life, ref, now), _drift_finding(ctx, ref, now)]
    return [f for f in found if f is not None] + _do_not_disrupt_findings(ctx, ref)


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
                f"GPU pod on {life.node} can be disrupted {when_text(nxt.at, now)} by {nxt.by}: {nxt.detail}",
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
                f"needs {s.needs} more (until {timestamp(s.deadline)}): " + "; ".join(s.reasons),
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
        rows = all_node_rows(state, catalog)
        nodes = [
            n
            for n, row in zip(state.nodes, rows, strict=True)
            if row.accelerator is not None or (include_all and compute_type(n.labels) != "other")
        ]
    pools: dict[str, PoolView] = {}
    contexts = [node_context(n, state, now, pools) for n in nodes]
    contexts.sort(key=lambda c: (c.life.node_pool or "~", c.life.expires_at or FOREVER, c.life.name))

    pods: list[PodLifecycle] = []
    terms = state.scope.terms
    wanting = accelerator_pods(state)
    for ctx in contexts:
        for p in state.pods_by_node.get(ctx.node.name, []):
            if not state.scope.lists_pod(p, terms):
                continue
            if pod is not None:
                if (p.namespace, p.name) != pod:
                    continue
            elif p.phase != "Running" or id(p) not in wanting:
                continue
            pods.append(pod_lifecycle(p, ctx, now, needs))
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


def analyse(
    state: ClusterState,
    catalog: Catalog,
    now: datetime,
    *,
    pod: tuple[str, str] | None = None,
    needs: tuple[timedelta, str] | None = None,
    include_all: bool = False,
) -> LifecycleReport:
    return analyse_lifecycle(state, catalog, now, pod=pod, needs=needs, include_all=include_all)
