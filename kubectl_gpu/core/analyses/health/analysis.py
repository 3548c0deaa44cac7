"""Node health findings: conditions (right polarity), the EKS node monitoring agent's issues and XID
repairs, GPUs the device plugin does not advertise.

The issue names and descriptions come from the agent's own documentation (`data/node_health.json`,
built by scripts/build_node_health.py); names like `NvidiaXID79Error` match the documented
`NvidiaXID[Code]Error`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import datetime, timedelta
from functools import cache
from typing import Any, ClassVar

import msgspec

from kubectl_gpu.core.accelerators.nodes import NodeRow, node_rows
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.data_files import data_file
from kubectl_gpu.core.k8s.conditions import NODE_MONITORING_CONDITIONS
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import Finding, ObjectRef, ReportBase, Severity

__all__ = ["HealthCatalog", "HealthReport", "Issue", "analyse", "load_health_catalog", "node_findings"]

SOURCE = "nodes"
AGENT = "eks-node-monitoring-agent"
# Agent events older than this are history, not an incident.
EVENT_WINDOW = timedelta(hours=24)


class Issue(msgspec.Struct, frozen=True):
    name: str
    severity: str  # Condition | Event
    condition: str
    description: str


class HealthCatalog:
    def __init__(self, data: dict[str, Any]) -> None:
        self.source = str(data.get("source", ""))
        self.issues = tuple(
            Issue(i["name"], i["severity"], i["condition"], i["description"]) for i in data.get("issues", [])
        )
        self._exact = {i.name: i for i in self.issues}
        self._patterns = [
            (re.compile("^" + re.escape(i.name).replace(re.escape("[Code]"), r"(\d+)") + "$"), i)
            for i in self.issues
            if "[Code]" in i.name
        ]
        repairs = data.get("xidRepairs") or {}
        self.xid_source = str(repairs.get("source", ""))
        self.xid_actions = {int(a["xid"]): str(a["action"]) for a in repairs.get("actions", [])}

    def lookup(self, reason: str) -> tuple[Issue | None, int | None]:
        """The documented issue a condition/event reason names, and its code (XID) if any."""
        if reason in self._exact:
            return self._exact[reason], None
        for pattern, issue in self._patterns:
            match = pattern.match(reason)
            if match:
                return issue, int(match.group(1))
        return None, None

    def explain(self, reason: str) -> str:
        issue, code = self.lookup(reason)
        if issue is None:
            return reason
        text = f"{reason}: {issue.description}"
        if code is not None and "XID" in issue.name:
            action = self.xid_actions.get(code)
            if action:
                text += f" EKS node repair action for XID {code}: {action}."
        return text


@cache
def load_health_catalog() -> HealthCatalog:
    raw = data_file("node_health.json")
    return HealthCatalog(json.loads(raw))


def _ref(name: str) -> ObjectRef:
    return ObjectRef("Node", name)


def _condition_findings(row: NodeRow, health: HealthCatalog) -> list[Finding]:
    """NotReady, and every condition that says the node is unhealthy (with its polarity)."""
    out: list[Finding] = []
    if not row.ready:
        ready = next((c for c in row.conditions if c.type == "Ready"), None)
        why = f": {ready.reason or ''} {ready.message or ''}".rstrip() if ready else ""
        out.append(
            Finding(
                "NODE_NOT_READY",
                Severity.ERROR,
                _ref(row.name),
                f"node is not Ready{why}",
                "kubectl describe node; on Auto Mode, node auto repair replaces nodes that stay NotReady",
                SOURCE,
            )
        )
    for cond in row.conditions:
        if cond.healthy is not False or cond.type == "Ready":
            continue
        reason = cond.reason or ""
        detail = health.explain(reason) if reason else (cond.message or "")
        if cond.type == "AcceleratedHardwareReady":
            code, severity = "ACCELERATED_HARDWARE_NOT_READY", Severity.ERROR
            fix = (
                "move GPU workloads off this node (kubectl cordon + drain); with EKS node auto repair the "
                "node is rebooted or replaced automatically, otherwise replace it (kubectl delete nodeclaim)"
            )
        elif cond.type in NODE_MONITORING_CONDITIONS:
            code, severity = "NODE_CONDITION_UNHEALTHY", Severity.ERROR
            fix = "kubectl describe node; the EKS node monitoring agent documents each reason"
        else:
            code, severity = "NODE_CONDITION_UNHEALTHY", Severity.WARNING
            fix = "kubectl describe node"
        message = f"{cond.type}={cond.status}" + (f" ({detail})" if detail else "")
        if cond.message and cond.message not in message:
            message += f": {cond.message}"
        out.append(Finding(code, severity, _ref(row.name), message, fix, SOURCE))
    return out


def _device_findings(row: NodeRow) -> list[Finding]:
    """Accelerators the node does not advertise or marks unhealthy, and a cordon."""
    out: list[Finding] = []
    acc = row.accelerator
    if acc is not None and acc.source == "catalog" and row.ready:
        out.append(
            Finding(
                "GPU_NOT_ADVERTISED",
                Severity.WARNING,
                _ref(row.name),
                f"{row.instance_type} has {acc.capacity} {acc.resource or 'accelerators'} but the node advertises "
                "none: the device plugin is not running or not ready",
                f"kubectl gpu smi {row.name} to see whether the driver sees the GPUs; on Auto Mode the device plugin "
                "is managed by AWS (check AcceleratedHardwareReady)",
                SOURCE,
            )
        )
    elif acc is not None and acc.source == "device-plugin" and acc.allocatable < acc.capacity:
        out.append(
            Finding(
                "GPU_UNHEALTHY_DEVICES",
                Severity.WARNING,
                _ref(row.name),
                f"{acc.resource}: capacity {acc.capacity}, allocatable {acc.allocatable}: the device plugin "
                "marked devices unhealthy",
                f"kubectl gpu smi {row.name} (look for XID, ECC and retired/remapped pages)",
                SOURCE,
            )
        )
    if row.unschedulable:
        out.append(
            Finding(
                "NODE_CORDONED",
                Severity.INFO,
                _ref(row.name),
                "node is cordoned",
                f"kubectl uncordon {row.name}",
                SOURCE,
            )
        )
    return out


def _event_findings(
    state: ClusterState, names: set[str], now: datetime, health: HealthCatalog
) -> list[Finding]:
    """The EKS node monitoring agent's recent events on these nodes."""
    out: list[Finding] = []
    for event in state.events:
        if event.component != AGENT or event.involved.kind != "Node" or event.involved.name not in names:
            continue
        if event.last_seen is not None and now - event.last_seen > EVENT_WINDOW:
            continue
        issue, _ = health.lookup(event.reason)
        severity = Severity.ERROR if issue is not None and issue.severity == "Condition" else Severity.WARNING
        if event.type == "Normal":
            severity = Severity.INFO
        count = f" (x{event.count})" if event.count > 1 else ""
        out.append(
            Finding(
                "NODE_HEALTH_EVENT",
                severity,
                _ref(event.involved.name or ""),
                f"{health.explain(event.reason)}{count} {event.message}".strip(),
                f"kubectl gpu smi {event.involved.name}; kubectl get events --field-selector "
                "reportingComponent=eks-node-monitoring-agent",
                SOURCE,
            )
        )
    return out


def node_findings(
    rows: Iterable[NodeRow], state: ClusterState, now: datetime, health: HealthCatalog
) -> list[Finding]:
    """Findings for GPU nodes (the rows of a node report)."""
    out: list[Finding] = []
    names = set()
    for row in rows:
        names.add(row.name)
        out += _condition_findings(row, health)
        out += _device_findings(row)
    out += _event_findings(state, names, now, health)
    return sorted(out, key=Finding.sort_key)


class HealthReport(msgspec.Struct, ReportBase, frozen=True):
    """GPU node health (conditions, the node monitoring agent, XID events): part of `diagnose`."""

    kind: ClassVar[str] = "HealthReport"
    findings: tuple[Finding, ...]
    now: datetime

    def body(self) -> dict[str, Any]:
        return {"findings": [f.to_dict() for f in self.findings]}


def analyse(state: ClusterState, catalog: Catalog, now: datetime) -> HealthReport:
    found = node_findings(node_rows(state, catalog), state, now, load_health_catalog())
    return HealthReport(tuple(found), now)
