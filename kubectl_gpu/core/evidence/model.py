"""What an event message says, as data: stable codes, typed findings and the parsed message.

Nothing here parses text; the parsers in this package build these values. Every finding keeps the raw
text it came from (`text`), so a caller can always quote the provisioner or the scheduler verbatim.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

import msgspec


class Source(StrEnum):
    """Who reported the event. `auto-mode` is EKS Auto Mode's Karpenter (`eks-auto-mode/compute`)."""

    SCHEDULER = "scheduler"
    KARPENTER = "karpenter"
    AUTO_MODE = "auto-mode"
    UNKNOWN = "unknown"


class Kind(StrEnum):
    """What kind of event the message belongs to (derived from the event reason and the text shape)."""

    FAILED_SCHEDULING = "failed-scheduling"
    NOMINATED = "nominated"
    SCHEDULED = "scheduled"
    NODECLAIM = "nodeclaim"
    NODEPOOL = "nodepool"
    DISRUPTION = "disruption"
    TERMINATION = "termination"
    STATUS = "status"
    OTHER = "other"


class Code(StrEnum):
    """Stable finding codes (values equal names, so `finding.code == "UNTOLERATED_TAINT"` holds)."""

    # scheduler and Karpenter
    UNTOLERATED_TAINT = "UNTOLERATED_TAINT"
    INSUFFICIENT_RESOURCE = "INSUFFICIENT_RESOURCE"
    NODE_AFFINITY = "NODE_AFFINITY"
    UNSCHEDULABLE = "UNSCHEDULABLE"
    POD_AFFINITY = "POD_AFFINITY"
    POD_ANTI_AFFINITY = "POD_ANTI_AFFINITY"
    TOPOLOGY_SPREAD = "TOPOLOGY_SPREAD"
    UNKNOWN_CONDITION = "UNKNOWN_CONDITION"
    NODE_CONDITION = "NODE_CONDITION"
    VOLUME = "VOLUME"
    DRA = "DRA"
    # Karpenter / Auto Mode scheduling simulation
    UNKNOWN_LABEL = "UNKNOWN_LABEL"
    REQUIREMENT_CONFLICT = "REQUIREMENT_CONFLICT"
    LIMITS_EXCEEDED = "LIMITS_EXCEEDED"
    NO_INSTANCE_TYPE = "NO_INSTANCE_TYPE"
    NODEPOOL_FILTERED_ALL = "NODEPOOL_FILTERED_ALL"
    MIN_VALUES = "MIN_VALUES"
    RESERVED_OFFERING = "RESERVED_OFFERING"
    # placement and lifecycle events
    NOMINATED = "NOMINATED"
    SCHEDULED = "SCHEDULED"
    INSUFFICIENT_CAPACITY = "INSUFFICIENT_CAPACITY"
    NODECLASS_NOT_READY = "NODECLASS_NOT_READY"
    NO_COMPATIBLE_INSTANCE_TYPES = "NO_COMPATIBLE_INSTANCE_TYPES"
    DISRUPTION_BLOCKED = "DISRUPTION_BLOCKED"
    DISRUPTION_BUDGET = "DISRUPTION_BUDGET"
    DO_NOT_DISRUPT = "DO_NOT_DISRUPT"
    PDB_BLOCKED = "PDB_BLOCKED"
    UNCONSOLIDATABLE = "UNCONSOLIDATABLE"
    DISRUPTING = "DISRUPTING"
    INVALID_DO_NOT_DISRUPT = "INVALID_DO_NOT_DISRUPT"
    TERMINATION_GRACE_PERIOD_EXPIRING = "TERMINATION_GRACE_PERIOD_EXPIRING"
    FAILED_DRAINING = "FAILED_DRAINING"
    STATUS_CONDITION = "STATUS_CONDITION"
    # recognised envelope, unknown clause / no envelope recognised at all
    OTHER = "OTHER"
    UNPARSED = "UNPARSED"


class Finding(msgspec.Struct, frozen=True, kw_only=True):
    """One clause of an event message.

    `count` is the number of nodes a kube-scheduler reason applies to (None elsewhere, and for a PreFilter
    message, which has no count). `nodepool` is the NodePool the clause is about, when the text names it
    (or, for Karpenter <= v1.4, the `incompatible with nodepool "x"` prefix it sits under).
    `daemonset_overhead` is the JSON of that prefix (<= v1.4 only).
    """

    code: Code
    text: str
    nodepool: str | None = None
    count: int | None = None
    daemonset_overhead: str | None = None

    def render(self) -> str:
        """A short human line, e.g. `8 node(s): insufficient nvidia.com/gpu`."""
        described = self.describe()
        if self.count is not None:
            return f"{self.count} node(s): {described}"
        if (
            self.nodepool is not None
            and f'"{self.nodepool}"' not in described
            and f"={self.nodepool}" not in described
        ):
            return f"NodePool {self.nodepool}: {described}"
        return described

    def describe(self) -> str:
        """The clause without the node count / NodePool prefix."""
        text = self.text
        if self.count is not None and text.startswith("node(s) "):
            text = text[len("node(s) ") :]
        return text


