"""Why is a GPU pod Pending: targets evaluated the way Karpenter and kube-scheduler do, one verdict per pod."""

from kubectl_gpu.core.analyses.pending.analysis import analyse, analyse_pending, explain
from kubectl_gpu.core.analyses.pending.report import ExplainReport, PendingReport, PodDiagnosis
from kubectl_gpu.core.analyses.pending.verdicts import Verdict

__all__ = [
    "KINDS",
    "ExplainReport",
    "PendingReport",
    "PodDiagnosis",
    "Verdict",
    "analyse",
    "analyse_pending",
    "explain",
]

KINDS = frozenset(
    {
        "nodes",
        "pods",
        "events",
        "nodepools",
        "nodeclaims",
        "nodeclasses",
        "ec2nodeclasses",
        "resourceslices",
        "persistentvolumeclaims",
        "persistentvolumes",
        "storageclasses",
        "daemonsets",
        "nodeoverlays",
    }
    | {"provisioners", "machines"}  # only to notice a pre-v1 Karpenter (UNSUPPORTED_KARPENTER_VERSION)
)
