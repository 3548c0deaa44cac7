"""GPU inventory per node: instance type, accelerators allocatable / requested / free, driver, health."""

from kubectl_gpu.core.analyses.nodes.analysis import NodeReport, analyse

__all__ = ["KINDS", "NodeReport", "analyse"]

KINDS = frozenset({"nodes", "pods", "nodeclaims", "resourceslices"})
