"""One cluster's state as the analyses see it, from either source, with the indexes they share."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from functools import cached_property
from typing import Any

from kubectl_gpu.core.k8s.models import (
    Event,
    Node,
    NodeClaim,
    NodeClass,
    NodePool,
    Pod,
    Resources,
    ResourceSlice,
)
from kubectl_gpu.core.k8s.parse import Model
from kubectl_gpu.core.probe import ProbeResult, parse_saved_output

_PROBE_TEXT_KEYS = ("output", "collectorOutput", "collector", "stdout", "text", "raw")


def _parse_probe(value: object) -> ProbeResult | None:
    if value is None or isinstance(value, ProbeResult):
        return value
    if isinstance(value, dict):
        value = next((value[k] for k in _PROBE_TEXT_KEYS if isinstance(value.get(k), str | bytes)), None)
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if isinstance(value, str) and value.strip():
        try:
            return parse_saved_output(value)
        except ValueError:
            return None
    return None


__all__ = ["ClusterState", "Note"]


@dataclass(frozen=True, slots=True)
class Note:
    """Something the user must know about the data itself: a kind we could not read, a skipped object."""

    code: str  # FORBIDDEN | ABSENT | SKIPPED | PARTIAL
    message: str
    kind: str | None = None


@dataclass
class ClusterState:
    """Everything read from one source. Built once; analyses only read it."""

    nodes: list[Node] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    nodepools: list[NodePool] = field(default_factory=list)
    nodeclaims: list[NodeClaim] = field(default_factory=list)
    nodeclasses: list[NodeClass] = field(default_factory=list)
    resourceslices: list[ResourceSlice] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    source: str = ""
    context: str | None = None
    captured_at: datetime | None = None
    # Kinds whose absence is a fact (CRD not installed) rather than a gap (403): "nodepools", ...
    absent: set[str] = field(default_factory=set)
    # Probe outputs per node name (collector text), from `snapshot --probe` bundles.
    probes: dict[str, Any] = field(default_factory=dict)
    _parsed_probes: dict[str, ProbeResult | None] = field(default_factory=dict, repr=False)

    def add(self, models: Iterable[Model]) -> None:
        lists: dict[type, list[Any]] = {
            Node: self.nodes,
            Pod: self.pods,
            Event: self.events,
            NodePool: self.nodepools,
            NodeClaim: self.nodeclaims,
            NodeClass: self.nodeclasses,
            ResourceSlice: self.resourceslices,
        }
        for model in models:
            lists[type(model)].append(model)

    def note(self, code: str, message: str, kind: str | None = None) -> None:
        if not any(n.code == code and n.message == message for n in self.notes):
            self.notes.append(Note(code, message, kind))

    # Indexes, computed on first use. The state is not mutated after loading.

    @cached_property
    def node_by_name(self) -> dict[str, Node]:
        return {n.name: n for n in self.nodes}

    @cached_property
    def nodepool_by_name(self) -> dict[str, NodePool]:
        return {p.name: p for p in self.nodepools}

    @cached_property
    def nodeclass_by_ref(self) -> dict[tuple[str, str], NodeClass]:
        """(kind, name) -> NodeClass/EC2NodeClass."""
        return {(c.kind, c.name): c for c in self.nodeclasses}

    @cached_property
    def pods_by_node(self) -> dict[str, list[Pod]]:
        out: dict[str, list[Pod]] = defaultdict(list)
        for pod in self.pods:
            if pod.node_name:
                out[pod.node_name].append(pod)
        return dict(out)

    @cached_property
    def requested_by_node(self) -> dict[str, Resources]:
        """Sum of the effective requests of non-terminated pods bound to each node."""
        out: dict[str, Resources] = {}
        for name, pods in self.pods_by_node.items():
            total: Resources = {}
            for pod in pods:
                if pod.terminated:
                    continue
                for res, value in pod.requests.items():
                    total[res] = total.get(res, Decimal(0)) + value
            out[name] = total
        return out

    @cached_property
    def nodeclaim_by_node(self) -> dict[str, NodeClaim]:
        return {c.node_name: c for c in self.nodeclaims if c.node_name}

    @cached_property
    def slices_by_node(self) -> dict[str, list[ResourceSlice]]:
        out: dict[str, list[ResourceSlice]] = defaultdict(list)
        for s in self.resourceslices:
            if s.node_name:
                out[s.node_name].append(s)
        return dict(out)

    @cached_property
    def events_by_object(self) -> dict[tuple[str | None, str | None, str | None], list[Event]]:
        """(kind, namespace, name) of the involved object -> its events, newest last."""
        out: dict[tuple[str | None, str | None, str | None], list[Event]] = defaultdict(list)
        for event in self.events:
            inv = event.involved
            out[(inv.kind, inv.namespace, inv.name)].append(event)
        for events in out.values():
            events.sort(key=lambda e: (e.last_seen is None, e.last_seen))
        return dict(out)

    def events_for(self, kind: str, name: str, namespace: str | None = None) -> list[Event]:
        return self.events_by_object.get((kind, namespace, name), [])

    def probe(self, node: str) -> ProbeResult | None:
        """The parsed probe stored for `node` (`snapshot --probe`), once per node; None when absent or unusable.

        A bundle stores `{"output": <collector text>, "strategy", "image", "error", "capturedAt"}` per node;
        the bare text, saved `nvidia-smi -q -x` or CSV output, and an already parsed ProbeResult work too.
        """
        if node not in self._parsed_probes:
            self._parsed_probes[node] = _parse_probe(self.probes.get(node))
        return self._parsed_probes[node]

    @property
    def has_karpenter(self) -> bool:
        """NodePools exist (Auto Mode or self-managed Karpenter)."""
        return bool(self.nodepools)
