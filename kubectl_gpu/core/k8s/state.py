"""One cluster's state as the analyses see it, from either source, with the indexes they share.

A source builds it once (`StateBuilder`), then nobody changes it: `ClusterState` is frozen, its lists are
tuples, and its indexes are computed on first use from data that can no longer move under them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import msgspec

from kubectl_gpu.core.k8s.field_selectors import FieldTerm, parse_field_selector, pod_matches
from kubectl_gpu.core.k8s.manifests import Manifests
from kubectl_gpu.core.k8s.models import (
    TERMINATED_PHASES,
    DaemonSet,
    Event,
    LegacyKarpenterObject,
    Node,
    NodeClaim,
    NodeClass,
    NodeOverlay,
    NodePool,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    PodDisruptionBudget,
    Resources,
    ResourceSlice,
    StorageClass,
)
from kubectl_gpu.core.k8s.parse import Model
from kubectl_gpu.core.k8s.selectors import Term, matches_selector, parse_selector

if TYPE_CHECKING:
    from kubectl_gpu.core.probe import ProbeResult
    from kubectl_gpu.core.usage.scrape import ScrapeSet

T = TypeVar("T")


def _by_time(event: Event) -> tuple[bool, datetime | None]:
    return event.last_seen is None, event.last_seen


_PROBE_TEXT_KEYS = ("output", "collectorOutput", "collector", "stdout", "text", "raw")


def _parse_probe(value: object) -> ProbeResult | None:
    """A node's stored probe, parsed. The parsers are imported here, on the first probe: most snapshots
    hold none, and importing them costs a command ~80 ms (issue 22)."""
    if value is None:
        return None
    from kubectl_gpu.core.probe import ProbeResult, parse_saved_output

    if isinstance(value, ProbeResult):
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


__all__ = ["ClusterState", "DuplicateObject", "Note", "Scope", "StateBuilder", "could_not_look"]


class Note(msgspec.Struct, frozen=True):
    """Something the user must know about the data itself: a kind we could not read, a skipped object."""

    code: str  # FORBIDDEN | ABSENT | SKIPPED | PARTIAL
    message: str
    kind: str | None = None


def could_not_look(notes: Iterable[Note], kinds: Iterable[str] | None) -> list[Note]:
    """The FORBIDDEN notes about kinds the analysis reads (`kinds`; None: every kind): what it could not
    look at. A bundle's notes about other kinds do not count, so a snapshot answers as the live cluster."""
    wanted = None if kinds is None else set(kinds)
    return [
        n for n in notes if n.code == "FORBIDDEN" and (wanted is None or n.kind is None or n.kind in wanted)
    ]


class DuplicateObject(msgspec.Struct, frozen=True):
    """One object (kind, namespace, name) defined more than once in the input, and where each came from:
    the analyses see the last one; `lint` reports the others."""

    kind: str
    namespace: str | None
    name: str
    sources: tuple[str, ...]  # the file (or `<stdin>`) of each definition, in reading order


SelectorTarget = Literal["nodes", "pods", "none"]


class Scope(msgspec.Struct, frozen=True):
    """What the user asked to see: `-n` and `-l`, applied by the source (kubectl applies -l to the listed kind).

    Node figures (GPUs requested and free) always count every pod the source could read: `-n ml` narrows
    the pods listed, never a node's usage.
    """

    namespace: str | None = None  # None: every namespace
    selector: str | None = None
    selector_on: SelectorTarget = "none"
    field_selector: str | None = None  # --field-selector on the listed kind (core.k8s.field_selectors)

    @property
    def terms(self) -> tuple[Term, ...]:
        return parse_selector(self.selector) if self.selector else ()

    @property
    def field_terms(self) -> tuple[FieldTerm, ...]:
        if not self.field_selector or self.selector_on == "none":
            return ()
        return parse_field_selector(self.field_selector, self.selector_on)

    @property
    def node_selector(self) -> str | None:
        return self.selector if self.selector_on == "nodes" else None

    @property
    def pod_selector(self) -> str | None:
        return self.selector if self.selector_on == "pods" else None

    @property
    def narrows_pods(self) -> bool:
        pod_fields = self.field_selector is not None and self.selector_on == "pods"
        return self.namespace is not None or self.pod_selector is not None or pod_fields

    def lists_pod(self, pod: Pod, terms: tuple[Term, ...] = ()) -> bool:
        if self.namespace is not None and pod.namespace != self.namespace:
            return False
        if self.selector_on == "pods" and self.field_selector and not pod_matches(self.field_terms, pod):
            return False
        return not (self.pod_selector and not matches_selector(terms or self.terms, pod.meta.labels))


