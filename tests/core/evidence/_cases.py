"""One concrete event message per form in the shared `karpenter_messages.json` reference.

`form` is the reference entry's `string` verbatim (plus the event reason where two entries share a string);
the examples the reference gives are used verbatim, the others are written by us from the format.
`attrs` are checked on the first finding.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kubectl_gpu.core.evidence import Code

KARPENTER = "karpenter"
AUTO_MODE = "eks-auto-mode/compute"
SCHEDULER = "default-scheduler"
OVERHEAD = '{"cpu":"605m","memory":"1288Mi","pods":"12"}'
REQS = (
    "karpenter.k8s.aws/instance-category In [g], karpenter.k8s.aws/instance-generation Exists >=5, "
    "karpenter.sh/capacity-type In [on-demand spot], karpenter.sh/nodepool In [gpu], kubernetes.io/arch In [amd64]"
)
RES = '{"cpu":"4605m","memory":"17672Mi","nvidia.com/gpu":"1","pods":"13"}'


@dataclass(frozen=True)
class Case:
    form: str
    message: str
    codes: tuple[Code, ...]
    reason: str = "FailedScheduling"
    component: str | None = KARPENTER
    attrs: dict[str, object] = field(default_factory=dict)
    event_reason: str | None = None  # tells apart reference entries that share a `string`

    @property
    def id(self) -> str:
        return (self.event_reason or "") + self.form[:60]


def _failed(err: str) -> str:
    return f"Failed to schedule pod, {err}"


def _suffix(sentence: str) -> str:
    return _failed(f"{sentence}, requirements={REQS}, resources={RES}")


_NIT = Code.NO_INSTANCE_TYPE
_R, _F, _O = "requirements", "resources", "offering"

CASES: tuple[Case, ...] = (
    Case(
        "did not tolerate taint (taint=<key>[=<value>]:<Effect>)",
        _failed("did not tolerate taint (taint=nvidia.com/gpu=present:NoSchedule)"),
        (Code.UNTOLERATED_TAINT,),
        attrs={"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule", "nodepool": None},
    ),
    Case(
        'did not tolerate %s  (e.g. "did not tolerate nvidia.com/gpu:NoSchedule")',
        _failed("did not tolerate nvidia.com/gpu:NoSchedule"),
        (Code.UNTOLERATED_TAINT,),
        attrs={"key": "nvidia.com/gpu", "value": "", "effect": "NoSchedule"},
    ),
    Case(
        'did not tolerate %s=%s:%s  (key=value:effect; renders "did not tolerate nvidia.com/gpu=:NoSchedule" '
        "when value empty)",
        _failed("did not tolerate nvidia.com/gpu=:NoSchedule"),
        (Code.UNTOLERATED_TAINT,),
        attrs={"key": "nvidia.com/gpu", "value": "", "effect": "NoSchedule"},
    ),
    Case(
        "incompatible requirements, %w",
        _failed('incompatible requirements, label "gpu-type" does not have known values'),
        (Code.UNKNOWN_LABEL,),
        attrs={"label": "gpu-type", "typo_of": None},
    ),
    Case(
        'label %q does not have known values%s   (suffix " (typo of %q?)" when a well-known/existing key '
        "contains or suffix-matches it)",
        _failed('incompatible requirements, label "nvidia.com/gpu.present" does not have known values'),
        (Code.UNKNOWN_LABEL,),
        attrs={"label": "nvidia.com/gpu.present", "typo_of": None},
    ),
    Case(
        "key %s, %s not in %s",
        _failed("key karpenter.k8s.aws/instance-gpu-name, In [h100] not in In [a10g l4]"),
        (Code.REQUIREMENT_CONFLICT,),
        attrs={
            "key": "karpenter.k8s.aws/instance-gpu-name",
            "pod_requirement": "In [h100]",
            "nodepool_requirement": "In [a10g l4]",
        },
    ),
    Case(
        "incompatible volume requirements, %w",
        _failed(
            "incompatible volume requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone "
            "In [us-west-2a] not in topology.kubernetes.io/zone In [us-west-2b us-west-2c]"
        ),
        (Code.VOLUME,),
        attrs={"key": "topology.kubernetes.io/zone", "pod_requirement": "In [us-west-2a]"},
    ),
    Case(
        "incompatible with nodepool %q, daemonset overhead=%s, %w",
        _failed(
            'incompatible with nodepool "gpu", daemonset overhead={"cpu":"605m","memory":"1288Mi","pods":"12"}, '
            "did not tolerate nvidia.com/gpu=1:NoSchedule"
        ),
        (Code.UNTOLERATED_TAINT,),
        attrs={"nodepool": "gpu", "daemonset_overhead": OVERHEAD, "key": "nvidia.com/gpu", "value": "1"},
    ),
    Case(
        "all available instance types exceed limits for nodepool (NodePool=<name>)",
        _failed("all available instance types exceed limits for nodepool (NodePool=gpu)"),
        (Code.LIMITS_EXCEEDED,),
        attrs={"nodepool": "gpu", "limit": "resources"},
    ),
    Case(
        "all available instance types exceed limits for nodepool %q",
        _failed('all available instance types exceed limits for nodepool "gpu"'),
        (Code.LIMITS_EXCEEDED,),
        attrs={"nodepool": "gpu", "limit": "resources"},
    ),
    Case(
        "all available instance types exceed limits for nodepool: %q",
        _failed('all available instance types exceed limits for nodepool: "gpu"'),
        (Code.LIMITS_EXCEEDED,),
        attrs={"nodepool": "gpu", "limit": "resources"},
    ),
    Case(
        "node limits have been exhausted for nodepool (NodePool=<name>)",
        _failed("node limits have been exhausted for nodepool (NodePool=gpu)"),
        (Code.LIMITS_EXCEEDED,),
        attrs={"nodepool": "gpu", "limit": "nodes"},
    ),
    Case(
        "nodepool requirements filtered out all available instance types",
        _failed("nodepool requirements filtered out all available instance types"),
        (Code.NODEPOOL_FILTERED_ALL,),
    ),
    Case(
        "no instance type satisfied resources %s and requirements %s (%s)",
        _failed(
            f"no instance type satisfied resources {RES} and requirements {REQS} (no instance type met the "
            "scheduling requirements or had a required offering)"
        ),
        (_NIT,),
        attrs={"failed": (_R, _O), "jointly": False, "requirements": REQS, "resources": RES},
    ),
    Case(
        "no instance type met the scheduling requirements or had enough resources or had a required offering, "
        "requirements=%s, resources=%s",
        _suffix(
            "no instance type met the scheduling requirements or had enough resources or had a required offering"
        ),
        (_NIT,),
        attrs={"failed": (_R, _F, _O), "jointly": False, "requirements": REQS, "resources": RES},
    ),
    Case(
        "no instance type met the scheduling requirements or had enough resources, requirements=%s, resources=%s",
        _suffix("no instance type met the scheduling requirements or had enough resources"),
        (_NIT,),
        attrs={"failed": (_R, _F), "jointly": False, "requirements": REQS, "resources": RES},
    ),
    Case(
        "no instance type met the scheduling requirements or had a required offering, requirements=%s, "
        "resources=%s",
        _suffix("no instance type met the scheduling requirements or had a required offering"),
        (_NIT,),
        attrs={"failed": (_R, _O), "jointly": False},
    ),
    Case(
        "no instance type had enough resources or had a required offering, requirements=%s, resources=%s",
        _suffix("no instance type had enough resources or had a required offering"),
        (_NIT,),
        attrs={"failed": (_F, _O), "jointly": False},
    ),
    Case(
        "no instance type met all requirements, requirements=%s, resources=%s",
        _suffix("no instance type met all requirements"),
        (_NIT,),
        attrs={"failed": (_R,), "jointly": False},
    ),
    Case(
        "no instance type has enough resources, requirements=%s, resources=%s",
        _failed(
            f'no instance type has enough resources, requirements={REQS}, resources={{"cpu":"4000001","pods":"1"}} '
            "(CPU request >= 1 Million, m vs M typo?)"
        ),
        (_NIT,),
        attrs={
            "failed": (_F,),
            "resources": '{"cpu":"4000001","pods":"1"}',
            "hint": "CPU request >= 1 Million, m vs M typo?",
        },
    ),
    Case(
        "no instance type has the required offering, requirements=%s, resources=%s",
        _suffix("no instance type has the required offering"),
        (_NIT,),
        attrs={"failed": (_O,), "jointly": False},
    ),
    Case(
        "no instance type which met the scheduling requirements and had enough resources, had a required "
        "offering, requirements=%s, resources=%s",
        _suffix(
            "no instance type which met the scheduling requirements and had enough resources, had a required "
            "offering"
        ),
        (_NIT,),
        attrs={"failed": (_O,), "jointly": True, "requirements": REQS, "resources": RES},
    ),
    Case(
        "no instance type which had enough resources and the required offering met the scheduling requirements, "
        "requirements=%s, resources=%s",
        _suffix(
            "no instance type which had enough resources and the required offering met the scheduling "
            "requirements"
        ),
        (_NIT,),
        attrs={"failed": (_R,), "jointly": True},
    ),
    Case(
        "no instance type which met the scheduling requirements and the required offering had the required "
        "resources, requirements=%s, resources=%s",
        _suffix(
            "no instance type which met the scheduling requirements and the required offering had the "
            "required resources"
        ),
        (_NIT,),
        attrs={"failed": (_F,), "jointly": True},
    ),
    Case(
        "no instance type met the requirements/resources/offering tuple, requirements=%s, resources=%s",
        _suffix("no instance type met the requirements/resources/offering tuple"),
        (_NIT,),
        attrs={"failed": (_R, _F, _O), "jointly": True},
    ),
    Case(
        "pod didn’t schedule because NodePool couldn’t meet minValues requirements, %w (NodePool=<name>)",
        _failed(
            "pod didn’t schedule because NodePool couldn’t meet minValues requirements, minValues requirement is "
            "not met for label(s) (label(s)=[karpenter.k8s.aws/instance-family]) (NodePool=gpu)"
        ),
        (Code.MIN_VALUES,),
        attrs={"nodepool": "gpu", "labels": ("karpenter.k8s.aws/instance-family",)},
    ),
    Case(
        "%s, requirements=%s, resources=%s  (minValues incompatibility error first)",
        _failed(
            "minValues requirement is not met for label(s) (label(s)=[karpenter.k8s.aws/instance-family "
            f"node.kubernetes.io/instance-type]), requirements={REQS}, resources={RES}"
        ),
        (Code.MIN_VALUES,),
        attrs={
            "labels": ("karpenter.k8s.aws/instance-family", "node.kubernetes.io/instance-type"),
            "requirements": REQS,
            "resources": RES,
        },
    ),
    Case(
        "one or more instance types with compatible reserved offerings are available, but could not be reserved",
        _failed(
            "one or more instance types with compatible reserved offerings are available, but could not be "
            "reserved"
        ),
        (Code.RESERVED_OFFERING,),
    ),
    Case(
        "satisfying updated nodeclaim constraints would remove all compatible reserved offering options",
        _failed(
            "satisfying updated nodeclaim constraints would remove all compatible reserved offering options"
        ),
        (Code.RESERVED_OFFERING,),
    ),
    Case(
        "pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter",
        _failed("pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter"),
        (Code.DRA,),
    ),
    Case(
        "no instance type satisfies both scheduling and dynamic resource requirements",
        _failed("no instance type satisfies both scheduling and dynamic resource requirements"),
        (Code.DRA,),
    ),
    Case(
        "allocating dynamic resources, %w / incompatible dynamic resource requirements, %w",
        _failed(
            "allocating dynamic resources, no device class gpu.nvidia.com; incompatible dynamic resource "
            "requirements, claim ml/gpu-claim cannot be allocated"
        ),
        (Code.DRA, Code.DRA),
    ),
    Case(
        "Failed to schedule pod, %s",
        _failed(
            "did not tolerate taint (taint=nvidia.com/gpu:NoSchedule); did not tolerate taint "
            "(taint=dedicated=ml:NoExecute)"
        ),
        (Code.UNTOLERATED_TAINT, Code.UNTOLERATED_TAINT),
        component=AUTO_MODE,
        attrs={"key": "nvidia.com/gpu", "value": "", "effect": "NoSchedule"},
        event_reason="FailedScheduling",
    ),
    Case(
        "Pod should schedule on: nodeclaim/<name>[, node/<name>]",
        "Pod should schedule on: nodeclaim/gpu-inf-dynamic-ggsvc, node/i-02315c7d7643cdee6",
        (Code.NOMINATED,),
        reason="Nominated",
        component=AUTO_MODE,
        attrs={"nodeclaim": "gpu-inf-dynamic-ggsvc", "node": "i-02315c7d7643cdee6"},
        event_reason="Nominated",
    ),
    Case(
        "NodePool requirements filtered out all compatible available instance types[ due to minValues "
        "incompatibility]",
        "NodePool requirements filtered out all compatible available instance types due to minValues "
        "incompatibility",
        (Code.NO_COMPATIBLE_INSTANCE_TYPES,),
        reason="NoCompatibleInstanceTypes",
        attrs={"min_values": True},
        event_reason="NoCompatibleInstanceTypes",
    ),
    Case(
        "skipping, nodepool requirements filtered out all instance types",
        "skipping, nodepool requirements filtered out all instance types",
        (Code.NODEPOOL_FILTERED_ALL,),
        reason="",
    ),
    # Log lines, not events: nothing to extract from the message itself (the error is a separate log field).
    Case("could not schedule pod", "could not schedule pod", (Code.UNPARSED,), reason=""),
    Case(
        "instance types were excluded because they would breach limits (excluded=N total=M)",
        "instance types were excluded because they would breach limits (excluded=12 total=40)",
        (Code.UNPARSED,),
        reason="",
    ),
    Case(
        "NodeClaim %s event: %s",
        "NodeClaim gpu-x8k2p event: Unable to fulfill capacity due to your request configuration. Please adjust "
        "your request and try again.",
        (Code.INSUFFICIENT_CAPACITY,),
        reason="InsufficientCapacityError",
        component=AUTO_MODE,
        attrs={"nodeclaim": "gpu-x8k2p"},
        event_reason="InsufficientCapacityError",
    ),
    Case(
        "NodeClaim %s event: %s",
        "NodeClaim gpu-x8k2p event: NodeClass gpu is not ready",
        (Code.NODECLASS_NOT_READY,),
        reason="NodeClassNotReady",
        attrs={"nodeclaim": "gpu-x8k2p", "detail": "NodeClass gpu is not ready"},
        event_reason="NodeClassNotReady",
    ),
    Case(
        "No allowed disruptions for disruption reason %s due to blocking budget / No allowed disruptions due to "
        "blocking budget",
        "No allowed disruptions for disruption reason Drifted due to blocking budget",
        (Code.DISRUPTION_BUDGET,),
        reason="DisruptionBlocked",
        attrs={"disruption_reason": "Drifted"},
        event_reason="DisruptionBlocked",
    ),
    Case(
        'disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation',
        'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation',
        (Code.DO_NOT_DISRUPT,),
        reason="DisruptionBlocked",
        attrs={"pod": None},
    ),
    Case(
        'pod has "karpenter.sh/do-not-disrupt" annotation (Pod=<ns>/<name>)',
        'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=ml/trainer-0)',
        (Code.DO_NOT_DISRUPT,),
        reason="DisruptionBlocked",
        attrs={"pod": "ml/trainer-0"},
    ),
    Case(
        "pdb prevents pod evictions (PodDisruptionBudget=[...]) / eviction does not support multiple PDBs",
        "Pdb prevents pod evictions (PodDisruptionBudget=[ml/trainer-pdb ml/other-pdb])",
        (Code.PDB_BLOCKED,),
        reason="DisruptionBlocked",
        attrs={"pdbs": ("ml/trainer-pdb", "ml/other-pdb")},
    ),
    Case(
        "node is nominated for a pending pod / node isn't initialized / node is deleting or marked for deletion",
        "Node isn't initialized",
        (Code.DISRUPTION_BLOCKED,),
        reason="DisruptionBlocked",
        attrs={"detail": "Node isn't initialized"},
    ),
    Case(
        'Node does not have label "karpenter.sh/capacity-type" | NodePool %q has consolidation disabled | '
        "NodePool %q has consolidation policy WhenEmpty, but node is not empty",
        'NodePool "gpu" has consolidation policy WhenEmpty, but node is not empty',
        (Code.UNCONSOLIDATABLE,),
        reason="Unconsolidatable",
        attrs={"nodepool": "gpu"},
        event_reason="Unconsolidatable",
    ),
    Case(
        "Disrupting Node: <Reason> / Disrupting NodeClaim: <Reason> / Launching NodeClaim: <Reason> / Waiting on "
        "readiness to continue disruption",
        "Disrupting NodeClaim: Drifted",
        (Code.DISRUPTING,),
        reason="DisruptionTerminating",
        attrs={"target": "NodeClaim", "disruption_reason": "Drifted"},
        event_reason="DisruptionTerminating/DisruptionLaunching/DisruptionWaitingReadiness",
    ),
    Case(
        "Invalid karpenter.sh/do-not-disrupt annotation: %s, ignoring annotation",
        "Invalid karpenter.sh/do-not-disrupt annotation: forever, ignoring annotation",
        (Code.INVALID_DO_NOT_DISRUPT,),
        reason="InvalidDoNotDisruptAnnotation",
        attrs={"value": "forever"},
        event_reason="InvalidDoNotDisruptAnnotation",
    ),
    Case(
        "All pods will be deleted by %s",
        "All pods will be deleted by 2026-08-21T10:00:00Z",
        (Code.TERMINATION_GRACE_PERIOD_EXPIRING,),
        reason="TerminationGracePeriodExpiring",
        attrs={"deadline": "2026-08-21T10:00:00Z"},
        event_reason="TerminationGracePeriodExpiring",
    ),
    Case(
        "Failed to drain node, %s",
        "Failed to drain node, 2 pods are waiting to be evicted",
        (Code.FAILED_DRAINING,),
        reason="FailedDraining",
        attrs={"detail": "2 pods are waiting to be evicted"},
        event_reason="FailedDraining",
    ),
    Case(
        "0/%v nodes are available: <count> <reason>, <count> <reason>. <postfilter msg>",
        "0/5 nodes are available: 2 Insufficient nvidia.com/gpu, 3 node(s) didn't match Pod's node "
        "affinity/selector. preemption: 0/5 nodes are available: 2 No preemption victims found for incoming pod, "
        "3 Preemption is not helpful for scheduling.",
        (Code.INSUFFICIENT_RESOURCE, Code.NODE_AFFINITY),
        component=SCHEDULER,
        attrs={"count": 2, "resource": "nvidia.com/gpu"},
    ),
    Case(
        "preemption: 0/%v nodes are available: N Preemption is not helpful for scheduling[, M No preemption victims "
        "found for incoming pod].",
        "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 "
        "Preemption is not helpful for scheduling.",
        (Code.INSUFFICIENT_RESOURCE,),
        component=SCHEDULER,
        attrs={"count": 3},
    ),
    Case(
        "no new claims to deallocate, ",
        "0/2 nodes are available: 2 node(s) had untolerated taint(s). no new claims to deallocate, preemption: "
        "0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
        (Code.UNTOLERATED_TAINT,),
        component=SCHEDULER,
        attrs={"count": 2, "key": None},
    ),
    Case(
        "node(s) had untolerated taint {%s: %s}",
        "0/1 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: present}.",
        (Code.UNTOLERATED_TAINT,),
        component=SCHEDULER,
        attrs={"count": 1, "key": "nvidia.com/gpu", "value": "present", "effect": None},
    ),
    Case(
        "node(s) had untolerated taint(s)",
        "0/1 nodes are available: 1 node(s) had untolerated taint(s).",
        (Code.UNTOLERATED_TAINT,),
        component=SCHEDULER,
        attrs={"count": 1, "key": None, "value": None},
    ),
    Case(
        "node(s) had taint {%s: %s}, that the pod didn't tolerate",
        "0/4 nodes are available: 1 node(s) had taint {node-role.kubernetes.io/master: }, that the pod didn't "
        "tolerate, 3 Insufficient nvidia.com/gpu.",
        (Code.UNTOLERATED_TAINT, Code.INSUFFICIENT_RESOURCE),
        component=SCHEDULER,
        attrs={"count": 1, "key": "node-role.kubernetes.io/master", "value": ""},
    ),
    Case(
        'Insufficient %v  (e.g. "Insufficient nvidia.com/gpu")',
        "0/2 nodes are available: 2 Insufficient nvidia.com/gpu.",
        (Code.INSUFFICIENT_RESOURCE,),
        component=SCHEDULER,
        attrs={"count": 2, "resource": "nvidia.com/gpu"},
    ),
    Case(
        "node(s) didn't match Pod's node affinity/selector",
        "0/6 nodes are available: 6 node(s) didn't match Pod's node affinity/selector.",
        (Code.NODE_AFFINITY,),
        component=SCHEDULER,
        attrs={"count": 6},
    ),
    Case(
        "node(s) were unschedulable",
        "0/2 nodes are available: 2 node(s) were unschedulable.",
        (Code.UNSCHEDULABLE,),
        component=SCHEDULER,
        attrs={"count": 2},
    ),
    Case(
        "node(s) didn't match pod affinity rules / node(s) didn't match pod anti-affinity rules",
        "0/5 nodes are available: 2 node(s) didn't match pod affinity rules, 3 node(s) didn't match pod "
        "anti-affinity rules.",
        (Code.POD_AFFINITY, Code.POD_ANTI_AFFINITY),
        component=SCHEDULER,
        attrs={"count": 2},
    ),
)
