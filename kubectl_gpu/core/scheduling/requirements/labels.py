"""Karpenter's label keys: the legacy keys it normalises, its core well-known labels, the restricted ones."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["CORE_WELL_KNOWN_LABELS", "NORMALIZED_LABELS", "RESTRICTED_LABELS"]

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
