"""NVIDIA driver and CUDA ceiling per node and AMI, and GPU workloads whose CUDA need exceeds it."""

from kubectl_gpu.core.analyses.drivers.analysis import DriverReport, analyse

__all__ = ["KINDS", "DriverReport", "analyse"]

KINDS = frozenset({"nodes", "pods", "nodepools", "nodeclaims"})
