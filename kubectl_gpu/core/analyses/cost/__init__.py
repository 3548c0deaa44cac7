"""What the accelerators cost, how much is idle and why; the accelerator instance inventory."""

from kubectl_gpu.core.analyses.cost.analysis import CostReport, analyse
from kubectl_gpu.core.analyses.cost.inventory import Inventory, analyse_inventory

__all__ = ["INVENTORY_KINDS", "KINDS", "CostReport", "Inventory", "analyse", "analyse_inventory"]

KINDS = frozenset({"nodes", "pods", "nodepools", "nodeclaims", "nodeoverlays", "resourceslices"})
INVENTORY_KINDS = frozenset({"nodes", "nodeclaims", "nodeoverlays", "resourceslices"})  # overlay prices
