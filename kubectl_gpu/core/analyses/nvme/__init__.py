"""Local NVMe instance store per GPU node: used as a RAID0 cache for kubelet and containerd, or not."""

from kubectl_gpu.core.analyses.nvme.analysis import NvmeReport, analyse

__all__ = ["KINDS", "NvmeReport", "analyse"]

KINDS = frozenset(
    {"nodes", "pods", "nodepools", "nodeclaims", "nodeclasses", "ec2nodeclasses", "resourceslices"}
)
