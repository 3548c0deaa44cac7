"""`kubectl gpu lint`: NodePool / NodeClass / EC2NodeClass mistakes that cost money or kill GPU jobs, found
before the objects are applied (or in a live cluster).

Definitions the checks share (README "Lifecycle and lint" documents them):

* **provider** of a NodePool: `auto` when `nodeClassRef.group` is `eks.amazonaws.com` (or, without a group,
  its kind is `NodeClass`), `karpenter` when it is `karpenter.k8s.aws` (kind `EC2NodeClass`), or when the pool
  is `karpenter.sh/v1beta1` (only self-managed Karpenter served it); else `unknown`. Never from other objects
  of the input (`facts.pool_provider`).
* **admitted instance types**: the catalog's accelerated types (`load_catalog()`, GPU/Neuron only) whose
  labels satisfy the pool's requirements and template labels (`InstanceIndex.admitted`, the same algebra as
  `pending`). The catalog holds no CPU-only types, so a CPU pool admits nothing here and is not judged on it.
* **GPU pool**: a pool that admits at least one GPU instance type of the catalog (or one a NodeOverlay gives
  GPU capacity: `overlay`); **Neuron pool**: one that admits an Inferentia or Trainium type. Both get the same
  hygiene checks (`hygiene.py`) when the pool is meant for accelerators (`facts.accelerator_intent`).
* **training pool**: an accelerator pool whose name, template labels or taints contain `train`; or whose
  admitted GPU types are all P-family or 8-GPU (or larger) sizes (Neuron: all Trainium); or whose nodes run
  pods annotated `karpenter.sh/do-not-disrupt` (live cluster or snapshot).

Karpenter / Auto Mode facts used: consolidation policies and the `WhenEmptyOrUnderutilized` default,
budgets and reasons, `expireAfter: Never`, `terminationGracePeriod` (`core/analyses/lifecycle/analysis.py`, `core/karpenter/budgets.py`
docstrings); Auto Mode's 21-day maximum node lifetime (EKS-FACTS §4); Auto Mode vs self-managed label keys
(`automode_labels.json`, EKS-FACTS §3.3: `karpenter.k8s.aws/*` keys are not instance labels on Auto Mode, so
a requirement on them restricts nothing, and the reverse); local NVMe: Auto Mode "If the configured ephemeral
storage in the NodeClass is smaller than the NVMe local storage for the instance" formats the NVMe for
ephemeral data (RAID 0 over several drives) with a 20 GiB EBS volume, and "When `ephemeralStorage.size`
equals or exceeds the local NVMe capacity ... The NVMe drive(s) are exposed directly" instead
(`awsdocs/amazon-eks-user-guide latest/ug/automode/automode-learn-instances.adoc` @06faff1); self-managed
Karpenter uses the instance store for ephemeral storage only with `instanceStorePolicy: RAID0` on the
EC2NodeClass. NVMe sizes compare in bytes: the `instance-local-nvme` label is decimal GB (Karpenter code,
EKS-FACTS §3.3).
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from kubectl_gpu.core.analyses.lint.facts import label_provider, pool_provider
from kubectl_gpu.core.analyses.lint.fixes import OverlayCapacity
from kubectl_gpu.core.analyses.lint.nodeclasses import nvme_findings
from kubectl_gpu.core.analyses.lint.objects import object_findings
from kubectl_gpu.core.analyses.lint.pools import PoolLint
from kubectl_gpu.core.analyses.lint.report import CODES, LintReport, PoolFacts
from kubectl_gpu.core.catalog import Catalog, InstanceType
from kubectl_gpu.core.k8s.models import NodePool
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import FailOn, Finding
from kubectl_gpu.core.scheduling.instances import InstanceIndex
from kubectl_gpu.core.scheduling.overlays import OverlayMatcher

__all__ = ["CODES", "LintReport", "PoolFacts", "analyse", "lint"]


def lint(state: ClusterState, catalog: Catalog, *, overlay: OverlayCapacity | None = None) -> LintReport:
    """Check every NodePool, NodeClass and EC2NodeClass in `state` (and name pre-v1 Karpenter objects).

    `overlay`: capacity NodeOverlays add per instance type (by default: what the state's NodeOverlays add in
    each pool): such types count as serving the accelerator, and a suggested fix must keep them."""
    overlays = OverlayMatcher(state.nodeoverlays)
    findings: list[Finding] = list(object_findings(state))
    facts: list[PoolFacts] = []
    gpu_pools_by_class: dict[tuple[str, str], list[tuple[NodePool, list[InstanceType]]]] = {}
    for pool in sorted(state.nodepools, key=lambda p: p.name):
        provider = pool_provider(pool) or label_provider(pool)
        index = InstanceIndex.of(catalog, provider)
        added = overlay if overlay is not None else _overlay_capacity(pool, index, overlays)
        checker = PoolLint(pool, state, catalog, index, added)
        fact = checker.run()
        findings.extend(checker.findings)
        facts.append(fact)
        ref = pool.node_class_ref
        if fact.gpu and ref is not None:
            gpu = [it for it in fact.admitted if it.is_gpu]
            gpu_pools_by_class.setdefault((ref.kind, ref.name), []).append((pool, gpu))
    for node_class in sorted(state.nodeclasses, key=lambda c: (c.kind, c.name)):
        findings.extend(
            nvme_findings(node_class, gpu_pools_by_class.get((node_class.kind, node_class.name), []))
        )
    findings.sort(key=Finding.sort_key)
    classes = tuple(f"{c.kind}/{c.name}" for c in sorted(state.nodeclasses, key=lambda c: (c.kind, c.name)))
    return LintReport(tuple(findings), tuple(facts), classes)


def analyse(
    state: ClusterState,
    catalog: Catalog,
    now: datetime,
    *,
    fail_on: FailOn = FailOn.error,
    overlay: OverlayCapacity | None = None,
) -> LintReport:
    """Lint needs no clock; `now` is taken for the common signature."""
    return msgspec.structs.replace(lint(state, catalog, overlay=overlay), fail_on=fail_on)


def _overlay_capacity(pool: NodePool, index: InstanceIndex, overlays: OverlayMatcher) -> OverlayCapacity:
    """Instance type name -> the capacity the cluster's NodeOverlays add to it in `pool`."""
    if not overlays:
        return {}
    found = ((entry.it.name, overlays.overlaid(pool, entry)) for entry in index.types)
    return {name: o.capacity for name, o in found if o is not None and o.capacity}
