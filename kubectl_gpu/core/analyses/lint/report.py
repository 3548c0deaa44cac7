"""The lint report: finding codes, per-pool facts, the report."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import msgspec

from kubectl_gpu.core.catalog import InstanceType, Provider
from kubectl_gpu.core.errors import ExitCode
from kubectl_gpu.core.report import FailOn, Finding, ObjectRef, ReportBase, Severity, severity_counts

SOURCE = "lint"
CODES: dict[str, tuple[str, str]] = {
    "LINT_INVALID_REQUIREMENT": ("error", "a requirement Karpenter rejects (operator, values)"),
    "LINT_NO_NODECLASS_REF": ("error", "NodePool without spec.template.spec.nodeClassRef"),
    "LINT_NO_INSTANCE_TYPE": ("error", "requirements admit no instance type at all"),
    "LINT_LIMITS_BELOW_SMALLEST_TYPE": ("error", "limits can never fit one instance of any admitted type"),
    "LINT_LIMITS_EXCLUDE_TYPES": ("info", "limits rule out some admitted types for good"),
    "LINT_WRONG_PROVIDER_LABEL": ("error", "karpenter.k8s.aws/* keys in an Auto Mode pool, or the reverse"),
    "LINT_BUDGET_INVALID": ("error", "a budget Karpenter cannot evaluate: the pool fails closed"),
    "LINT_GPU_POOL_CONSOLIDATES_UNDERUTILIZED": (
        "warning",
        "GPU pool with WhenEmptyOrUnderutilized (info for Balanced)",
    ),
    "LINT_GPU_POOL_NO_TAINT": ("warning", "GPU pool without a NoSchedule/NoExecute taint"),
    "LINT_HARDCODED_INSTANCE_TYPES": (
        "warning",
        "instance-type list in a GPU pool (info for an instance-family list)",
    ),
    "LINT_EXPIRE_NEVER_AUTO_MODE": (
        "warning",
        "expireAfter: Never on Auto Mode (21-day cap and drift still apply)",
    ),
    "LINT_EXPIRE_AFTER_OVER_AUTO_MODE_CAP": ("info", "expireAfter beyond Auto Mode's 21-day cap"),
    "LINT_TRAINING_POOL_NO_BUDGET_WINDOW": ("warning", "training pool whose budgets have no schedule"),
    "LINT_NVME_CACHE_DISABLED": ("warning", "the NodeClass keeps local NVMe out of ephemeral storage"),
    "LINT_REMOVED_API_VERSION": (
        "error",
        "karpenter.sh/v1beta1 or v1alpha5 (Provisioner, AWSNodeTemplate): no longer served",
    ),
    "LINT_UNKNOWN_FIELD": (
        "error",
        "a field the karpenter.sh/v1 NodePool schema does not have (or has elsewhere)",
    ),
    "LINT_UNKNOWN_INSTANCE_NAME": ("warning", "an accelerated family, size or type that does not exist"),
    "LINT_DUPLICATE_OBJECT": ("error", "two objects of one kind with the same name in the input"),
    "LINT_STATIC_POOL_FIELD": (
        "error",
        "a static NodePool (spec.replicas) sets limits other than nodes, or weight (info: consolidation "
        "settings it ignores)",
    ),
}


def lint_finding(
    code: str, obj: ObjectRef, message: str, fix: str | None, severity: Severity | None = None
) -> Finding:
    return Finding(code, severity or Severity(CODES[code][0]), obj, message, fix, SOURCE)


class PoolFacts(msgspec.Struct, frozen=True):
    """What lint worked out about one NodePool (also in the JSON, to explain the verdicts)."""

    name: str
    provider: Provider | Literal["unknown"]  # from the pool's own nodeClassRef (or API version)
    admitted: tuple[InstanceType, ...]
    gpu: bool
    training: tuple[str, ...]  # why it counts as a training pool; empty: it does not
    neuron: bool = False  # admits a Neuron (Inferentia, Trainium) type

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "provider": self.provider,
            "gpuPool": self.gpu,
            "neuronPool": self.neuron,
            "trainingPool": bool(self.training),
            "trainingBecause": list(self.training),
            "admittedInstanceTypes": [it.name for it in self.admitted],
        }


class LintReport(msgspec.Struct, ReportBase, frozen=True):
    """Exit 1 when a finding reaches `fail_on` (the threshold it was run with; `--fail-on`, default error)."""

    kind: ClassVar[str] = "LintReport"
    findings: tuple[Finding, ...]
    pools: tuple[PoolFacts, ...]
    node_classes: tuple[str, ...]
    fail_on: FailOn = FailOn.error

    def exit_code(self, fail_on: FailOn | None = None) -> ExitCode:
        return ReportBase.exit_code(self, fail_on or self.fail_on)

    def body(self) -> dict[str, Any]:
        return {
            "findings": [f.to_dict() for f in self.findings],
            "summary": severity_counts(self.findings),
            "nodePools": [p.to_dict() for p in self.pools],
            "nodeClasses": list(self.node_classes),
            "failOn": self.fail_on.value,
        }