_KIND_FIELDS: dict[type, str] = {
    Node: "nodes",
    Pod: "pods",
    Event: "events",
    NodePool: "nodepools",
    NodeClaim: "nodeclaims",
    NodeClass: "nodeclasses",
    ResourceSlice: "resourceslices",
    PersistentVolumeClaim: "persistentvolumeclaims",
    PersistentVolume: "persistentvolumes",
    StorageClass: "storageclasses",
    DaemonSet: "daemonsets",
    PodDisruptionBudget: "pdbs",
    NodeOverlay: "nodeoverlays",
    LegacyKarpenterObject: "legacy_karpenter",
}


@dataclass(frozen=True)
class ClusterState:
    """Everything read from one source, frozen. Analyses only read it."""

    nodes: tuple[Node, ...] = ()
    pods: tuple[Pod, ...] = ()  # every pod read (node usage); `listed_pods` are those in scope
    events: tuple[Event, ...] = ()
    nodepools: tuple[NodePool, ...] = ()
    nodeclaims: tuple[NodeClaim, ...] = ()
    nodeclasses: tuple[NodeClass, ...] = ()
    resourceslices: tuple[ResourceSlice, ...] = ()
    persistentvolumeclaims: tuple[PersistentVolumeClaim, ...] = ()
    persistentvolumes: tuple[PersistentVolume, ...] = ()
    storageclasses: tuple[StorageClass, ...] = ()
    daemonsets: tuple[DaemonSet, ...] = ()
    pdbs: tuple[PodDisruptionBudget, ...] = ()  # policy/v1 PodDisruptionBudgets (simulate's blast radius)
    nodeoverlays: tuple[NodeOverlay, ...] = ()
    # Karpenter v1alpha5 Provisioners and Machines (and AWSNodeTemplates): a Karpenter this tool does not read
    legacy_karpenter: tuple[LegacyKarpenterObject, ...] = ()
    notes: tuple[Note, ...] = ()
    source: str = ""
    context: str | None = None
    captured_at: datetime | None = None
    # Kinds whose absence is a fact (CRD not installed) rather than a gap (403): "nodepools", ...
    absent: frozenset[str] = frozenset()
    # The kinds the source listed whole (live; a bundle that recorded them): none of a kind listed means
    # none there. None: not known (a file of objects holds what its author chose), so none read is unknown.
    listed: frozenset[str] | None = None
    # Probe outputs per node name (collector text), from `snapshot --probe` bundles.
    probes: Mapping[str, Any] = field(default_factory=dict)
    # The `/metrics` texts a bundle saved over a usage window (`snapshot --usage-window`); None: none saved.
    scrapes: ScrapeSet | None = None
    # The objects as read, (kind, namespace, name) -> dict, only when a front end asked to keep them
    # (the TUI's YAML view); analyses never read them.
    manifests: Mapping[tuple[str, str | None, str], Mapping[str, Any]] = field(default_factory=dict)
    scope: Scope = field(default_factory=Scope)
    duplicates: tuple[DuplicateObject, ...] = ()  # objects the input defines more than once (files)
    _parsed_probes: dict[str, ProbeResult | None] = field(default_factory=dict, repr=False, compare=False)
    _memo: dict[object, Any] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Plain lists and sets are accepted (tests, callers) and frozen here.
        for name in (*_KIND_FIELDS.values(), "notes", "duplicates"):
            value = getattr(self, name)
            if not isinstance(value, tuple):
                object.__setattr__(self, name, tuple(value))
        if not isinstance(self.absent, frozenset):
            object.__setattr__(self, "absent", frozenset(self.absent))  # type: ignore[unreachable]

    @classmethod
    def of(cls, models: Iterable[Model | None], **fields: Any) -> ClusterState:
        """A state holding `models` (None entries skipped), with the other fields as given."""
        builder = StateBuilder()
        builder.add(m for m in models if m is not None)
        return builder.build(**fields)

    # Indexes, computed on first use.

    @cached_property
    def listed_pods(self) -> tuple[Pod, ...]:
        """The pods the user asked about (-n, -l on pods); every pod when the scope does not narrow them."""
        if not self.scope.narrows_pods:
            return self.pods
        terms = self.scope.terms
        return tuple(p for p in self.pods if self.scope.lists_pod(p, terms))

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
        zero = Decimal(0)  # made once: each sum starts from it, as `Decimal(0) + value` always did
        for name, pods in self.pods_by_node.items():
            total: Resources = {}
            for pod in pods:
                if pod.phase in TERMINATED_PHASES:  # `Pod.terminated`, inline: called per pod of the fleet
                    continue
                for res, value in pod.requests.items():
                    total[res] = total.get(res, zero) + value
            out[name] = total
        return out

    @cached_property
    def nodeclaim_by_node(self) -> dict[str, NodeClaim]:
        return {c.node_name: c for c in self.nodeclaims if c.node_name}

    @cached_property
    def nodeclaim_by_name(self) -> dict[str, NodeClaim]:
        return {c.name: c for c in self.nodeclaims}

    @cached_property
    def nodes_by_pool(self) -> dict[str, tuple[Node, ...]]:
        """NodePool name (the `karpenter.sh/nodepool` label) -> its nodes, in list order."""
        out: dict[str, list[Node]] = defaultdict(list)
        for node in self.nodes:
            pool = node.labels.get("karpenter.sh/nodepool")
            if pool is not None:
                out[pool].append(node)
        return {pool: tuple(nodes) for pool, nodes in out.items()}

    @cached_property
    def nodeclaims_by_pool(self) -> dict[str, tuple[NodeClaim, ...]]:
        """NodePool name -> its NodeClaims, in list order."""
        out: dict[str, list[NodeClaim]] = defaultdict(list)
        for claim in self.nodeclaims:
            if claim.node_pool:
                out[claim.node_pool].append(claim)
        return {pool: tuple(claims) for pool, claims in out.items()}

    @cached_property
    def launching_nodeclaims_by_pool(self) -> dict[str, tuple[NodeClaim, ...]]:
        """NodePool name -> its NodeClaims not Initialized yet (no Initialized=True condition), in list order."""
        out: dict[str, tuple[NodeClaim, ...]] = {}
        for pool, claims in self.nodeclaims_by_pool.items():
            launching = tuple(c for c in claims if not ((r := c.condition("Initialized")) and r.is_true))
            if launching:
                out[pool] = launching
        return out

    @cached_property
    def slices_by_node(self) -> dict[str, list[ResourceSlice]]:
        out: dict[str, list[ResourceSlice]] = defaultdict(list)
        for s in self.resourceslices:
            if s.node_name:
                out[s.node_name].append(s)
        return dict(out)

    @cached_property
    def placed_with_anti_affinity(self) -> tuple[Pod, ...]:
        """Bound, running (not terminated or deleting) pods with required pod anti-affinity: the pending
        analysis checks that none of them excludes a pending pod from its domain."""
        return tuple(
            p
            for p in self.pods
            if p.placement.affinity  # most pods have none: asked first
            and p.node_name
            and not p.terminated
            and not p.meta.deleting
            and any(t.anti for t in p.placement.affinity)
        )

    @cached_property
    def pvc_by_key(self) -> dict[tuple[str, str], PersistentVolumeClaim]:
        """(namespace, name) -> PersistentVolumeClaim."""
        return {(c.namespace, c.name): c for c in self.persistentvolumeclaims}

    @cached_property
    def pv_by_name(self) -> dict[str, PersistentVolume]:
        return {v.name: v for v in self.persistentvolumes}

    @cached_property
    def storageclass_by_name(self) -> dict[str, StorageClass]:
        return {c.name: c for c in self.storageclasses}

    @cached_property
    def events_by_object(self) -> dict[tuple[str | None, str | None, str | None], list[Event]]:
        """(kind, namespace, name) of the involved object -> its events, in the order listed (`events_for`
        gives them by time)."""
        out: dict[tuple[str | None, str | None, str | None], list[Event]] = defaultdict(list)
        for event in self.events:
            inv = event.involved
            out[(inv.kind, inv.namespace, inv.name)].append(event)
        return dict(out)

    @cached_property
    def _events_by_time(self) -> dict[tuple[str | None, str | None, str | None], list[Event]]:
        return {}  # filled by `events_for`

    def memo(self, key: object, build: Callable[[], T]) -> T:
        """What `build` derives from this state alone, computed once per `key`: analyses run on one state
        (`diagnose`, the TUI) share it instead of each rebuilding it (the node rows)."""
        if key not in self._memo:
            self._memo[key] = build()
        return self._memo[key]  # type: ignore[no-any-return]

    def manifest(self, kind: str, name: str, namespace: str | None = None) -> Mapping[str, Any] | None:
        """The object as read (kept only when the source was asked to: `SourceOptions.keep_manifests`)."""
        return self.manifests.get((kind, namespace, name))

    def events_for(self, kind: str, name: str, namespace: str | None = None) -> list[Event]:
        """The object's events, oldest first, those without a time last (a stable sort). Sorted when first
        asked for: the analyses ask for a few objects' of many (pending, for the Pending pods' of 50,000)."""
        key = (kind, namespace, name)
        found = self._events_by_time.get(key)
        if found is None:
            events = self.events_by_object.get(key)
            if not events:
                return []
            by_time = sorted(events, key=_by_time) if len(events) > 1 else events  # a new list: no reader
            found = self._events_by_time.setdefault(key, by_time)  # ever sees one half sorted
        return found

    def probe(self, node: str) -> ProbeResult | None:
        """The parsed probe stored for `node` (`snapshot --probe`), once per node; None when absent or unusable.

        A bundle stores `{"output": <collector text>, "strategy", "image", "error", "capturedAt"}` per node;
        the bare text, saved `nvidia-smi -q -x` or CSV output, and an already parsed ProbeResult work too.
        """
        if node not in self._parsed_probes:
            self._parsed_probes[node] = _parse_probe(self.probes.get(node))
        return self._parsed_probes[node]


