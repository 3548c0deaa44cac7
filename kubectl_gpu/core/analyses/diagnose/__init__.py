"""Every analysis in one report, worst first."""

from kubectl_gpu.core.analyses.diagnose.analysis import (
    ANALYSES,
    KINDS,
    DiagnoseReport,
    Suite,
    analyse,
    cluster_prices,
    combine,
    kinds_for,
    run_suite,
)

__all__ = [
    "ANALYSES",
    "KINDS",
    "DiagnoseReport",
    "Suite",
    "analyse",
    "cluster_prices",
    "combine",
    "kinds_for",
    "run_suite",
]
