"""Which pods the provisioner will not provision for, and which node selectors can never match any node.

Karpenter (`pkg/controllers/provisioning/provisioner.go`):
* `GetPendingPods` drops every pod whose `Provisioner.Validate` fails ("ignoring pod"): no NodeClaim is ever
  created for it, only existing nodes can take it (kube-scheduler still tries).
* `Validate` = `validateKarpenterManagedLabelCanExist` (a `karpenter.sh/nodepool DoesNotExist` requirement),
  `validateNodeSelector` and `validateAffinity` (each nodeSelector entry and each *required* nodeSelectorTerm
  through `validateNodeSelectorTerm`: any `matchFields` -> "node selector term with matchFields is not
  supported"; each expression through `v1.ValidateRequirement`), and the PVC checks of volumetopology.go.
* `ValidateRequirement` (`pkg/apis/v1/nodeclaim_validation.go`): an operator outside In, NotIn, Exists,
  DoesNotExist, Gt, Lt, Gte, Lte; a restricted label (`IsRestrictedLabel`, `pkg/apis/v1/labels.go`: the
  `karpenter.sh` domain except its well-known labels, and `kubernetes.io/hostname`; with the AWS provider
  also the `karpenter.k8s.aws` domain but for its well-known labels, aws/karpenter-provider-aws
  `pkg/apis/v1/labels.go` `init`: `RestrictedLabelDomains`, `WellKnownLabels`); `In` without values;
  `Gt`/`Lt`/`Gte`/`Lte` without exactly one non-negative integer.
* `IgnoreDRARequests` (`pkg/operator/options/options.go`, default true): a pod with ResourceClaims fails
  with "pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter"
  (`scheduler.go`, `NewDRAError`).

kube-scheduler (`component-helpers/scheduling/corev1/nodeaffinity`): required terms are ORed, a term that does
not convert to a selector (an invalid operator, In/NotIn without values, Gt/Lt without one integer) or is
empty matches nothing; when no term can ever match, no node fits: the selector is invalid. A value that is not
a valid label value (`IsValidLabelValue`) is such an error (apimachinery `labels.NewRequirement`); the API server
rejects it in a new pod's required node affinity (`ValidateNodeSelectorRequirement`, current releases) but keeps
pods created before, and Karpenter's `ValidateRequirement` rejects it in a nodeSelector or required term.
"""

from __future__ import annotations

from collections.abc import Mapping

from kubectl_gpu.core.scheduling.affinity import NodeAffinity, NodeSelectorTerm
from kubectl_gpu.core.scheduling.requirements import (
    CORE_WELL_KNOWN_LABELS,
    DOES_NOT_EXIST,
    EXISTS,
    GT,
    IN,
    LT,
    NOT_IN,
    Requirement,
    go_atoi,
    label_value_error,
)

__all__ = [
    "DRA_IGNORED",
    "MATCH_FIELDS_UNSUPPORTED",
    "NODEPOOL_DOES_NOT_EXIST",
    "RESTRICTED_LABELS",
    "provisioner_rejections",
    "restricted_label",
    "selector_never_matches",
]

MATCH_FIELDS_UNSUPPORTED = "node selector term with matchFields is not supported"
NODEPOOL_DOES_NOT_EXIST = "configured to not run on a Karpenter provisioned node"
DRA_IGNORED = "pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter"
RESTRICTED_LABELS = frozenset({"kubernetes.io/hostname"})
_RESTRICTED_DOMAINS = ("karpenter.sh",)
AWS_DOMAIN = "karpenter.k8s.aws"
# aws/karpenter-provider-aws: the karpenter.k8s.aws labels a requirement may use (the NodeClaim CRD's rule
# on requirement keys, which lists the provider's WellKnownLabels of that domain and its NodeClass label).
AWS_WELL_KNOWN = frozenset(
    f"{AWS_DOMAIN}/{name}"
    for name in [
        "instance-tenancy",
        "capacity-reservation-type",
        "capacity-reservation-id",
        "capacity-reservation-interruptible",
        "ec2nodeclass",
        "instance-encryption-in-transit-supported",
        "nitro-sandbox",
        "instance-category",
        "instance-hypervisor",
        "instance-family",
        "instance-generation",
        "instance-local-nvme",
        "instance-size",
        "instance-cpu",
        "instance-cpu-manufacturer",
        "instance-cpu-sustained-clock-speed-mhz",
        "instance-memory",
        "instance-ebs-bandwidth",
        "instance-network-bandwidth",
        "instance-gpu-name",
        "instance-gpu-manufacturer",
        "instance-gpu-count",
        "instance-gpu-memory",
        "instance-accelerator-name",
        "instance-accelerator-manufacturer",
        "instance-accelerator-count",
        "instance-capability-flex",
        "placement-group-id",
        "placement-group-partition",
    ]
)
_KARPENTER_OPERATORS = frozenset({IN, NOT_IN, EXISTS, DOES_NOT_EXIST, GT, LT, "Gte", "Lte"})
_BOUNDS = frozenset({GT, LT, "Gte", "Lte"})
_NORMALIZED = {
    "failure-domain.beta.kubernetes.io/zone": "topology.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region": "topology.kubernetes.io/region",
    "beta.kubernetes.io/arch": "kubernetes.io/arch",
    "beta.kubernetes.io/os": "kubernetes.io/os",
    "beta.kubernetes.io/instance-type": "node.kubernetes.io/instance-type",
}


