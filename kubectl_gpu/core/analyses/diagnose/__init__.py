"""Every analysis in one report, worst first."""

from kubectl_gpu.core.analyses.diagnose.analysis import (
    ANALYSES,
    KINDS,
    RENAMED,
    DiagnoseReport,
    Suite,
    analyse,
    cluster_prices,
    combine,
    kinds_for,
    run_suite,
)
from kubectl_gpu.core.analyses.diagnose.pools import PoolsReport, PoolSummary, pools_of_suite

__all__ = [
    "ANALYSES",
    "KINDS",
    "RENAMED",
    "DiagnoseReport",
    "PoolSummary",
    "PoolsReport",
    "Suite",
    "analyse",
    "cluster_prices",
    "combine",
    "kinds_for",
    "pools_of_suite",
    "run_suite",
]
