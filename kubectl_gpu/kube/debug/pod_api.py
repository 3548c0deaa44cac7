"""The few API calls a debug pod needs, as JSON through the official client's `ApiClient`.

The `ApiClient` brings what kubeconfig demands (TLS, tokens, exec credential plugins such as
`aws eks get-token`); model classes are skipped (slow, and lossy for what we read). Requests go through
`transport.Transport` (Retry-After, one-line messages, no credential in them). Non-2xx answers become
`ApiFailure` (status, reason, the Status message), transport failures `ClusterError` (exit 3). Names and
namespaces are escaped into their path segment, and a node name into a field selector, whatever they
hold: a node name from the command line never becomes another path or another selector term.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from kubernetes import client

from kubectl_gpu.core.debugpod import CONTAINER
from kubectl_gpu.kube.budget import DEBUG_PODS_BUDGET, RequestBudget
from kubectl_gpu.kube.live import PAGE_SIZE, list_pages
from kubectl_gpu.kube.transport import ApiFailure, RequestTimedOut, Transport

__all__ = ["DELETE_TIMEOUT", "ApiFailure", "PodApi", "RequestTimedOut", "field_value"]

#: Seconds one DELETE of a debug pod may take when requests have no timeout (--request-timeout 0).
DELETE_TIMEOUT = 30.0


def _segment(text: str) -> str:
    return quote(text, safe="")


def field_value(text: str) -> str:
    """A value escaped for a field selector, as apimachinery's fields.EscapeValue: `\\`, `,` and `=`."""
    return text.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


class PodApi(Transport):
    """JSON requests through the official client's `ApiClient` (auth, TLS, exec plugins), nothing more."""

    def __init__(self, api: client.ApiClient, *, request_timeout: float | None, context: str | None) -> None:
        super().__init__(
            api,
            request_timeout=request_timeout,
            context=context,
            budget=RequestBudget(DEBUG_PODS_BUDGET),
        )

    def allow_concurrency(self, workers: int) -> None:
        """Keep one pooled connection per worker (urllib3 warns and reconnects otherwise)."""
        kw = self.api.rest_client.pool_manager.connection_pool_kw
        kw["maxsize"] = max(int(kw.get("maxsize") or 1), workers + 2)

    def call(self, method: str, path: str, **kw: Any) -> bytes:
        return self.request(method, path, **kw)

    def prove(self) -> None:
        """NotAnApiServer (exit 3) unless this is a Kubernetes API server: before any 404 is believed."""
        from kubectl_gpu.kube.discovery import prove_api_server

        prove_api_server(self)

    # --- the few resources we touch ------------------------------------------------------------

    def _pods(self, namespace: str) -> str:
        return f"/api/v1/namespaces/{_segment(namespace)}/pods"

    def create_pod(self, namespace: str, pod: dict[str, Any]) -> dict[str, Any]:
        return self.json("POST", self._pods(namespace), body=pod)

    def get_pod(self, namespace: str, name: str, *, timeout: float | None = None) -> dict[str, Any]:
        return self.json("GET", f"{self._pods(namespace)}/{_segment(name)}", timeout=timeout)

    def pod_log(self, namespace: str, name: str, *, timeout: float | None = None) -> str:
        data = self.call(
            "GET",
            f"{self._pods(namespace)}/{_segment(name)}/log",
            query=[("container", CONTAINER)],
            timeout=timeout,
        )
        return data.decode("utf-8", "replace")

    def delete_pod(self, namespace: str, name: str) -> None:
        """Delete at once (no grace, Background propagation), within the request timeout, or DELETE_TIMEOUT
        with none (--request-timeout 0): a delete during cleanup after Ctrl-C must end, answered or not."""
        self.call(
            "DELETE",
            f"{self._pods(namespace)}/{_segment(name)}",
            query=[("propagationPolicy", "Background"), ("gracePeriodSeconds", 0)],
            timeout=self.request_timeout or DELETE_TIMEOUT,
        )

    def list_pods(
        self, namespace: str | None, *, label: str | None = None, fields: str | None = None
    ) -> list[dict[str, Any]]:
        path = self._pods(namespace) if namespace else "/api/v1/pods"
        return self._list(path, label, fields)

    def list_node_pods(self, node: str) -> list[dict[str, Any]]:
        """Every pod bound to `node`, in all namespaces (paginated)."""
        return self.list_pods(None, fields=f"spec.nodeName={field_value(node)}")

    def list_nodes(self, *, label: str | None = None, fields: str | None = None) -> list[dict[str, Any]]:
        return self._list("/api/v1/nodes", label, fields)

    def _list(self, path: str, label: str | None, fields: str | None) -> list[dict[str, Any]]:
        query: list[tuple[str, str | int]] = [("limit", PAGE_SIZE)]
        if label:
            query.append(("labelSelector", label))
        if fields:
            query.append(("fieldSelector", fields))
        return list_pages(lambda q: self.json("GET", path, query=q), query, path, self.server)

    def get_node(self, name: str) -> dict[str, Any]:
        return self.json("GET", f"/api/v1/nodes/{_segment(name)}")

    def get_namespace(self, name: str) -> dict[str, Any]:
        return self.json("GET", f"/api/v1/namespaces/{_segment(name)}")

    def access_review(self, attributes: dict[str, str]) -> bool:
        review = {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "spec": {"resourceAttributes": attributes},
        }
        answer = self.json("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", body=review)
        status = answer.get("status")
        return isinstance(status, dict) and status.get("allowed") is True
