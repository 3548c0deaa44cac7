"""When each GPU node will be replaced (expiry, drift, consolidation, budgets) and whether its jobs survive."""

from kubectl_gpu.core.analyses.lifecycle.analysis import analyse
from kubectl_gpu.core.analyses.lifecycle.report import LifecycleReport

__all__ = ["KINDS", "LifecycleReport", "analyse"]

KINDS = frozenset(
    {"nodes", "pods", "events", "nodepools", "nodeclaims", "nodeclasses", "ec2nodeclasses", "resourceslices"}
)
