"""GPU inventory per node: instance type, accelerators allocatable / requested / free, driver, health; and
one node with its pods (`analyse_node`)."""

from kubectl_gpu.core.analyses.nodes.analysis import NodeReport, analyse
from kubectl_gpu.core.analyses.nodes.node import NodeDetailReport, analyse_node

__all__ = ["KINDS", "NodeDetailReport", "NodeReport", "analyse", "analyse_node"]

# nodeoverlays: a NodeOverlay may price a node (`core.scheduling.overlay_prices`), as `cost` prices it
KINDS = frozenset({"nodes", "pods", "nodeclaims", "nodeoverlays", "resourceslices"})
