"""What the API server would refuse: the CEL rules (x-kubernetes-validations) and patterns of Karpenter's
karpenter.sh/v1 NodePool CRD that a hand edit can break, with their messages as the CRD writes them
(kubernetes-sigs/karpenter pkg/apis/crds/karpenter.sh_nodepools.yaml; ../shared/reference
karpenter_crd_fields.json). kubeconform and other schema checks ignore CEL: a GitOps controller then fails
at apply time. The Auto Mode 21-day cap on expireAfter + terminationGracePeriod is not a documented
admission rule: it is a warning, never a refusal.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from kubectl_gpu.core.k8s.times import parse_go_duration
from kubectl_gpu.core.karpenter.settings import AUTO_MODE_MAX_LIFETIME
from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = ["nodepool_refusals", "nodepool_warnings"]

_DURATION = lazy_pattern(r"^(([0-9]+(s|m|h))+|Never)$")
_TGP = lazy_pattern(r"^([0-9]+(s|m|h))+$")
_BUDGET_NODES = lazy_pattern(r"^((100|[0-9]{1,2})%|[0-9]+)$")
_BUDGET_DURATION = lazy_pattern(r"^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$")
_RESTRICTED = 'label domain "karpenter.sh" is restricted'
_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte")
_POLICIES = ("WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced")
_REASONS = ("Underutilized", "Empty", "Drifted")


def _d(obj: Any, *path: str) -> Any:
    for key in path:
        obj = obj.get(key) if isinstance(obj, Mapping) else None
    return obj


def _label_rules(key: str) -> list[str]:
    if key == "karpenter.sh/nodepool":
        return ['label "karpenter.sh/nodepool" is restricted']
    if key == "kubernetes.io/hostname":
        return ['label "kubernetes.io/hostname" is restricted']
    domain = key.partition("/")[0] if "/" in key else ""
    if (domain == "karpenter.sh" or domain.endswith(".karpenter.sh")) and key != "karpenter.sh/capacity-type":
        return [_RESTRICTED]
    return []


def _requirements(reqs: Any) -> list[str]:
    out = []
    for req in reqs if isinstance(reqs, list) else ():
        if not isinstance(req, Mapping):
            continue
        op, values = req.get("operator"), req.get("values") or []
        out += [f"requirements[{req.get('key')}]: {m}" for m in _label_rules(str(req.get("key", "")))]
        if op not in _OPERATORS:
            out.append(
                f'requirements[{req.get("key")}]: Unsupported value: "{op}": supported values: {_OPERATORS}'
            )
        if op == "In" and not values:
            out.append("requirements with operator 'In' must have a value defined")
        if op in ("Gt", "Lt", "Gte", "Lte") and not (len(values) == 1 and str(values[0]).isdigit()):
            out.append(
                "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value"
            )
        min_values = req.get("minValues")
        if op == "In" and isinstance(min_values, int) and len(values) < min_values:
            out.append(
                "requirements with 'minValues' must have at least that many values specified in the 'values' field"
            )
    return out


def _disruption(disruption: Any) -> list[str]:
    out = []
    policy = _d(disruption, "consolidationPolicy")
    if policy is not None and policy not in _POLICIES:
        out.append(f'spec.disruption.consolidationPolicy: Unsupported value: "{policy}"')
    after = _d(disruption, "consolidateAfter")
    if after is not None and not _DURATION.match(str(after)):
        out.append(f"spec.disruption.consolidateAfter: {after!r} does not match {_DURATION.pattern}")
    for i, budget in enumerate(_d(disruption, "budgets") or ()):
        if not isinstance(budget, Mapping):
            continue
        if ("schedule" in budget) != ("duration" in budget):
            out.append("'schedule' must be set with 'duration'")
        nodes = budget.get("nodes", "10%")
        if not _BUDGET_NODES.match(str(nodes)):
            out.append(
                f"spec.disruption.budgets[{i}].nodes: {nodes!r} does not match {_BUDGET_NODES.pattern}"
            )
        if "duration" in budget and not _BUDGET_DURATION.match(str(budget["duration"])):
            out.append(
                f"spec.disruption.budgets[{i}].duration: {budget['duration']!r} does not match {_BUDGET_DURATION.pattern}"
            )
        for reason in budget.get("reasons") or ():
            if reason not in _REASONS:
                out.append(f'spec.disruption.budgets[{i}].reasons: Unsupported value: "{reason}"')
    return out


def nodepool_refusals(obj: Mapping[str, Any], before: Mapping[str, Any] | None) -> list[str]:
    """The messages the API server would answer a create or update of this NodePool with (empty: admitted)."""
    spec = _d(obj, "spec") or {}
    tmpl = _d(spec, "template", "spec") or {}
    out = _requirements(tmpl.get("requirements"))
    for key in _d(spec, "template", "metadata", "labels") or {}:
        out += [f"spec.template.metadata.labels[{key}]: {m}" for m in _label_rules(str(key))]
    ref = tmpl.get("nodeClassRef")
    if not isinstance(ref, Mapping):
        out.append("spec.template.spec.nodeClassRef: Required value")
    else:
        out += [f"{k} may not be empty" for k in ("group", "kind", "name") if not ref.get(k)]
        old = _d(before, "spec", "template", "spec", "nodeClassRef") or {}
        out += [
            f"nodeClassRef.{k} is immutable" for k in ("group", "kind") if old and old.get(k) != ref.get(k)
        ]
    expire = tmpl.get("expireAfter")
    if expire is not None and not _DURATION.match(str(expire)):
        out.append(f"spec.template.spec.expireAfter: {expire!r} does not match {_DURATION.pattern}")
    tgp = tmpl.get("terminationGracePeriod")
    if tgp is not None and not _TGP.match(str(tgp)):
        out.append(f"spec.template.spec.terminationGracePeriod: {tgp!r} does not match {_TGP.pattern}")
    out += _disruption(spec.get("disruption"))
    weight = spec.get("weight")
    if weight is not None and not (isinstance(weight, int) and 1 <= weight <= 100):
        out.append(f"spec.weight: Invalid value: {weight}: must be between 1 and 100")
    if before is not None and ("replicas" in spec) != ("replicas" in (_d(before, "spec") or {})):
        out.append(
            "Cannot transition NodePool between static (replicas set) and dynamic (replicas unset) provisioning modes"
        )
    return out


def _duration(text: Any) -> timedelta | None:
    return parse_go_duration(str(text)) if text is not None and text != "Never" else None


def nodepool_warnings(obj: Mapping[str, Any], auto_mode: bool) -> list[str]:
    """What may still go wrong although the API server admits it: on Auto Mode, expireAfter plus
    terminationGracePeriod past the 21-day node lifetime (reported refused by a GitOps controller in one
    incident; not a documented admission rule)."""
    tmpl = _d(obj, "spec", "template", "spec") or {}
    if not auto_mode:
        return []
    expire, tgp = tmpl.get("expireAfter"), tmpl.get("terminationGracePeriod")
    lifetime = _duration(expire)
    grace = _duration(tgp) or timedelta(0)
    if expire == "Never" or lifetime is None or lifetime + grace <= AUTO_MODE_MAX_LIFETIME:
        return []
    return [
        f"expireAfter {expire} + terminationGracePeriod {tgp or '0s'} exceeds Auto Mode's 21-day node lifetime: "
        "Auto Mode replaces the node at 21 days anyway, and a change like it has been refused at apply time"
    ]
