"""Live source: list what the analyses need from the API server with the official `kubernetes` client.

Lists only (never watch, never a GET per object), paginated with `limit`/`continue`, and decoded with
orjson straight to dicts (the client's model classes are slow and lossy). The kinds, and the field-selected
event lists, are read concurrently on a bounded pool; the pages of one list follow each other (a page's
`continue` token comes from the page before), so big lists use big pages (`PAGE_SIZES`). First the server
proves it is one (`/version`, `/api`: see `discovery`), and one `/apis` says which API groups and versions
it serves, so that a kind of an uninstalled CRD costs no request (and ResourceSlice no probing of three
versions by 404). Without `/apis` (forbidden, a proxy's answer) each version is tried. A kind whose CRD is not installed is *absent*; a
core kind that answers 404 is an error (a proxy's error page, not a cluster without pods); a kind we may
not list (403) becomes a visible note and the analysis carries on without it; anything that means "we
cannot talk to this cluster" is a `ClusterError` (exit 3). Reading the cluster has a deadline as a whole
(`Deadline.for_reading`), and a list that never ends (a repeated `continue`) is an error, not a hang.

A source kept open (the TUI) reads again cheaply when nothing changed: after a complete read (every kind
read, no note), the next `load` of the same kinds first asks `/apis` and one short watch per list
whether anything changed since (see `changes`), and returns the same state when nothing did.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Callable, Iterable
from typing import Any

import msgspec
from kubernetes import client

from kubectl_gpu.core.errors import ClusterError
from kubectl_gpu.core.k8s.parse import ModelError, parse_object
from kubectl_gpu.core.k8s.state import ClusterState, Note, Scope, StateBuilder
from kubectl_gpu.kube.changes import ListMark, WatchAnswer, changed_since
from kubectl_gpu.kube.connection import Connection, ConnectionFlags, context_label, resolve
from kubectl_gpu.kube.discovery import prove_api_server
from kubectl_gpu.kube.heap import bulk_load
from kubectl_gpu.kube.kinds import ALL_KINDS, EVENT_COMPONENTS, EVENT_REASONS, KindSpec, by_name
from kubectl_gpu.kube.pacing import ReadPacer
from kubectl_gpu.kube.paging import MAX_PAGES, list_pages
from kubectl_gpu.kube.transport import ApiFailure, Deadline, Transport, gather

__all__ = [
    "LIST_PAGE_MAX_BYTES",
    "MAX_PAGES",
    "PAGE_SIZE",
    "PAGE_SIZES",
    "Fetched",
    "LiveOptions",
    "LiveSource",
    "list_pages",
    "page_size",
]

#: Objects a page, as kubectl pages (`--chunk-size`)...
PAGE_SIZE = 500
#: ...except for the lists that run to thousands of pages' worth on a large cluster: a list's pages are
#: sequential, so 150,000 pods in pages of 500 are 300 round trips one after another. A page of 5,000 pods
#: is ~25 MB of JSON: the API server answers it from its watch cache as it does 500.
PAGE_SIZES = {"pods": 5000}


def page_size(kind: str) -> int:
    """Objects a page when listing `kind` (a name of `kinds.ALL_KINDS`)."""
    return PAGE_SIZES.get(kind, PAGE_SIZE)


#: The most one list page may hold: a page of 5,000 pods at ~5-20 KB each is 25-100 MB; a page past this is
#: refused (ResponseTooLarge, exit 3) before it is read further, whatever the server keeps sending.
LIST_PAGE_MAX_BYTES = 128 * 1024 * 1024

_WORKERS = 8  # kinds listed at once
_EVENT_WORKERS = 5  # event lists at once, within the kind `events`
#: Watches at once when asking whether anything changed: one per list (kinds and event selectors), all
#: together, as each lasts `changes.WATCH_SECONDS` when nothing changed.
_CHECK_WORKERS = len(ALL_KINDS) + len(EVENT_REASONS) + len(EVENT_COMPONENTS) + 1
_PROXY_HINT = "retry; if it persists, check proxies between you and the cluster"


class LiveOptions(msgspec.Struct, frozen=True, dict=True):
    kubeconfig: str | None = None
    context: str | None = None
    request_timeout: float | None = 30.0
    scope: Scope = msgspec.field(
        default_factory=Scope
    )  # -n, -l; pods read cluster-wide where allowed (_fetch_pods)
    keep_manifests: bool = False  # keep each object as read (ClusterState.manifest), for a YAML view
    flags: ConnectionFlags = msgspec.field(default_factory=ConnectionFlags)  # --server, --token, --as...
    connection: Connection | None = None  # resolved already (the debug pods'), else from the fields above


class Fetched(msgspec.Struct, dict=True):
    """Raw objects as the API returned them, with what could not be read."""

    objects: list[dict[str, Any]] = msgspec.field(default_factory=list)
    notes: list[Note] = msgspec.field(default_factory=list)
    absent: set[str] = msgspec.field(default_factory=set)
    #: the kinds listed whole (none of one listed is none there; a forbidden or absent kind is not listed)
    listed: set[str] = msgspec.field(default_factory=set)


class _Previous(msgspec.Struct, frozen=True, dict=True):
    """A complete read, and where each of its lists stood."""

    key: frozenset[str] | None
    state: ClusterState
    fetched: Fetched
    groups: dict[str, set[str]] | None  # None: no group kind was read
    marks: tuple[ListMark, ...]


class LiveSource:
    def __init__(self, options: LiveOptions) -> None:
        self.options = options
        self.deadline = Deadline.for_reading(options.request_timeout)
        self.connection = self._context()
        self.context, self.default_namespace = self.connection.context, self.connection.default_namespace
        self.api: client.ApiClient = self.connection.client()
        self.transport = Transport(
            self.api, request_timeout=options.request_timeout, context=self.context, deadline=self.deadline
        )
        self._notes: list[Note] = []
        self._groups_lock = threading.Lock()
        self._groups: dict[str, set[str]] | None = None
        self._groups_read = False
        self._marks: list[ListMark] = []
        self._previous: _Previous | None = None
        self.pacer = ReadPacer()
        self._events_forbidden = False  # the last read of events was refused: ask one selector first
        self._reserve_connections(max(_WORKERS + _EVENT_WORKERS + 1, _CHECK_WORKERS))

    def _reserve_connections(self, count: int) -> None:
        """Keep a pooled connection per concurrent request (urllib3 warns and reconnects otherwise)."""
        pool_manager = getattr(getattr(self.api, "rest_client", None), "pool_manager", None)
        if pool_manager is not None:
            kw = pool_manager.connection_pool_kw
            kw["maxsize"] = max(int(kw.get("maxsize") or 1), count)

    # --- configuration -------------------------------------------------------------------------

    def _context(self) -> Connection:
        """The connection kubectl would make (`kube.connection.resolve`), unless handed one."""
        opts = self.options
        return opts.connection or resolve(opts.kubeconfig, opts.context, opts.request_timeout, opts.flags)

    @property
    def server(self) -> str:
        return self.transport.server

    @property
    def namespace(self) -> str | None:
        """The namespace the user scoped pods to (-n); None means all namespaces."""
        return self.options.scope.namespace

    # --- requests ------------------------------------------------------------------------------

    def _get(self, path: str, query: list[tuple[str, str | int]]) -> dict[str, Any]:
        return self.transport.json("GET", path, query=query, max_bytes=LIST_PAGE_MAX_BYTES)

    def list_kind(
        self,
        spec: KindSpec,
        *,
        namespace: str | None = None,
        label: str | None = None,
        fields: str | None = None,
    ) -> list[dict[str, Any]] | None:
        """All objects of one kind (every page); None when the API does not serve it (absent CRD)."""
        query: list[tuple[str, str | int]] = [("limit", page_size(spec.name))]
        if label:
            query.append(("labelSelector", label))
        if fields:
            query.append(("fieldSelector", fields))
        for version in self._served_versions(spec):
            path = spec.path(version, namespace)
            try:
                items = self._list_path(path, query, spec.resource)
            except ApiFailure as exc:
                if exc.status == 404 and not exc.html and not spec.core:
                    continue
                if exc.status == 404:
                    raise ClusterError(
                        f"the API server at {self.server} does not serve {path} (404 for a core kind): "
                        f"{exc.message or exc.reason}",
                        f"check the server URL of {context_label(self.context)}: a proxy or web server may be answering",
                    ) from None
                raise
            api_version = f"{spec.group}/{version}" if spec.group else version
            for item in items:
                item.setdefault("kind", spec.kind)
                item.setdefault("apiVersion", api_version)
            return items
        return None

    def _list_path(self, path: str, query: list[tuple[str, str | int]], what: str) -> list[dict[str, Any]]:
        """Every item at `path`, and a mark of where the list stood (its first page's resourceVersion: the
        pages of one list share it) for `_changed`."""
        versions: list[str] = []

        def get(page_query: list[tuple[str, str | int]]) -> dict[str, Any]:
            page = self._get(path, page_query)
            meta = page.get("metadata")
            if not versions and isinstance(meta, dict) and isinstance(meta.get("resourceVersion"), str):
                versions.append(meta["resourceVersion"])
            return page

        items = list_pages(get, query, what, self.server)
        if versions:
            self._marks.append(ListMark(path, tuple(query[1:]), versions[0]))
        return items

    def _served_versions(self, spec: KindSpec) -> tuple[str, ...]:
        """The versions of `spec` to try: for a group kind, those `/apis` says are served (none: the CRD is
        not installed); every version of the spec when `/apis` could not be read."""
        if spec.core:
            return spec.versions
        groups = self._api_groups()
        if groups is None:
            return spec.versions
        served = groups.get(spec.group, set())
        return tuple(v for v in spec.versions if v in served)

    def _api_groups(self) -> dict[str, set[str]] | None:
        """group -> served versions, from one `GET /apis` per read (the first kind to ask reads it, the
        others wait for it); None when it cannot be read as an APIGroupList."""
        with self._groups_lock:
            if not self._groups_read:
                self._groups = self._read_api_groups()
                self._groups_read = True
            return self._groups

    def _read_api_groups(self) -> dict[str, set[str]] | None:
        try:
            listing = self._get("/apis", [])
        except ApiFailure as exc:
            if exc.html:  # a proxy's page, as on a list: an error, not "no groups"
                raise
            return None
        groups: dict[str, set[str]] = {}
        entries = listing.get("groups") if listing.get("kind") == "APIGroupList" else None
        if not isinstance(entries, list):
            return None
        for entry in entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                return None
            versions = entry.get("versions")
            groups[entry["name"]] = {
                v["version"]
                for v in versions or []
                if isinstance(v, dict) and isinstance(v.get("version"), str)
            }
        return groups

    # --- orchestration -------------------------------------------------------------------------

    def _fetch_one(self, spec: KindSpec) -> list[dict[str, Any]] | None:
        if spec.name == "nodes":
            return self.list_kind(spec, label=self.options.scope.node_selector)
        if spec.name == "pods":
            return self._fetch_pods(spec)
        if spec.name == "events":
            return self._fetch_events(spec)
        return self.list_kind(spec)

    def _fetch_events(self, spec: KindSpec) -> list[dict[str, Any]]:
        """One field-selected list per reason and component (field selectors have no OR), concurrently;
        the first failure, in selector order, is the kind's. Once events were forbidden, a read asks one
        selector first and the rest only if it answers (a read-only role's reads stay ~10 requests)."""
        selectors = [f"reason={r}" for r in EVENT_REASONS]
        selectors += [f"reportingComponent={c}" for c in EVENT_COMPONENTS]
        tasks = [functools.partial(self.list_kind, spec, fields=selector) for selector in selectors]
        outcomes: list[Any] = []
        if self._events_forbidden:
            outcomes.append(gather(tasks[:1], workers=1, deadline=self.deadline, server=self.server)[0])
            if isinstance(outcomes[0], Exception):
                raise outcomes[0]
            tasks = tasks[1:]
        outcomes += gather(tasks, workers=_EVENT_WORKERS, deadline=self.deadline, server=self.server)
        found: dict[str, dict[str, Any]] = {}
        for outcome in outcomes:
            if isinstance(outcome, ApiFailure) and outcome.status == 403:
                self._events_forbidden = True
            if isinstance(outcome, Exception):
                raise outcome
            for item in outcome or []:
                meta = item.get("metadata") or {}
                found[str(meta.get("uid") or (meta.get("namespace"), meta.get("name")))] = item
        self._events_forbidden = False
        return list(found.values())

    def _fetch_pods(self, spec: KindSpec) -> list[dict[str, Any]] | None:
        """Every pod, so that node figures count them all; `-n`/`-l` narrow what is listed, later.

        Where listing pods cluster-wide is forbidden (namespace-scoped RBAC), the scoped list still
        answers, and a note says that node figures count only the pods that could be read."""
        scope = self.options.scope
        if not scope.narrows_pods:
            return self.list_kind(spec)
        try:
            return self.list_kind(spec)
        except ApiFailure as exc:
            if exc.status != 403 or not exc.status_body:
                raise
        items = self.list_kind(spec, namespace=scope.namespace, label=scope.pod_selector)
        where = f"namespace {scope.namespace}" if scope.namespace else f"pods matching {scope.pod_selector}"
        self._notes.append(
            Note(
                "PARTIAL",
                f"forbidden to list pods cluster-wide: GPU requested/free on nodes count only the pods of "
                f"{where} (needs RBAC verb 'list' on pods cluster-wide)",
                "pods",
            )
        )
        return items

    def fetch(self, kinds: Iterable[str] | None = None) -> Fetched:
        """Prove the server, then list every kind concurrently. 403 degrades, 404 means absent (for a CRD),
        the rest is fatal; all of it within the deadline."""
        if kinds is None:
            specs = list(ALL_KINDS)
        else:
            wanted = {by_name(k).name for k in kinds}  # KeyError on a kind we do not know
            specs = [spec for spec in ALL_KINDS if spec.name in wanted]
        self._notes = []
        self._marks = []
        # Each read has its deadline from its start: a source kept open (the TUI refreshing) reads again later.
        self.deadline = self.transport.deadline = Deadline.for_reading(self.options.request_timeout)
        with self._groups_lock:  # discovery is read again with each read: a CRD may have come or gone
            self._groups, self._groups_read = None, False
        tasks: list[Callable[[], Any]] = [lambda: prove_api_server(self.transport)]
        tasks += [functools.partial(self._fetch_one, spec) for spec in specs]
        proof, *outcomes = gather(tasks, workers=_WORKERS + 1, deadline=self.deadline, server=self.server)
        if isinstance(proof, Exception):
            raise self._fatal(proof, "discovery")
        result = Fetched()
        for spec, outcome in zip(specs, outcomes, strict=True):
            if isinstance(outcome, ApiFailure) and outcome.status == 403 and outcome.status_body:
                note = self._forbidden(spec, outcome)
                if spec.optional:  # noticed, not analysed: unknown, but not "could not look" (exit 4)
                    note = Note("UNCHECKED", note.message, spec.name)
                result.notes.append(note)
            elif isinstance(outcome, Exception):
                raise self._fatal(outcome, f"listing {spec.resource}")
            elif outcome is None:
                result.absent.add(spec.name)
            else:
                result.objects.extend(outcome)
                result.listed.add(spec.name)
        result.notes.extend(self._notes)
        return result

    def _forbidden(self, spec: KindSpec, failure: ApiFailure) -> Note:
        """The note of a kind that may not be listed, with what the server said (kubectl prints it too)."""
        scope = f"in namespace {self.namespace}" if spec.namespaced and self.namespace else "cluster-wide"
        said = f"; the server said: {failure.message}" if failure.message else ""
        return Note(
            "FORBIDDEN",
            f"forbidden to list {spec.resource} {scope}: {spec.impact} (needs RBAC verb 'list' on "
            f"{spec.resource}){said}",
            spec.name,
        )

    def _fatal(self, exc: Exception, what: str) -> Exception:
        if isinstance(exc, ApiFailure):
            return self.transport.failure_error(exc, what)
        return exc

    def load(self, kinds: Iterable[str] | None = None) -> tuple[ClusterState, Fetched]:
        """The state of `kinds` (default: all); the previous one, the same object, when nothing changed or
        when the pacer says not to read yet (see `kube.pacing`: backoff, polling, rechecks)."""
        kinds = None if kinds is None else list(kinds)  # read twice below: not an iterator
        key = None if kinds is None else frozenset(by_name(k).name for k in kinds)
        previous = self._previous
        if previous is not None and previous.key == key and not self._read_again(previous):
            return self._with_pacer_notes(previous)
        self._previous = previous = None  # not kept alive while the new one is read
        with bulk_load():
            state, fetched = self._load(kinds)
        self.pacer.read_done(complete=self._complete(fetched, state))
        self._previous = _Previous(key, state, fetched, self._groups, tuple(self._marks))
        return state, fetched

    def wait(self) -> float:
        """Seconds until a `load` may send a request again (0: now)."""
        return self.pacer.wait()

    def _read_again(self, previous: _Previous) -> bool:
        """Whether to read whole now: the pacer allows a request, and it must (polling, a recheck, after a
        failed watch) or a watch of the previous read's lists says something changed."""
        if self.pacer.wait() == 0 and self.pacer.must_relist():
            return True
        if self.pacer.wait() == 0:
            problems: list[str] = []
            started = self.pacer.clock()
            if self.pacer.answered(self._changed(previous, problems), started, problems):
                return True
        failing = self.pacer.failing()
        if failing is not None:  # said, not hidden: the caller keeps what it shows and tells why
            raise ClusterError(failing, f"check the API server at {self.server}")
        return False

    def urge(self) -> None:
        """A person asked to read now: the next `load` skips the pacer's wait (never the request budget)."""
        self.pacer.urge()

    def _with_pacer_notes(self, previous: _Previous) -> tuple[ClusterState, Fetched]:
        """The previous state, with the pacer's notes (polling) added when they changed since."""
        notes = self.pacer.notes()
        state = previous.state
        kept = [n for n in state.notes if n.code != "POLLING"]
        if kept + notes != list(state.notes):
            state = dataclasses.replace(state, notes=(*kept, *notes))
            self._previous = msgspec.structs.replace(previous, state=state)
        return state, previous.fetched

    def _complete(self, fetched: Fetched, state: ClusterState) -> bool:
        """Whether a read saw everything it asked for: no note (a forbidden kind may become readable), and
        the API groups known when a group kind was asked for (else a CRD installed later would go unseen)."""
        if any(n.code != "POLLING" for n in [*fetched.notes, *state.notes]):
            return False
        return self._groups is not None or not self._groups_read

    def _changed(self, previous: _Previous, problems: list[str]) -> list[WatchAnswer]:
        """What a watch of each list of the previous read answers (and `/apis`, compared); what the failed
        ones met goes to `problems`."""
        self.deadline = self.transport.deadline = Deadline.for_reading(self.options.request_timeout)
        tasks: list[Callable[[], WatchAnswer]] = [
            functools.partial(changed_since, self.transport, m, problems=problems) for m in previous.marks
        ]
        if previous.groups is not None:
            tasks.append(self._groups_answer(previous.groups))
        try:
            outcomes = gather(tasks, workers=_CHECK_WORKERS, deadline=self.deadline, server=self.server)
        except ClusterError as exc:
            problems.append(exc.line())
            return [WatchAnswer.FAILED]
        return [o if isinstance(o, WatchAnswer) else WatchAnswer.FAILED for o in outcomes]

    def _groups_answer(self, groups: dict[str, set[str]]) -> Callable[[], WatchAnswer]:
        def answer() -> WatchAnswer:
            try:
                now = self._read_api_groups()
            except (ApiFailure, ClusterError):
                return WatchAnswer.FAILED
            return WatchAnswer.UNCHANGED if now == groups else WatchAnswer.CHANGED

        return answer

    def _load(self, kinds: Iterable[str] | None) -> tuple[ClusterState, Fetched]:
        fetched = self.fetch(kinds)
        state = StateBuilder(keep_manifests=self.options.keep_manifests)
        models = []
        for obj in fetched.objects:
            try:
                model = parse_object(obj)
            except ModelError as exc:
                state.note("SKIPPED", f"unreadable object skipped: {exc}")
                continue
            if model is not None:
                models.append(model)
                state.keep(model, obj)
        state.add(models)
        state.notes.extend(fetched.notes)
        state.notes.extend(self.pacer.notes())
        state.absent |= fetched.absent
        state.listed = set(fetched.listed)
        return state.build(source=f"context {self.context} ({self.server})", context=self.context), fetched
