"""How busy the allocated GPUs are, what the idle ones cost, and $ per million tokens per inference workload."""

from kubectl_gpu.core.analyses.usage.analysis import NOT_READ, analyse
from kubectl_gpu.core.analyses.usage.report import DEFAULT_IDLE_BELOW, FINDING_CODES, UsageReport

__all__ = ["DEFAULT_IDLE_BELOW", "FINDING_CODES", "KINDS", "NOT_READ", "UsageReport", "analyse"]

# What the analysis reads; the adapters also read the exporters' and servers' /metrics (pods/proxy).
KINDS = frozenset({"nodes", "pods", "nodepools", "nodeclaims", "nodeoverlays", "resourceslices"})