class Unparsed(Finding, frozen=True, kw_only=True):
    """Text no parser recognised; `text` is the whole raw message."""

    code: Code = Code.UNPARSED

    def describe(self) -> str:
        return f"unrecognised message: {self.text}"


class TaintFinding(Finding, frozen=True, kw_only=True):
    """An untolerated taint. `key` is None when the text does not name it (`untolerated taint(s)`);
    `value` is "" for a taint without value; `effect` is None where the form omits it (scheduler)."""

    key: str | None = None
    value: str | None = None
    effect: str | None = None

    def describe(self) -> str:
        if self.key is None:
            return "untolerated taint(s) (the message does not say which)"
        taint = (
            self.key + (f"={self.value}" if self.value else "") + (f":{self.effect}" if self.effect else "")
        )
        return f"untolerated taint {taint}"


class ResourceFinding(Finding, frozen=True, kw_only=True):
    """Not enough of a resource (`Insufficient nvidia.com/gpu`, `Too many pods` -> `pods`)."""

    resource: str

    def describe(self) -> str:
        return f"insufficient {self.resource}"


class LabelFinding(Finding, frozen=True, kw_only=True):
    """A label the NodePool neither sets nor requires (`label "x" does not have known values`)."""

    label: str
    typo_of: str | None = None

    def describe(self) -> str:
        hint = f" (typo of {self.typo_of}?)" if self.typo_of else ""
        return f"label {self.label} has no known values on the NodePool{hint}"


class RequirementFinding(Finding, frozen=True, kw_only=True):
    """`key K, <pod requirement> not in <NodePool requirement>`; both sides without the repeated key,
    e.g. `In [h100]` and `In [a10g l4]`. Code VOLUME when it came from volume topology."""

    key: str
    pod_requirement: str
    nodepool_requirement: str

    def describe(self) -> str:
        what = "volume requirement" if self.code is Code.VOLUME else "requirement"
        return (
            f"{what} {self.key}: pod needs {self.pod_requirement}, NodePool has {self.nodepool_requirement}"
        )


class LimitFinding(Finding, frozen=True, kw_only=True):
    """NodePool limits: `limit` is "resources" (every instance type would exceed spec.limits) or "nodes"."""

    limit: str

    def describe(self) -> str:
        if self.limit == "nodes":
            return "node limit of the NodePool exhausted"
        return "every instance type would exceed the NodePool limits"


class InstanceTypeFinding(Finding, frozen=True, kw_only=True):
    """No instance type fits. `failed` names the criteria (requirements, resources, offering) that the
    message says failed; `jointly` is True when each criterion was met by some instance type but not together.
    `requirements` / `resources` are the texts Karpenter printed (resources may be `min=..., max=...`)."""

    reason: str
    failed: tuple[str, ...] = ()
    jointly: bool = False
    requirements: str | None = None
    resources: str | None = None
    hint: str | None = None

    def describe(self) -> str:
        if not self.failed:
            return self.reason
        how = "together" if self.jointly else "at all"
        text = f"no instance type satisfies {'/'.join(self.failed)} {how}"
        if self.resources:
            text += f" (resources {self.resources})"
        return text + (f" [{self.hint}]" if self.hint else "")


class MinValuesFinding(Finding, frozen=True, kw_only=True):
    """A `minValues` requirement cannot be met; `labels` are the keys the message names."""

    labels: tuple[str, ...] = ()
    requirements: str | None = None
    resources: str | None = None

    def describe(self) -> str:
        return "minValues not met" + (f" for {', '.join(self.labels)}" if self.labels else "")


class NominationFinding(Finding, frozen=True, kw_only=True):
    """`Pod should schedule on: nodeclaim/X[, node/Y]`."""

    nodeclaim: str | None = None
    node: str | None = None

    def describe(self) -> str:
        targets = [f"nodeclaim/{self.nodeclaim}"] if self.nodeclaim else []
        targets += [f"node/{self.node}"] if self.node else []
        return "nominated for " + (", ".join(targets) or "an unnamed node")


