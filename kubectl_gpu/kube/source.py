"""Where the cluster comes from: a live API server or saved files, behind one `ClusterSource`.

Both front ends call `open_source(options)` and `source.load(kinds)`; both sources return the same frozen
`ClusterState`, already scoped (`-n`, `-l`) the way the API server scopes a list, so live and snapshot
answers agree. The kinds come from the analysis (`core.analyses.<name>.KINDS`): the live source lists
exactly those.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from typing import Protocol

import msgspec

from kubectl_gpu.core.k8s.field_selectors import node_matches
from kubectl_gpu.core.k8s.selectors import matches_selector
from kubectl_gpu.core.k8s.state import ClusterState, Scope
from kubectl_gpu.kube.connection import ConnectionFlags

NO_SCOPE = Scope()

__all__ = [
    "ClusterSource",
    "LiveClusterSource",
    "SnapshotSource",
    "SourceOptions",
    "apply_scope",
    "open_source",
]


class SourceOptions(msgspec.Struct, frozen=True, dict=True):
    """What a front end knows about where to read from: kubectl's options, or snapshot paths."""

    snapshot: tuple[str, ...] = ()
    kubeconfig: str | None = None
    context: str | None = None
    request_timeout: float | None = 30.0
    scope: Scope = msgspec.field(default_factory=Scope)
    keep_manifests: bool = False  # keep each object as read (ClusterState.manifest): the TUI's YAML view
    #: kubectl's flags over the kubeconfig (--server, --token, --as, -n as the namespace...): `kube.connection`
    flags: ConnectionFlags = msgspec.field(default_factory=ConnectionFlags)


class ClusterSource(Protocol):
    @property
    def description(self) -> str: ...

    def load(self, kinds: Iterable[str] | None = None) -> ClusterState: ...


def apply_scope(state: ClusterState, scope: Scope) -> ClusterState:
    """The scope as the API server applies it: -l on nodes selects nodes (and NodeClaims whose node has not
    registered yet, by the labels they will carry); -n and -l on pods narrow `listed_pods` only, so node
    figures still count every pod."""
    terms = scope.terms if scope.node_selector else ()
    nodes, claims = state.nodes, state.nodeclaims
    if terms:
        nodes = tuple(n for n in nodes if matches_selector(terms, n.labels))
        claims = tuple(c for c in claims if c.node_name or matches_selector(terms, c.meta.labels))
    fields = scope.field_terms if scope.selector_on == "nodes" else ()
    if fields:  # --field-selector on nodes: the nodes it names (NodeClaims have no node fields)
        nodes = tuple(n for n in nodes if node_matches(fields, n))
    return dataclasses.replace(state, nodes=nodes, nodeclaims=claims, scope=scope)


class SnapshotSource:
    """Saved `kubectl get -o json|yaml` output or our bundles; every kind the files hold."""

    def __init__(
        self, paths: tuple[str, ...], scope: Scope = NO_SCOPE, *, keep_manifests: bool = False
    ) -> None:
        self.paths = paths
        self.scope = scope
        self.keep_manifests = keep_manifests
        # the last state loaded for each set of kinds asked (None: all; a command asks one, and all to
        # look a namespace up), with the files' stamps it was read at (a directory's is not kept)
        self._last: dict[frozenset[str] | None, tuple[_Stamp, ClusterState]] = {}
        scope.terms  # noqa: B018 (a malformed -l is bad input before any file is read)

    @property
    def description(self) -> str:
        return ", ".join(self.paths)

    def load(self, kinds: Iterable[str] | None = None) -> ClusterState:
        """The files' objects of `kinds` (None: all), as the live source lists only those; read again only
        when a file changed or other kinds are asked (the TUI's refresh of a snapshot: the same state,
        without parsing gigabytes again)."""
        from kubectl_gpu.kube.snapshot import load_snapshot

        asked = None if kinds is None else frozenset(kinds)
        stamp = _file_stamp(self.paths)
        last = self._last.get(asked)
        if stamp is not None and last is not None and last[0] == stamp:
            return last[1]
        self._last = {k: v for k, v in self._last.items() if v[0] == stamp}  # the others are stale
        loaded = load_snapshot(self.paths, keep_manifests=self.keep_manifests, kinds=asked)
        state = apply_scope(loaded, self.scope)
        if stamp is not None:
            self._last[asked] = (stamp, state)
        return state


_Stamp = tuple[tuple[str, int, int], ...]


def _file_stamp(paths: tuple[str, ...]) -> _Stamp | None:
    """(path, modification time, size) of each file; None when one is stdin, a directory or unreadable."""
    stamp = []
    for path in paths:
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            return None
        if path == "-" or not os.path.isfile(path):
            return None
        stamp.append((path, info.st_mtime_ns, info.st_size))
    return tuple(stamp)


class LiveClusterSource:
    """The API server of a kubeconfig context, through the official client (see `kube.live`)."""

    def __init__(self, options: SourceOptions) -> None:
        from kubectl_gpu.kube.live import LiveOptions, LiveSource

        self.scope = options.scope
        self._scoped: tuple[ClusterState, ClusterState] | None = None
        self.live = LiveSource(
            LiveOptions(
                kubeconfig=options.kubeconfig,
                context=options.context,
                request_timeout=options.request_timeout,
                scope=options.scope,
                keep_manifests=options.keep_manifests,
                flags=options.flags,
            )
        )

    @property
    def description(self) -> str:
        return f"context {self.live.context} ({self.live.server})"

    def wait(self) -> float:
        """Seconds until a `load` may ask the API server anything again (backoff, polling; 0: now)."""
        return self.live.wait()

    def urge(self) -> None:
        """A person asked to read now (the TUI's `r`): the next `load` skips the backoff or poll wait."""
        self.live.urge()

    def load(self, kinds: Iterable[str] | None = None) -> ClusterState:
        state, _ = self.live.load(kinds)
        if self._scoped is not None and self._scoped[0] is state:  # nothing changed (see kube.live)
            return self._scoped[1]
        scoped = apply_scope(state, self.scope)
        self._scoped = (state, scoped)
        return scoped


def open_source(options: SourceOptions) -> ClusterSource:
    """The snapshot when paths are given, else the live cluster of the chosen context."""
    if options.snapshot:
        return SnapshotSource(options.snapshot, options.scope, keep_manifests=options.keep_manifests)
    return LiveClusterSource(options)
