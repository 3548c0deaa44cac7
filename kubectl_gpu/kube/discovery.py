"""Proof that the kubeconfig points at a Kubernetes API server before any answer is believed.

A web server or a proxy's error page answers every path with the same 404 (or 200); read naively, every
list is then "absent" (or empty) and every command reports a clean cluster. So `/version` must name a
Kubernetes version and `/api` must list `v1`, as kubectl's own discovery expects; a `Status` (401, 403)
is proof too, as only an API server writes one.
"""

from __future__ import annotations

from typing import Any

import orjson

from kubectl_gpu.core.errors import ClusterError
from kubectl_gpu.kube.transport import ApiFailure, Transport, body_summary

__all__ = ["NotAnApiServer", "prove_api_server"]


class NotAnApiServer(ClusterError):
    pass


def _looks_like_status(failure: ApiFailure) -> bool:
    return failure.status in (401, 403) and failure.status_body


def _get(transport: Transport, path: str) -> dict[str, Any] | None:
    """The JSON object at `path`; None when an API server refused it (a Status); NotAnApiServer otherwise."""
    try:
        data = transport.request("GET", path)
    except ApiFailure as failure:
        if failure.status == 401:
            raise transport.failure_error(failure, f"GET {path}") from None
        if _looks_like_status(failure):
            return None
        raise _not_api(transport, path, str(failure)) from None
    try:
        decoded = orjson.loads(data or b"")
    except orjson.JSONDecodeError:
        raise _not_api(transport, path, f"200 OK: {body_summary(data).message or 'an empty body'}") from None
    if not isinstance(decoded, dict):
        raise _not_api(transport, path, "200 OK, but not a JSON object")
    return decoded


def _not_api(transport: Transport, path: str, answer: str) -> NotAnApiServer:
    return NotAnApiServer(
        f"{transport.server} is not a Kubernetes API server: GET {path} answered {answer}",
        f"check the server URL of context {transport.context!r} in your kubeconfig "
        "(kubectl version shows what it reaches)",
    )


def prove_api_server(transport: Transport) -> str | None:
    """The server's gitVersion (None when it may not be read); NotAnApiServer when this is none."""
    version = _get(transport, "/version")
    git_version = None
    if version is not None:
        git_version = version.get("gitVersion")
        if not isinstance(git_version, str) or not isinstance(version.get("major"), str):
            raise _not_api(transport, "/version", "200 OK, but no Kubernetes version in it")
    legacy = _get(transport, "/api")
    if legacy is not None:
        versions = legacy.get("versions")
        if legacy.get("kind") != "APIVersions" or not isinstance(versions, list) or "v1" not in versions:
            raise _not_api(transport, "/api", "200 OK, but not the APIVersions of a Kubernetes API server")
    return git_version
