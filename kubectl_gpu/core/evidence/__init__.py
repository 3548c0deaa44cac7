"""Evidence from event messages: kube-scheduler, Karpenter and EKS Auto Mode texts -> structured findings.

Pure: stdlib `re` only, no I/O, no clock. Entry point: `parse_event_message(reason, message, component)`.
"""

from kubectl_gpu.core.evidence.messages import AUTO_MODE_COMPONENT, parse_event_message, source_of
from kubectl_gpu.core.evidence.model import (
    AssignmentFinding,
    Code,
    DisruptionFinding,
    FilteredFinding,
    Finding,
    InstanceTypeFinding,
    Kind,
    LabelFinding,
    LimitFinding,
    MinValuesFinding,
    NodeClaimFinding,
    NominationFinding,
    ParsedMessage,
    Preemption,
    RequirementFinding,
    ResourceFinding,
    Source,
    StatusConditionFinding,
    TaintFinding,
    Unparsed,
)

__all__ = [
    "AUTO_MODE_COMPONENT",
    "AssignmentFinding",
    "Code",
    "DisruptionFinding",
    "FilteredFinding",
    "Finding",
    "InstanceTypeFinding",
    "Kind",
    "LabelFinding",
    "LimitFinding",
    "MinValuesFinding",
    "NodeClaimFinding",
    "NominationFinding",
    "ParsedMessage",
    "Preemption",
    "RequirementFinding",
    "ResourceFinding",
    "Source",
    "StatusConditionFinding",
    "TaintFinding",
    "Unparsed",
    "parse_event_message",
    "source_of",
]
