"""What pods answer behind the API server's proxy: `GET /api/v1/namespaces/NS/pods/NAME[:PORT]/proxy/PATH`.

The fake API server hands such requests here. A pod answers with the texts given to `serve`, one per
read, in order (the last one again once they are used up): two samples of a DCGM exporter, or a counter
that went backwards (a reset), are two texts. As the real API server: a pod that does not exist is a 404
`Status`; a pod or port nobody serves is the 503 the proxy writes when it cannot reach the pod
("error trying to reach service: dial tcp ...: connect: connection refused"); what a pod answers is passed
through with its own content type. Refusals (403 on `pods/proxy`) and a pod that never answers are
injected with `FakeKubeAPI.fault` on the proxy path, like any other fault; `forbidden_body` writes the
403 as the RBAC authorizer does.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from tests.kube.wire import Response, json_response, status_body

#: What the DCGM exporter and vLLM answer /metrics with (the Prometheus text exposition format).
PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8"


def proxy_target(parts: list[str]) -> tuple[str, str, int | None, str] | None:
    """(namespace, pod, port or None, path) when `parts` (the unescaped path segments) is a pod proxy
    request, else None."""
    if len(parts) < 7 or parts[:3] != ["api", "v1", "namespaces"] or parts[4] != "pods":
        return None
    if parts[6] != "proxy":
        return None
    name, _, port = parts[5].rpartition(":") if ":" in parts[5] else (parts[5], "", "")
    scheme_free = name.split(":", 1)[-1] if name.startswith(("http:", "https:")) else name
    return parts[3], scheme_free, int(port) if port.isdigit() else None, "/" + "/".join(parts[7:])


def forbidden_body(namespace: str, pod: str, user: str = "system:anonymous") -> dict[str, Any]:
    """The 403 `Status` the RBAC authorizer answers a `get pods/proxy` it denies with."""
    return status_body(
        403,
        f'pods "{pod}" is forbidden: User "{user}" cannot get resource "pods/proxy" in API group "" '
        f'in the namespace "{namespace}"',
        "Forbidden",
        {"name": pod, "kind": "pods"},
    )


class PodProxy:
    """The answers of the pods' HTTP ports, per (namespace, pod, port, path)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._texts: dict[tuple[str, str, int, str], list[str]] = {}
        self.reads: dict[tuple[str, str, int, str], int] = {}

    def serve(self, namespace: str, pod: str, port: int, *texts: str, path: str = "/metrics") -> None:
        """What `pod` answers on `port` at `path`: each text once, in order, then the last one again."""
        if not texts:
            raise ValueError("serve needs at least one text")
        with self._lock:
            self._texts[(namespace, pod, port, path)] = list(texts)
            self.reads[(namespace, pod, port, path)] = 0

    def answer(
        self, target: tuple[str, str, int | None, str], pods: Mapping[tuple[str, str], Any]
    ) -> Response:
        namespace, pod, port, path = target
        stored = pods.get((namespace, pod))
        if stored is None:
            details = {"name": pod, "kind": "pods"}
            return json_response(404, status_body(404, f'pods "{pod}" not found', "NotFound", details))
        key = (namespace, pod, port or 80, path)
        with self._lock:
            texts = self._texts.get(key)
            if texts is None:
                ip = (stored.get("status") or {}).get("podIP") or "10.0.0.1"
                message = (
                    f"error trying to reach service: dial tcp {ip}:{port or 80}: connect: connection refused"
                )
                return json_response(503, status_body(503, message, "ServiceUnavailable"))
            count = self.reads[key]
            self.reads[key] = count + 1
            text = texts[min(count, len(texts) - 1)]
        return Response(200, text.encode(), PROMETHEUS_TEXT)
