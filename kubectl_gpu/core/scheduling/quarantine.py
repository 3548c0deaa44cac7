"""Taints that GPU health systems put on a faulty node: a quarantine, never a toleration to add (issue 37).

* **NVIDIA NVSentinel** (fault-quarantine module): taints are configured per ruleset; its integration guide
  lists the keys its test suite uses, `nvidia.com/gpu-xid-error`, `nvidia.com/gpu-nvlink-error`,
  `nvidia.com/syslog-xid-error`, `nvidia.com/gpu-error` (NVIDIA/NVSentinel `docs/INTEGRATIONS.md` @9087c1f8,
  "Default Taint Examples"), and it records on the node what it applied: annotations `quarantineHealthEvent`
  and `quarantineHealthEventAppliedTaints` (`fault-quarantine/pkg/common/common.go`). A taint listed there,
  or one of those keys, is NVSentinel's.
* **EKS node repair** (Auto Mode, Karpenter's node repair): the EKS node monitoring agent sets a condition
  such as `AcceleratedHardwareReady=False` (it taints nothing: EKS user guide, "Detect node health issues
  and enable automatic node repair"); repair then deletes the NodeClaim, and Karpenter's termination taints
  the node `karpenter.sh/disrupted:NoSchedule` (kubernetes-sigs/karpenter `pkg/apis/v1/taints.go`
  `DisruptedNoScheduleTaint`). That taint on a node with a node-monitoring condition False is the repair.

Tolerating any of these would place the pod on hardware known to be faulty, or on a node being replaced:
the advice is to wait for the repair or run elsewhere.
"""

from __future__ import annotations

import json

from kubectl_gpu.core.k8s.conditions import NODE_MONITORING_CONDITIONS
from kubectl_gpu.core.k8s.models import Node
from kubectl_gpu.core.scheduling.taints import Taint

__all__ = ["NVSENTINEL_TAINT_KEYS", "quarantine_of"]

NVSENTINEL_TAINT_KEYS = frozenset(
    {
        "nvidia.com/gpu-xid-error",
        "nvidia.com/gpu-nvlink-error",
        "nvidia.com/syslog-xid-error",
        "nvidia.com/gpu-error",
    }
)
NVSENTINEL_EVENT = "quarantineHealthEvent"
NVSENTINEL_TAINTS = "quarantineHealthEventAppliedTaints"
DISRUPTED = "karpenter.sh/disrupted"


def _applied_keys(node: Node) -> frozenset[str]:
    """The taint keys NVSentinel recorded as applied (a JSON list of taints), or none when unreadable."""
    raw = node.meta.annotations.get(NVSENTINEL_TAINTS, "")
    try:
        found = json.loads(raw) if raw else []
    except ValueError:
        return frozenset()
    items = found if isinstance(found, list) else []
    return frozenset(str(t["key"]) for t in items if isinstance(t, dict) and t.get("key"))


def _failed_conditions(node: Node) -> list[str]:
    return sorted(
        f"{c.type}={c.status}" + (f" ({c.reason})" if c.reason else "")
        for c in node.conditions
        if c.type in NODE_MONITORING_CONDITIONS and c.status == "False"
    )


def quarantine_of(node: Node, taint: Taint) -> str | None:
    """Which health system quarantined `node` with `taint`, in words, or None when it is no quarantine."""
    if taint.key in NVSENTINEL_TAINT_KEYS or taint.key in _applied_keys(node):
        event = " (annotation quarantineHealthEvent)" if node.meta.annotations.get(NVSENTINEL_EVENT) else ""
        return f"NVIDIA NVSentinel quarantined it{event}"
    if taint.key == DISRUPTED:
        failed = _failed_conditions(node)
        if failed:
            return f"EKS node repair is replacing it ({', '.join(failed)})"
    return None
