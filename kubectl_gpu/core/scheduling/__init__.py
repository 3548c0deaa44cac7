"""Karpenter's scheduling algebra: label requirements, taints/tolerations and pod node affinity.

Pure functions over frozen values; no I/O. See each module's docstring for the upstream semantics.
"""

from kubectl_gpu.core.scheduling.affinity import (
    KUBE_SCHEDULER_AFFINITY_REASON,
    NodeSelectorTerm,
    PodSchedulingRequirements,
    PreferredTerm,
    node_matches,
    pod_requirements,
)
from kubectl_gpu.core.scheduling.requirements import (
    CORE_WELL_KNOWN_LABELS,
    NORMALIZED_LABELS,
    Conflict,
    Incompatibility,
    NormalizedRequirement,
    Requirement,
    RequirementError,
    Requirements,
    UnknownLabel,
    intersects,
    nodepool_requirements,
)
from kubectl_gpu.core.scheduling.taints import (
    Taint,
    Toleration,
    not_tolerated_message,
    pretty,
    suggest_toleration,
    tolerates,
    untolerated,
)

__all__ = [
    "CORE_WELL_KNOWN_LABELS",
    "KUBE_SCHEDULER_AFFINITY_REASON",
    "NORMALIZED_LABELS",
    "Conflict",
    "Incompatibility",
    "NodeSelectorTerm",
    "NormalizedRequirement",
    "PodSchedulingRequirements",
    "PreferredTerm",
    "Requirement",
    "RequirementError",
    "Requirements",
    "Taint",
    "Toleration",
    "UnknownLabel",
    "intersects",
    "node_matches",
    "nodepool_requirements",
    "not_tolerated_message",
    "pod_requirements",
    "pretty",
    "suggest_toleration",
    "tolerates",
    "untolerated",
]
