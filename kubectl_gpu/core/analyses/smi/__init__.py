"""What nvidia-smi (or neuron-ls) found in a debug pod: GPU health findings, one node's `smi` result."""

from kubectl_gpu.core.analyses.smi.analysis import (
    Finding,
    ProbeHealthReport,
    SmiResult,
    analyse,
    findings,
    sees_accelerator,
    unseen_reason,
)
from kubectl_gpu.core.analyses.smi.stored import stored_results

__all__ = [
    "KINDS",
    "Finding",
    "ProbeHealthReport",
    "SmiResult",
    "analyse",
    "findings",
    "sees_accelerator",
    "stored_results",
    "unseen_reason",
]

# Stored probes come with the snapshot; live, the debug pods read them (`kubectl gpu smi`).
KINDS = frozenset({"nodes"})
