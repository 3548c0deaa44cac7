"""Whether a namespace exists, for `-n NAME` and the TUI's `:ns NAME`: a namespace that does not exist must
say so, not show `Pending 0` as if all were fine (kubectl only says `No resources found in NAME namespace`).

Live: one `GET /api/v1/namespaces/NAME` (200: exists; 404: missing; a 403 or anything else: unknown, and
why: the tool could not check). A snapshot: the namespace exists when an object the bundle holds is in it
(a pod, an event, a claim...) or the bundle holds the Namespace itself; else it is missing from the
snapshot. Check the name first (`kube.connection.check_namespace`): a name that cannot be a namespace is
bad input, in kubectl's words.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import quote

import msgspec

from kubectl_gpu.core.errors import KubectlGpuError
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.kube.connection import go_quote
from kubectl_gpu.kube.failures import ApiFailure
from kubectl_gpu.kube.source import ClusterSource, LiveClusterSource

__all__ = ["NamespaceCheck", "NamespaceStatus", "namespace_check", "namespace_status", "namespaces_in"]

NamespaceStatus = Literal["exists", "missing", "unknown"]

#: the longest the one GET may take (the user's --request-timeout, when shorter)
TIMEOUT = 10.0


class NamespaceCheck(msgspec.Struct, frozen=True):
    """The answer about namespace `name`, and for `unknown` why it could not be checked (one line)."""

    name: str
    status: NamespaceStatus
    why: str | None = None


def namespaces_in(state: ClusterState) -> frozenset[str]:
    """Every namespace an object of `state` is in, and every Namespace object it holds."""
    found: set[str] = set()
    for objects in (state.pods, state.events, state.persistentvolumeclaims, state.daemonsets, state.pdbs):
        found.update(o.meta.namespace for o in objects if o.meta.namespace)
    for kind, namespace, name in state.manifests:
        found.add(name if kind == "Namespace" else namespace or "")
    found.discard("")
    return frozenset(found)


def _live(source: LiveClusterSource, name: str) -> NamespaceCheck:
    # As pod_logs: a transport of its own (no deadline or request budget left over from a refresh).
    from kubectl_gpu.kube.transport import Transport

    live = source.live
    timeout = min(TIMEOUT, live.options.request_timeout or TIMEOUT)
    transport = Transport(live.api, request_timeout=timeout, context=live.context)
    try:
        transport.request("GET", f"/api/v1/namespaces/{quote(name, safe='')}", timeout=timeout)
    except ApiFailure as exc:
        if exc.status == 404 and not exc.html:  # the API server's NotFound, not a proxy's page
            return NamespaceCheck(name, "missing")
        return NamespaceCheck(name, "unknown", f"could not check namespace {go_quote(name)}: {exc}")
    except KubectlGpuError as exc:
        return NamespaceCheck(name, "unknown", f"could not check namespace {go_quote(name)}: {exc.line()}")
    return NamespaceCheck(name, "exists")


def namespace_check(source: ClusterSource, name: str, state: ClusterState | None = None) -> NamespaceCheck:
    """Whether namespace `name` exists in `source`. A snapshot: in `state` as loaded, else in every object
    the files hold (`source.load()`: a command's state holds only the kinds it reads)."""
    if isinstance(source, LiveClusterSource):
        return _live(source, name)
    if state is not None and name in namespaces_in(state):
        return NamespaceCheck(name, "exists")
    return NamespaceCheck(name, "exists" if name in namespaces_in(source.load()) else "missing")


def namespace_status(source: ClusterSource, name: str, state: ClusterState | None = None) -> NamespaceStatus:
    """`namespace_check(...).status`: exists, missing, or unknown (it could not be checked: a 403...)."""
    return namespace_check(source, name, state).status