class StateBuilder:
    """What a source fills while it reads; `build()` freezes it into a `ClusterState`."""

    def __init__(self, *, keep_manifests: bool = False) -> None:
        self.lists: dict[str, list[Any]] = {name: [] for name in _KIND_FIELDS.values()}
        self.notes: list[Note] = []
        self.absent: set[str] = set()
        self.listed: set[str] | None = None  # `ClusterState.listed`
        self.probes: dict[str, Any] = {}
        self.scrapes: ScrapeSet | None = None
        self.keep_manifests = keep_manifests
        self.manifests = Manifests()
        self.duplicates: list[DuplicateObject] = []

    def keep(
        self, model: Model, obj: Mapping[str, Any], whole: Callable[[], Mapping[str, Any]] | None = None
    ) -> None:
        """Remember the object a model was parsed from, when manifests are kept; `whole`: `obj` holds only the
        parts the parsers read, and this reads it whole (on first use: `Manifests`)."""
        if self.keep_manifests:
            key = (str(obj.get("kind")), model.meta.namespace, model.meta.name)
            if whole is None:
                self.manifests.keep(key, obj)
            else:
                self.manifests.keep_later(key, whole)

    def add(self, models: Iterable[Model]) -> None:
        lists = self.lists
        for model in models:
            lists[_KIND_FIELDS[type(model)]].append(model)

    def note(self, code: str, message: str, kind: str | None = None) -> None:
        if not any(n.code == code and n.message == message for n in self.notes):
            self.notes.append(Note(code, message, kind))

    def extend(self, other: ClusterState) -> None:
        """Add another state's objects, notes, absences and probes (several inputs read as one)."""
        for name, items in self.lists.items():
            items.extend(getattr(other, name))
        for n in other.notes:
            self.note(n.code, n.message, n.kind)
        self.absent |= other.absent
        if other.listed is not None:  # several bundles of one cluster: what any of them listed
            self.listed = (self.listed or set()) | other.listed
        self.probes.update(other.probes)
        self.add_scrapes(other.scrapes)
        self.duplicates.extend(other.duplicates)

    def add_scrapes(self, scrapes: ScrapeSet | None) -> None:
        """Keep a usage window; a second one (several bundles read as one) is merged into the first."""
        if scrapes is None:
            return
        if self.scrapes is None:
            self.scrapes = scrapes
            return
        from kubectl_gpu.core.usage.bundle import merge_scrapes

        self.scrapes = merge_scrapes(self.scrapes, scrapes)

    def build(self, **fields: Any) -> ClusterState:
        lists: dict[str, Any] = {name: tuple(items) for name, items in self.lists.items()}
        return ClusterState(
            **lists,
            notes=tuple(self.notes),
            absent=frozenset(self.absent),
            listed=frozenset(self.listed) if self.listed is not None else None,
            probes=dict(self.probes),
            scrapes=self.scrapes,
            manifests=self.manifests,
            duplicates=tuple(self.duplicates),
            **fields,
        )
