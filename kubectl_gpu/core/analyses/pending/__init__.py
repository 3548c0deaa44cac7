"""Why is a GPU pod Pending: targets evaluated the way Karpenter and kube-scheduler do, one `Decision` per pod.

Module map, each layer importing only those above it (tests/test_import_cycles.py holds it, every import
counted, TYPE_CHECKING and function-level ones included):

* `verdicts.py`: the stable verdict codes, `Blocker`, `TargetRef`; `times.py`: times in words.
* `decision.py`: `Decision`, the typed answer per pod (verdict, reason, fix, the target it is about) with its
  fix's check (`FixCheck`, `After`): what every later step consumes.
* `pod/`: the pod alone: its shape (`shape.py`), the keys grouping pods of one shape or workload
  (`shapes.py`), the verdicts it decides before any target is judged (`gates.py`), its events (`evidence.py`).
* `checks/`: what checking a target gives (`evaluation.py`: `Check`, `TargetEvaluation`) and the checks
  every target shares (topology, volumes), the fixes' words, the NodePool to propose when none fits.
* `ranking.py`: the targets of a shape nearest first (`nearness`, `Ranked`), named only when shown.
* `targets/`: the candidates: existing nodes (`nodes/`) and NodePools (`pools/`: a pool's own facts, its
  template per kind of pool, `PoolTarget`, `PoolKinds`).
* `decide.py`: the rules that make a pod's `Decision` from its status, events and ranked targets.
* `verify/`: a fix made on a copy of the cluster and the pod evaluated again; the blocked pod's `Decision`
  settled on the fix that gets furthest.
* `disagreements.py`: where the provisioner's own message says otherwise.
* `report.py`: `PendingReport`, `PodDiagnosis` (a pod's `Decision`, evidence and ranked targets),
  `ExplainReport`, and their JSON.
* `analysis.py`: the entry points (`analyse`, `analyse_pending`, `explain`): which pods, their targets
  evaluated once per shape, then decided, verified and reported.
"""

from kubectl_gpu.core.analyses.pending.analysis import analyse, analyse_pending, explain
from kubectl_gpu.core.analyses.pending.decision import Decision
from kubectl_gpu.core.analyses.pending.report import ExplainReport, PendingReport, PodDiagnosis
from kubectl_gpu.core.analyses.pending.verdicts import Verdict

__all__ = [
    "KINDS",
    "Decision",
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
