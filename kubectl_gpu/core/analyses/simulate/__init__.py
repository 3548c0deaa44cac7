"""`kubectl gpu simulate`: what a change would do to the GPU fleet, from every analysis run before and after
it on a copy of the cluster. Combines the analyses through `diagnose.run_suite` only (the independence
contract in pyproject.toml lists the analyses it combines, not this package)."""

from kubectl_gpu.core.analyses.simulate.analysis import changed_cluster, simulate
from kubectl_gpu.core.analyses.simulate.effects import Direction, Effect
from kubectl_gpu.core.analyses.simulate.report import SIMULATE_VERSION, SimulateFailOn, SimulateReport

__all__ = [
    "SIMULATE_VERSION",
    "Direction",
    "Effect",
    "SimulateFailOn",
    "SimulateReport",
    "changed_cluster",
    "simulate",
]