class AssignmentFinding(Finding, frozen=True, kw_only=True):
    """`Successfully assigned ns/pod to node`."""

    pod: str
    node: str

    def describe(self) -> str:
        return f"scheduled {self.pod} to {self.node}"


class NodeClaimFinding(Finding, frozen=True, kw_only=True):
    """`NodeClaim X event: <detail>` (InsufficientCapacityError, NodeClassNotReady)."""

    nodeclaim: str
    detail: str

    def describe(self) -> str:
        return f"NodeClaim {self.nodeclaim}: {self.detail}"


class FilteredFinding(Finding, frozen=True, kw_only=True):
    """`NodePool requirements filtered out all compatible available instance types[ due to minValues ...]`."""

    min_values: bool = False

    def describe(self) -> str:
        return "NodePool requirements filter out every instance type" + (
            " (minValues)" if self.min_values else ""
        )


class DisruptionFinding(Finding, frozen=True, kw_only=True):
    """Disruption, consolidation and termination events. `detail` is the text without wrappers;
    `target` is "Node" or "NodeClaim" where the text says so; `pod` / `pdbs` name blocking objects
    (`namespace/name`); `disruption_reason` is e.g. `Underutilized`, `Drifted`; `deadline` is the
    TerminationGracePeriodExpiring time as printed; `value` is an invalid do-not-disrupt annotation value."""

    detail: str
    target: str | None = None
    pod: str | None = None
    pdbs: tuple[str, ...] = ()
    disruption_reason: str | None = None
    deadline: str | None = None
    value: str | None = None

    def describe(self) -> str:
        if self.code is Code.DO_NOT_DISRUPT:
            return "blocked by karpenter.sh/do-not-disrupt" + (f" on pod {self.pod}" if self.pod else "")
        if self.code is Code.PDB_BLOCKED and self.pdbs:
            return f"blocked by PodDisruptionBudget {', '.join(self.pdbs)}"
        if self.code is Code.TERMINATION_GRACE_PERIOD_EXPIRING:
            return f"all pods will be deleted by {self.deadline}"
        return self.detail


class StatusConditionFinding(Finding, frozen=True, kw_only=True):
    """`Status condition transitioned, Type: T, Status: A -> B, Reason: R[, Message: M]`."""

    condition: str
    from_status: str
    to_status: str
    condition_reason: str | None = None
    condition_message: str | None = None

    def describe(self) -> str:
        why = f" ({self.condition_reason})" if self.condition_reason else ""
        return f"{self.condition}: {self.from_status} -> {self.to_status}{why}"


class Preemption(msgspec.Struct, frozen=True):
    """The kube-scheduler preemption PostFilter tail: `preemption: 0/N nodes are available: ...`."""

    text: str
    total_nodes: int | None
    reasons: tuple[tuple[int, str], ...]


class ParsedMessage(msgspec.Struct, frozen=True):
    """One event message, parsed. `parts` keep the order of the message; `message` is the raw text."""

    source: Source
    kind: Kind
    reason: str
    message: str
    parts: tuple[Finding, ...]
    total_nodes: int | None = None
    postfilter: str | None = None
    preemption: Preemption | None = None

    @property
    def codes(self) -> tuple[Code, ...]:
        return tuple(part.code for part in self.parts)

    @property
    def parsed(self) -> bool:
        """False when nothing in the message was recognised."""
        return not any(part.code is Code.UNPARSED for part in self.parts)

    @property
    def taint_keys(self) -> tuple[str, ...]:
        """Keys of the untolerated taints the message names, first-seen order, no duplicates."""
        return _unique(p.key for p in self.parts if isinstance(p, TaintFinding) and p.key is not None)

    @property
    def unknown_labels(self) -> tuple[str, ...]:
        return _unique(p.label for p in self.parts if isinstance(p, LabelFinding))

    @property
    def nodepools(self) -> tuple[str, ...]:
        """NodePools the message names (any clause), first-seen order, no duplicates."""
        return _unique(p.nodepool for p in self.parts if p.nodepool is not None)

    @property
    def insufficient_resources(self) -> tuple[str, ...]:
        return _unique(p.resource for p in self.parts if isinstance(p, ResourceFinding))

    def by_code(self, code: Code) -> tuple[Finding, ...]:
        return tuple(part for part in self.parts if part.code is code)

    def render(self) -> str:
        """One line per finding."""
        return "\n".join(part.render() for part in self.parts)


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))
