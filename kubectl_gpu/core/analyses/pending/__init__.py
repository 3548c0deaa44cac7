"""Why is a GPU pod Pending: targets evaluated the way Karpenter and kube-scheduler do, one verdict per pod."""

from kubectl_gpu.core.analyses.pending.analysis import analyse_pending
from kubectl_gpu.core.analyses.pending.report import PendingReport, PodDiagnosis
from kubectl_gpu.core.analyses.pending.verdicts import Verdict

__all__ = ["PendingReport", "PodDiagnosis", "Verdict", "analyse_pending"]
