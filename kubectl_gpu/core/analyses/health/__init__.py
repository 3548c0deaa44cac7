"""GPU node health: conditions with the right polarity, the EKS node monitoring agent, XID events."""

from kubectl_gpu.core.analyses.health.analysis import HealthReport, analyse

__all__ = ["KINDS", "HealthReport", "analyse"]

KINDS = frozenset({"nodes", "pods", "events", "nodeclaims", "resourceslices"})
