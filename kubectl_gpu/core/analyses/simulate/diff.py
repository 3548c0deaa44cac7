"""The difference between two runs of every analysis (before and after the changes), as effects: Pending
pods unblocked or blocked, findings that appear or go, lifecycle risk to running GPU pods, and cost.

Each part reads the reports' own models; findings are compared by (analysis, code, object), so a message
whose numbers moved is one finding, not one gone and one new. Pending findings are left to the pods' part.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from kubectl_gpu.core.analyses.diagnose import Suite
from kubectl_gpu.core.analyses.simulate.drift import Drift
from kubectl_gpu.core.analyses.simulate.effects import Direction, Effect
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.catalog.pricing import PriceBook
from kubectl_gpu.core.k8s.durations import timestamp
from kubectl_gpu.core.report import Finding, ObjectRef

__all__ = ["cost_effects", "drift_pod_effects", "finding_effects", "lifecycle_effects", "pending_effects"]

_CLEAR = ("NO_BLOCKER_FOUND", "PROVISIONING")
_RISK = {"low": 0, "medium": 1, "high": 2}


def _pods(suite: Suite) -> dict[tuple[str, str], Any]:
    report = suite.reports.get("pending")
    return {(p.namespace, p.name): p for p in getattr(report, "pods", ())}


def _cheapest(catalog: Catalog, prices: PriceBook, names: Any) -> tuple[str | None, Decimal | None]:
    """The cheapest of the fitting instance types (Karpenter launches the cheapest that fits)."""
    priced = sorted((p.usd_per_hour, n) for n in names or () if (p := prices.price(n)) is not None)
    if priced:
        return priced[0][1], priced[0][0]
    first = next(iter(names or ()), None)
    return first, None


def _launch(pod: Any, catalog: Catalog, prices: PriceBook) -> dict[str, Any]:
    """Where an unblocked pod goes: its nearest target, and for a NodePool the cheapest fitting type
    (read from the pending report's nearest evaluation: its target and fitting instance types)."""
    nearest = pod.evaluations[0] if pod.evaluations else None
    target = getattr(nearest, "target", None) or pod.nearest
    fitting = (
        getattr(nearest, "fitting_types", ()) if target is not None and target.kind == "NodePool" else ()
    )
    name, price = _cheapest(catalog, prices, fitting)
    return {
        "target": target.to_dict() if target is not None else None,
        "instanceType": name,
        "pricePerHour": float(price) if price is not None else None,
    }


def pending_effects(before: Suite, after: Suite, catalog: Catalog, prices: PriceBook) -> list[Effect]:
    old, new = _pods(before), _pods(after)
    out = []
    for key in sorted(set(old) | set(new)):
        ref = ObjectRef("Pod", key[1], key[0])
        was, now = old.get(key), new.get(key)
        was_clear = was is None or str(was.verdict) in _CLEAR
        if now is None:
            if was is not None and not was_clear:
                out.append(
                    Effect("pending", Direction.UNCHANGED, ref, f"no longer Pending here (was {was.verdict})")
                )
            continue
        verdict = str(now.verdict)
        if str(now.verdict) in _CLEAR:
            if was is not None and was_clear and str(was.verdict) == verdict:
                continue
            where = _launch(now, catalog, prices)
            target = where["target"]
            text = f"{target['kind']} {target['name']}" if target else "capacity in flight"
            typed = f", {where['instanceType']}" if where["instanceType"] else ""
            priced = f" (${where['pricePerHour']:.2f}/h)" if where["pricePerHour"] else ""
            since = f" (was {was.verdict})" if was is not None else " (a new replica)"
            detail = {"before": str(was.verdict) if was else None, "after": verdict, **where}
            out.append(
                Effect(
                    "pending", Direction.BETTER, ref, f"schedules: {text}{typed}{priced}{since}", None, detail
                )
            )
        elif verdict == "UNVERIFIED":
            detail = {"before": str(was.verdict) if was else None, "after": verdict}
            out.append(
                Effect("pending", Direction.UNCHANGED, ref, f"not known: {now.reason}", now.fix, detail)
            )
        elif was_clear:
            since = f"was {was.verdict}" if was is not None else "a new replica"
            detail = {"before": str(was.verdict) if was else None, "after": verdict}
            out.append(
                Effect(
                    "pending",
                    Direction.WORSE,
                    ref,
                    f"blocked: {verdict}: {now.reason} ({since})",
                    now.fix,
                    detail,
                )
            )
        elif was is not None and str(was.verdict) != verdict:
            detail = {"before": str(was.verdict), "after": verdict}
            out.append(
                Effect(
                    "pending",
                    Direction.UNCHANGED,
                    ref,
                    f"still blocked, now {verdict}: {now.reason}",
                    now.fix,
                    detail,
                )
            )
    return out


def _findings(suite: Suite) -> dict[tuple[str, str, ObjectRef], Finding]:
    return {(f.source, f.code, f.object): f for f in suite.diagnose.findings if f.source != "pending"}


def finding_effects(before: Suite, after: Suite, gone: frozenset[str] = frozenset()) -> list[Effect]:
    """Findings that appear or go; those about `gone` objects (`node/NAME`, `pod/NS/NAME` a deleted NodePool
    takes with it) are the blast radius's."""
    old, new = _findings(before), _findings(after)
    out = []
    for key in sorted(set(old) ^ set(new), key=lambda k: (k[0], k[1], str(k[2]))):
        finding = new.get(key) or old[key]
        if str(finding.object) in gone:
            continue
        appeared = key in new
        serious = finding.severity.rank > 0
        direction = (Direction.WORSE if appeared else Direction.BETTER) if serious else Direction.UNCHANGED
        verb = "new" if appeared else "gone"
        detail = {"source": finding.source, "code": finding.code, "severity": str(finding.severity)}
        text = f"{verb} {finding.severity} {finding.code} ({finding.source}): {finding.message}"
        out.append(
            Effect("findings", direction, finding.object, text, finding.fix if appeared else None, detail)
        )
    return out


def _gpu_pods(suite: Suite) -> dict[tuple[str, str], Any]:
    report = suite.reports.get("lifecycle")
    return {(p.namespace, p.name): p for p in getattr(report, "pods", ())}


def lifecycle_effects(before: Suite, after: Suite, gone_nodes: frozenset[str] = frozenset()) -> list[Effect]:
    """Risk that appears or goes for running GPU pods; pods on `gone_nodes` (a deleted NodePool's, which
    Karpenter deletes at once) are the blast radius's, not a lower risk."""
    old, new = _gpu_pods(before), _gpu_pods(after)
    out = []
    for key in sorted(set(old) & set(new)):
        was, now = old[key], new[key]
        if now.node in gone_nodes:
            continue
        first_was, first_now = was.next_disruption, now.next_disruption
        at_was = first_was.at if first_was else None
        at_now = first_now.at if first_now else None
        risk_was, risk_now = _RISK.get(was.risk, 0), _RISK.get(now.risk, 0)
        if risk_was == risk_now and at_was == at_now:
            continue
        sooner = at_now is not None and (at_was is None or at_now < at_was)
        direction = (
            Direction.WORSE if risk_now > risk_was or (risk_now == risk_was and sooner) else Direction.BETTER
        )
        how = f"{first_now.by} at {timestamp(at_now)}" if first_now and at_now else "no timed disruption"
        text = f"GPU pod risk {was.risk} -> {now.risk}; earliest disruption: {how} (was {timestamp(at_was) or 'none'})"
        detail = {
            "riskBefore": was.risk,
            "riskAfter": now.risk,
            "earliestBefore": timestamp(at_was),
            "earliestAfter": timestamp(at_now),
        }
        out.append(Effect("lifecycle", direction, ObjectRef("Pod", key[1], key[0]), text, None, detail))
    return out


def drift_pod_effects(before: Suite, found: Sequence[Drift]) -> list[Effect]:
    """Each running GPU pod on a node the change drifts: worse when the drift comes sooner than anything
    that could disrupt it before; a pod that holds its node (do-not-disrupt) is told, not counted."""
    old = _gpu_pods(before)
    out = []
    for d in found:
        if not d.certain or d.reason == "NodePoolDeleted":
            continue
        for key in d.gpu_pods:
            namespace, _, name = key.partition("/")
            ref = ObjectRef("Pod", name, namespace)
            node = was.node if (was := old.get((namespace, name))) is not None else None
            if key in d.blocked_by or f"node/{node}" in d.blocked_by:
                text = f"its node drifts ({d.reason}) but the pod holds it (do-not-disrupt): replaced once it ends"
                out.append(Effect("lifecycle", Direction.UNCHANGED, ref, text, None, {"reason": d.reason}))
                continue
            first = was.next_disruption if was is not None else None
            earlier = (
                first is not None
                and first.at is not None
                and d.first_at is not None
                and first.at <= d.first_at
            )
            when = timestamp(d.first_at) or "no time in the next 35 days"
            text = f"its node drifts ({d.reason}): replaced from {when}" + (
                " (already at risk as soon)" if earlier else ""
            )
            direction = Direction.UNCHANGED if earlier else Direction.WORSE
            out.append(
                Effect(
                    "lifecycle", direction, ref, text, None, {"reason": d.reason, "at": timestamp(d.first_at)}
                )
            )
    return out


def _totals(suite: Suite) -> Mapping[str, Any]:
    report = suite.reports.get("cost")
    return report.to_dict().get("totals", {}) if report is not None else {}


def cost_effects(before: Suite, after: Suite, launched: list[Effect], now: datetime) -> list[Effect]:
    """The idle $/h that changes, and the $/h of what the unblocked pods would launch (one node per pod at
    most: pods that share a node cost less)."""
    out = []
    old, new = _totals(before), _totals(after)
    idle_was, idle_now = old.get("idleCostPerHour"), new.get("idleCostPerHour")
    cluster = ObjectRef("Cluster", "cluster")
    if idle_was is not None and idle_now is not None and idle_was != idle_now:
        direction = Direction.WORSE if idle_now > idle_was else Direction.BETTER
        detail = {"idleCostPerHourBefore": idle_was, "idleCostPerHourAfter": idle_now}
        out.append(
            Effect(
                "cost",
                direction,
                cluster,
                f"idle GPU cost ${idle_was:.2f}/h -> ${idle_now:.2f}/h",
                None,
                detail,
            )
        )
    prices = [Decimal(str(e.detail["pricePerHour"])) for e in launched if e.detail.get("pricePerHour")]
    if prices:
        total = float(sum(prices))
        text = f"would launch up to ${total:.2f}/h of new nodes for {len(prices)} pod(s) (list prices, one node each)"
        out.append(Effect("cost", Direction.UNCHANGED, cluster, text, None, {"launchPerHourAtMost": total}))
    return out
