"""Karpenter's label keys: the legacy keys it normalises, its core well-known labels, the restricted ones."""

from __future__ import annotations

from collections.abc import Mapping

from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = ["CORE_WELL_KNOWN_LABELS", "NORMALIZED_LABELS", "RESTRICTED_LABELS", "label_value_error"]

# kubernetes-sigs/karpenter pkg/apis/v1/labels.go (HEAD): NormalizedLabels and core WellKnownLabels.
NORMALIZED_LABELS: Mapping[str, str] = {
    "failure-domain.beta.kubernetes.io/zone": "topology.kubernetes.io/zone",
    "beta.kubernetes.io/arch": "kubernetes.io/arch",
    "beta.kubernetes.io/os": "kubernetes.io/os",
    "beta.kubernetes.io/instance-type": "node.kubernetes.io/instance-type",
    "failure-domain.beta.kubernetes.io/region": "topology.kubernetes.io/region",
}
CORE_WELL_KNOWN_LABELS = frozenset(
    {
        "karpenter.sh/nodepool",
        "topology.kubernetes.io/zone",
        "topology.kubernetes.io/region",
        "node.kubernetes.io/instance-type",
        "kubernetes.io/arch",
        "kubernetes.io/os",
        "karpenter.sh/capacity-type",
        "node.kubernetes.io/windows-build",
    }
)
"""Karpenter core's well-known labels. A cloud provider adds its own (AWS: `karpenter.k8s.aws/instance-*`,
`topology.k8s.aws/zone-id`, ...; Auto Mode: `eks.amazonaws.com/*`): pass the full set as `allow_undefined`."""
RESTRICTED_LABELS = frozenset({"kubernetes.io/hostname"})
"""Left out of `Requirements.render()` like upstream `Requirements.String()`."""

# kubernetes/kubernetes staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go IsValidLabelValue.
_LABEL_VALUE = lazy_pattern(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")


def label_value_error(value: str) -> str | None:
    """Why `value` is not a valid label value (apimachinery `IsValidLabelValue`), or None: at most 63
    characters, empty or alphanumeric at both ends with `-`, `_`, `.` between."""
    if len(value) > 63:
        return "must be no more than 63 characters"
    if not _LABEL_VALUE.fullmatch(value):
        return (
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
            "and must start and end with an alphanumeric character"
        )
    return None
