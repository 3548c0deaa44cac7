"""Node health findings from conditions, agent events and device-plugin counts."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from kubectl_gpu.core.accelerators.nodes import node_rows
from kubectl_gpu.core.analyses.health.analysis import load_health_catalog, node_findings
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.k8s.parse import parse_object
from kubectl_gpu.core.k8s.state import ClusterState
from tests.helpers import FIXTURES, REPO, node

NOW = datetime(2026, 11, 28, 9, tzinfo=UTC)
HEALTH_FIXTURES = FIXTURES / "health"  # the agent's docs, vendored from shared/fixtures (see its NOTICE)


def _gpu(name: str, **kw: Any) -> dict[str, Any]:
    labels = dict(load_catalog().labels("g6e.12xlarge", "auto"))
    labels["karpenter.sh/nodepool"] = "gpu"
    kw.setdefault("capacity", {"cpu": "48", "memory": "384Gi", "nvidia.com/gpu": "4"})
    return node(name, labels=labels, **kw)


def _agent_event(
    node_name: str, reason: str, *, when: str = "2026-11-28T08:00:00Z", type_: str = "Warning"
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{node_name}.{reason}", "namespace": "default"},
        "involvedObject": {"kind": "Node", "name": node_name},
        "reason": reason,
        "message": "detected by the agent",
        "type": type_,
        "reportingComponent": "eks-node-monitoring-agent",
        "lastTimestamp": when,
        "count": 2,
    }


def _findings(*objects: dict[str, Any]) -> list[tuple[str, str, str]]:
    state = ClusterState.of(parse_object(o) for o in objects)
    rows = node_rows(state, load_catalog())
    return [
        (f.code, str(f.severity), f.message) for f in node_findings(rows, state, NOW, load_health_catalog())
    ]


def test_healthy_gpu_node_has_no_findings() -> None:
    conditions = [
        {"type": "Ready", "status": "True"},
        {"type": "AcceleratedHardwareReady", "status": "True"},
        {"type": "MemoryPressure", "status": "False"},
    ]
    assert _findings(_gpu("i-1", conditions=conditions)) == []


def test_xid_condition_is_explained_with_repair_action() -> None:
    conditions = [
        {"type": "Ready", "status": "True"},
        {
            "type": "AcceleratedHardwareReady",
            "status": "False",
            "reason": "NvidiaXID79Error",
            "message": "GPU has fallen off the bus",
        },
    ]
    ((code, severity, message),) = _findings(_gpu("i-1", conditions=conditions))
    assert (code, severity) == ("ACCELERATED_HARDWARE_NOT_READY", "error")
    assert "A critical GPU error occurred" in message and "XID 79: reboot" in message
    assert "fallen off the bus" in message


def test_pressure_conditions_have_inverse_polarity() -> None:
    conditions = [{"type": "Ready", "status": "True"}, {"type": "DiskPressure", "status": "True"}]
    assert [f[:2] for f in _findings(_gpu("i-1", conditions=conditions))] == [
        ("NODE_CONDITION_UNHEALTHY", "warning")
    ]


def test_not_ready_and_cordoned() -> None:
    conditions = [{"type": "Ready", "status": "False", "reason": "KubeletNotReady"}]
    codes = [f[0] for f in _findings(_gpu("i-1", conditions=conditions, unschedulable=True))]
    assert codes == ["NODE_NOT_READY", "NODE_CORDONED"]


def test_device_plugin_counts() -> None:
    missing = _findings(_gpu("i-1", capacity={"cpu": "48", "memory": "384Gi"}))
    assert [f[0] for f in missing] == ["GPU_NOT_ADVERTISED"]
    partial = _findings(
        _gpu(
            "i-2",
            capacity={"cpu": "48", "nvidia.com/gpu": "4"},
            allocatable={"cpu": "48", "nvidia.com/gpu": "3"},
        )
    )
    assert [f[0] for f in partial] == ["GPU_UNHEALTHY_DEVICES"]


def test_agent_events_recent_only_and_severity_from_the_docs() -> None:
    found = _findings(
        _gpu("i-1"),
        _agent_event("i-1", "NvidiaXID13Warning"),
        _agent_event("i-1", "NvidiaXID48Error"),
        _agent_event("i-1", "NvidiaThermalError", when="2026-11-20T00:00:00Z"),  # a week old: history
    )
    assert [(c, s) for c, s, _ in found] == [("NODE_HEALTH_EVENT", "error"), ("NODE_HEALTH_EVENT", "warning")]
    assert "XID 48: replace (graceful)" in found[0][2] and "(x2)" in found[0][2]


def test_packaged_data_is_built_from_the_agent_docs() -> None:
    import subprocess
    import sys

    script = REPO / "scripts/build_node_health.py"
    result = subprocess.run(
        [sys.executable, str(script), "--fixtures", str(HEALTH_FIXTURES), "--check"], check=False
    )
    assert result.returncode == 0, "node_health.json is stale: run scripts/build_node_health.py"


def test_every_documented_issue_is_well_formed() -> None:
    health = load_health_catalog()
    assert len(health.issues) > 50
    assert {i.severity for i in health.issues} == {"Condition", "Event"}
    assert {i.condition for i in health.issues} <= {
        "AcceleratedHardwareReady",
        "ContainerRuntimeReady",
        "KernelReady",
        "NetworkingReady",
        "StorageReady",
    }
    assert all(i.name and i.description for i in health.issues)
    data = json.loads((REPO / "kubectl_gpu/data/node_health.json").read_text())
    assert "aws/eks-node-monitoring-agent" in data["source"]
