"""Entry point: one event (reason, message, reporting component) -> `ParsedMessage`.

The text shape decides the parser (a kube-scheduler FitError, a Karpenter `Failed to schedule pod, ...`, a
lifecycle message); the component only names the source. Without a component, the source is inferred from the
shape: Karpenter-shaped text is labelled `karpenter`, since EKS Auto Mode reported as `karpenter` too until
2025-09 and runs the same messages. Text nothing recognises becomes one `Unparsed` finding; this never raises.
"""

from __future__ import annotations

from kubectl_gpu.core.evidence.karpenter import parse_failure
from kubectl_gpu.core.evidence.lifecycle import kind_of, parse_lifecycle
from kubectl_gpu.core.evidence.model import Kind, ParsedMessage, Source, Unparsed
from kubectl_gpu.core.evidence.scheduler import parse_fit_error

AUTO_MODE_COMPONENT = "eks-auto-mode/compute"


def source_of(component: str | None) -> Source:
    """`default-scheduler` (or any `*scheduler`) / `karpenter` / `eks-auto-mode/compute` -> Source."""
    name = (component or "").strip().lower()
    if name.startswith("eks-auto-mode"):
        return Source.AUTO_MODE
    if name == "karpenter" or name.startswith("karpenter"):
        return Source.KARPENTER
    if name.endswith("scheduler"):
        return Source.SCHEDULER
    return Source.UNKNOWN


def parse_event_message(reason: str, message: str, component: str | None) -> ParsedMessage:
    """Parse one event message. `reason` is the event reason (`FailedScheduling`, `Nominated`, ...),
    `component` the reporting component / `kubectl describe` "From" column, or None when unknown."""
    reason = reason or ""
    message = message or ""
    text = message.strip()
    source = source_of(component)

    fit = parse_fit_error(text)
    if fit is not None:
        return ParsedMessage(
            source=source if component else Source.SCHEDULER,
            kind=Kind.FAILED_SCHEDULING,
            reason=reason,
            message=message,
            parts=fit.parts,
            total_nodes=fit.total_nodes,
            postfilter=fit.postfilter,
            preemption=fit.preemption,
        )

    karpenter = source in (Source.KARPENTER, Source.AUTO_MODE)
    bare_allowed = reason in ("FailedScheduling", "") and (karpenter or component is None)
    parts = parse_failure(text, require_envelope=not bare_allowed)
    if parts is not None:
        return ParsedMessage(
            source=source if component else Source.KARPENTER,
            kind=Kind.FAILED_SCHEDULING,
            reason=reason,
            message=message,
            parts=parts,
        )

    lifecycle = parse_lifecycle(reason, text)
    if lifecycle is not None:
        inferred = Source.SCHEDULER if lifecycle.kind is Kind.SCHEDULED else Source.KARPENTER
        return ParsedMessage(
            source=source if component else inferred,
            kind=lifecycle.kind,
            reason=reason,
            message=message,
            parts=(lifecycle.finding,),
        )

    return ParsedMessage(
        source=source,
        kind=kind_of(reason),
        reason=reason,
        message=message,
        parts=(Unparsed(text=message),),
    )
