"""PodDisruptionBudgets (`policy/v1`): the pods they select and the evictions they allow now, which
`simulate` weighs against the pods a drift evicts (Karpenter drains through the eviction API)."""

from __future__ import annotations

from kubectl_gpu.core.k8s.models import PodDisruptionBudget, Raw
from kubectl_gpu.core.k8s.parse.common import ModelError, as_dict, meta, opt_int
from kubectl_gpu.core.k8s.parse.placement import label_selector

__all__ = ["parse_pdb"]


def _int_or_percent(value: object, where: str) -> int | str | None:
    """An IntOrString as the API keeps it: a count, or a percent such as "50%"."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    if isinstance(value, str) and value.endswith("%") and value[:-1].isdigit():
        return value
    raise ModelError(f"{where} must be an integer or a percent, got {value!r:.40}")


def parse_pdb(obj: Raw) -> PodDisruptionBudget:
    m = meta(obj, "PodDisruptionBudget", namespaced=True)
    where = f"PodDisruptionBudget {m.key}"
    spec = as_dict(obj.get("spec"), f"{where} spec")
    status = as_dict(obj.get("status"), f"{where} status")
    try:
        selector = label_selector(spec.get("selector"))
    except ValueError as exc:
        raise ModelError(f"{where} spec.selector: {exc}") from None
    return PodDisruptionBudget(
        meta=m,
        selector=selector,
        min_available=_int_or_percent(spec.get("minAvailable"), f"{where} spec.minAvailable"),
        max_unavailable=_int_or_percent(spec.get("maxUnavailable"), f"{where} spec.maxUnavailable"),
        disruptions_allowed=opt_int(status.get("disruptionsAllowed"), f"{where} status.disruptionsAllowed")
        or 0,
        current_healthy=opt_int(status.get("currentHealthy"), f"{where} status.currentHealthy") or 0,
        expected_pods=opt_int(status.get("expectedPods"), f"{where} status.expectedPods") or 0,
    )
