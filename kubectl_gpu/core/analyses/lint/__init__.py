"""NodePool / NodeClass / EC2NodeClass mistakes that cost money or kill GPU jobs."""

from kubectl_gpu.core.analyses.lint.analysis import LintReport, analyse

__all__ = ["KINDS", "LintReport", "analyse"]

KINDS = frozenset(
    {"nodes", "pods", "nodepools", "nodeclasses", "ec2nodeclasses", "provisioners", "nodeoverlays"}
)