def restricted_label(key: str, provider: str | None = None) -> bool:
    """Karpenter's `IsRestrictedLabel`: labels a NodePool may not set and a pod may not require; with the
    self-managed AWS provider (`provider="karpenter"`) its own domain too."""
    if key in CORE_WELL_KNOWN_LABELS:
        return False
    domain = key.split("/", 1)[0] if "/" in key else ""
    domains = (*_RESTRICTED_DOMAINS, AWS_DOMAIN) if provider == "karpenter" else _RESTRICTED_DOMAINS
    if any(domain == d or domain.endswith("." + d) for d in domains):
        return key not in AWS_WELL_KNOWN
    return key in RESTRICTED_LABELS


def _requirement_errors(req: Requirement, provider: str | None = None) -> list[str]:
    """`v1.ValidateRequirement` for one pod expression (the checks a pod can fail)."""
    key = _NORMALIZED.get(req.key, req.key)
    op = req.operator
    out: list[str] = []
    if op not in _KARPENTER_OPERATORS:
        out.append(f"key {key} has an unsupported operator {op}")
    if restricted_label(key, provider):
        out.append(
            f"using label {key} is not allowed as it might interfere with the internal provisioning logic"
        )
    for given in req.values:
        why = label_value_error(given)
        if why is not None:
            out.append(f"invalid value {given} for key {key}, {why}")
    if op == IN and not req.values:
        out.append(f"key {key} with operator {op} must have a value defined")
    if op in _BOUNDS:
        value = go_atoi(req.values[0]) if len(req.values) == 1 else None
        if value is None or value < 0:
            out.append(f"key {key} with operator {op} must have a single positive integer value")
    return out


def _term_errors(term: NodeSelectorTerm, provider: str | None) -> list[str]:
    out = [MATCH_FIELDS_UNSUPPORTED] if term.match_fields else []
    for req in term.match_expressions:
        out += _requirement_errors(req, provider)
    return out


def provisioner_rejections(
    node_selector: Mapping[str, str], affinity: NodeAffinity, provider: str | None = None
) -> tuple[str, ...]:
    """Why Karpenter's `Provisioner.Validate` ignores the pod, in its own words; () when it does not.
    `provider`: `karpenter` (self-managed, AWS provider) or `auto` (EKS Auto Mode)."""
    out: list[str] = []
    for key, value in node_selector.items():
        out += _requirement_errors(Requirement(key=key, operator=IN, values=(value,)), provider)
    terms = affinity.required_terms if affinity.required_error is None else ()
    for term in terms:
        out += _term_errors(term, provider)
    wants_no_pool = any(
        r.key == "karpenter.sh/nodepool" and r.operator == DOES_NOT_EXIST
        for r in (terms[0].match_expressions if terms else ())
    )
    if wants_no_pool:
        out.append(NODEPOOL_DOES_NOT_EXIST)
    return tuple(dict.fromkeys(out))


def _term_never_matches(term: NodeSelectorTerm) -> str | None:
    if term.is_empty:
        return "an empty term matches no node"
    for req in term.match_expressions:
        op = req.operator
        if op not in (IN, NOT_IN, EXISTS, DOES_NOT_EXIST, GT, LT):
            return f"{req.key} {op}: operator {op} is not valid in a pod's node affinity"
        if op in (IN, NOT_IN) and not req.values:
            return f"{req.key} {op}: needs at least one value"
        if op in (GT, LT) and (len(req.values) != 1 or go_atoi(req.values[0]) is None):
            return f"{req.key} {op} {' '.join(req.values)}: needs exactly one integer value"
        bad = [v for v in req.values if label_value_error(v) is not None]
        if bad:
            return f"{req.key} {op}: {', '.join(map(repr, bad))} is not a valid label value"
    return None


def selector_never_matches(affinity: NodeAffinity) -> str | None:
    """Why no node can ever satisfy the pod's required node affinity (kube-scheduler), or None."""
    if affinity.required_error is not None:
        return f"the required node affinity does not parse: {affinity.required_error}"
    if not affinity.has_required:
        return None
    if not affinity.required_terms:
        return "requiredDuringSchedulingIgnoredDuringExecution has no nodeSelectorTerms: it matches no node"
    reasons = [_term_never_matches(t) for t in affinity.required_terms]
    if all(r is not None for r in reasons):
        return "; ".join(f"nodeSelectorTerms[{i}]: {r}" for i, r in enumerate(reasons))
    return None
