"""The words of an `UNKNOWN_LABEL` or `LABEL_NAMESPACE_MISMATCH` blocker on a NodePool."""

from __future__ import annotations

from kubectl_gpu.core.analyses.pending.checks.evaluation import SPEC, selected_value
from kubectl_gpu.core.analyses.pending.checks.fixes import selector_fix
from kubectl_gpu.core.analyses.pending.checks.removal import removal_advice
from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.analyses.pending.targets.pools.facts import PoolFacts
from kubectl_gpu.core.analyses.pending.targets.pools.template import POOL, POOL_REF
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, Verdict
from kubectl_gpu.core.scheduling.provisionable import restricted_label
from kubectl_gpu.core.scheduling.requirements import UnknownLabel

__all__ = ["unknown_label_blocker"]

# GPU feature discovery labels and the instance label that says the same thing up front.
_GFD_EQUIVALENT = {
    "nvidia.com/gpu.product": "instance-gpu-name",
    "nvidia.com/gpu.present": "instance-gpu-manufacturer",
    "nvidia.com/gpu.count": "instance-gpu-count",
    "nvidia.com/gpu.memory": "instance-gpu-memory",
    "nvidia.com/gpu.family": "instance-gpu-name",
}


def unknown_label_blocker(target: PoolFacts, shape: PodShape, problem: UnknownLabel) -> Blocker:
    """A label the pool neither sets nor knows: another provider's name for a label it has, a GPU feature
    discovery label, a restricted one, or one to add to the pool's template."""
    key = problem.key
    value = selected_value(shape, key)
    other = target.catalog.other_provider_key(key)
    owner = target.catalog.label_table.provider_of(key)
    if other is not None and owner is not None and owner != target.provider:
        where = "EKS Auto Mode" if target.provider == "auto" else "self-managed Karpenter"
        return Blocker(
            Verdict.LABEL_NAMESPACE_MISMATCH,
            SPEC,
            POOL_REF,
            f"pod selects {key}, a label {where} nodes never carry; the same label is {other} here",
            selector_fix(key, other, value),
            {"key": key, "replacement": other},
        )
    gfd = _GFD_EQUIVALENT.get(key)
    if gfd is not None:
        fix = (
            f"{key} is set by GPU feature discovery after a node starts, so no provisioner can launch a "
            f"node for it: select {target.prefix}/{gfd} instead (or just request nvidia.com/gpu), or add "
            f"{key} to NodePool {POOL} spec.template.metadata.labels"
        )
    elif restricted_label(key, target.provider):
        # Karpenter rejects a NodePool that sets a restricted label (labels.go IsRestrictedLabel).
        fix = f"{removal_advice(shape, key)}: no NodePool may set it"
    else:
        fix = f"{removal_advice(shape, key)}; or add {key} to NodePool {POOL} spec.template.metadata.labels"
    hint = f" (typo of {problem.hint}?)" if problem.hint else ""
    return Blocker(
        Verdict.UNKNOWN_LABEL,
        SPEC,
        POOL_REF,
        f"pod selects label {key}{hint}, which NodePool {POOL} neither sets nor knows",
        fix,
        {"key": key},
    )
