"""Every analysis in one report, worst first."""

from kubectl_gpu.core.analyses.diagnose.analysis import (
    ANALYSES,
    KINDS,
    DiagnoseReport,
    analyse,
    combine,
    kinds_for,
)

__all__ = ["ANALYSES", "KINDS", "DiagnoseReport", "analyse", "combine", "kinds_for"]
