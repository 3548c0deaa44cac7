"""The few API calls a debug pod needs, as JSON through the official client's `ApiClient`.

The `ApiClient` brings what kubeconfig demands (TLS, tokens, exec credential plugins such as
`aws eks get-token`); model classes are skipped (slow, and lossy for what we read). Non-2xx answers become
`ApiFailure` (status, reason, the Status message), transport failures `ClusterError` (exit 3).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
import urllib3
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from kubectl_gpu.core.debugpod import CONTAINER
from kubectl_gpu.core.errors import ClusterError

__all__ = ["ApiFailure", "PodApi", "RequestTimedOut"]


class ApiFailure(Exception):
    """A non-2xx answer: HTTP status, the Status reason and its message."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(f"{status} {reason}: {message}")
        self.status = status
        self.reason = reason
        self.message = message


class RequestTimedOut(ClusterError):
    pass


def _status_message(data: bytes | str) -> tuple[str, str]:
    try:
        body = orjson.loads(data or b"{}")
    except orjson.JSONDecodeError:
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        return "", text[:300]
    if not isinstance(body, dict):
        return "", ""
    return str(body.get("reason") or ""), str(body.get("message") or "")


class PodApi:
    """JSON requests through the official client's `ApiClient` (auth, TLS, exec plugins), nothing more."""

    def __init__(self, api: client.ApiClient, *, request_timeout: float | None, context: str | None) -> None:
        self.api = api
        self.request_timeout = request_timeout
        self.context = context
        # One attempt per request: urllib3 would silently repeat a timed-out read three times.
        api.configuration.retries = False
        api.rest_client.pool_manager.connection_pool_kw["retries"] = False

    @property
    def server(self) -> str:
        return str(self.api.configuration.host)

    def allow_concurrency(self, workers: int) -> None:
        """Keep one pooled connection per worker (urllib3 warns and reconnects otherwise)."""
        kw = self.api.rest_client.pool_manager.connection_pool_kw
        kw["maxsize"] = max(int(kw.get("maxsize") or 1), workers + 2)

    def call(
        self,
        method: str,
        path: str,
        *,
        query: Sequence[tuple[str, str | int]] = (),
        body: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> bytes:
        headers = {"Accept": "application/json, */*"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        verb, url, header_params, payload, post = self.api.param_serialize(
            method=method,
            resource_path=path,
            query_params=list(query),
            header_params=headers,
            body=body,
            auth_settings=["BearerToken"],
        )
        limit = timeout if timeout is not None else self.request_timeout
        try:
            response = self.api.call_api(
                verb, url, header_params=header_params, body=payload, post_params=post, _request_timeout=limit
            )
            data: bytes = response.read()  # type: ignore[no-untyped-call]
        except ApiException as exc:
            reason, message = _status_message(exc.body or b"")
            raise ApiFailure(exc.status or 0, reason or str(exc.reason), message) from None
        except urllib3.exceptions.HTTPError as exc:
            raise self._transport_error(exc, method, path, limit) from None
        if not 200 <= response.status < 300:
            reason, message = _status_message(data)
            raise ApiFailure(response.status, reason or str(response.reason), message)
        return data

    def _transport_error(
        self, exc: urllib3.exceptions.HTTPError, method: str, path: str, limit: float | None
    ) -> ClusterError:
        reason = getattr(exc, "reason", None) or exc
        text = str(reason)
        # NewConnectionError subclasses ConnectTimeoutError in urllib3: test for it first.
        if "refused" in text or isinstance(reason, urllib3.exceptions.NewConnectionError):
            return ClusterError(
                f"cannot connect to the API server at {self.server} (connection refused or unreachable)",
                f"check that context {self.context!r} points at a running cluster",
            )
        if isinstance(exc, urllib3.exceptions.TimeoutError) or "timed out" in text:
            return RequestTimedOut(
                f"{method} {path}: the API server at {self.server} did not answer within {limit or 0:g}s",
                "raise --request-timeout or check your network path to the cluster",
            )
        return ClusterError(f"{method} {path}: cannot talk to the API server at {self.server}: {text[:200]}")

    def json(self, method: str, path: str, **kw: Any) -> dict[str, Any]:
        data = self.call(method, path, **kw)
        try:
            decoded = orjson.loads(data or b"{}")
        except orjson.JSONDecodeError:
            raise ClusterError(
                f"the API server at {self.server} sent a malformed response for {path}"
            ) from None
        if not isinstance(decoded, dict):
            raise ClusterError(f"the API server at {self.server} sent an unexpected response for {path}")
        return decoded

    # --- the few resources we touch ------------------------------------------------------------

    def create_pod(self, namespace: str, pod: dict[str, Any]) -> dict[str, Any]:
        return self.json("POST", f"/api/v1/namespaces/{namespace}/pods", body=pod)

    def get_pod(self, namespace: str, name: str) -> dict[str, Any]:
        return self.json("GET", f"/api/v1/namespaces/{namespace}/pods/{name}")

    def pod_log(self, namespace: str, name: str, *, timeout: float | None = None) -> str:
        data = self.call(
            "GET",
            f"/api/v1/namespaces/{namespace}/pods/{name}/log",
            query=[("container", CONTAINER)],
            timeout=timeout,
        )
        return data.decode("utf-8", "replace")

    def delete_pod(self, namespace: str, name: str) -> None:
        self.call(
            "DELETE",
            f"/api/v1/namespaces/{namespace}/pods/{name}",
            query=[("propagationPolicy", "Background"), ("gracePeriodSeconds", 0)],
        )

    def list_pods(
        self, namespace: str | None, *, label: str | None = None, fields: str | None = None
    ) -> list[dict[str, Any]]:
        path = f"/api/v1/namespaces/{namespace}/pods" if namespace else "/api/v1/pods"
        return self._list(path, label, fields)

    def list_node_pods(self, node: str) -> list[dict[str, Any]]:
        """Every pod bound to `node`, in all namespaces (paginated)."""
        return self.list_pods(None, fields=f"spec.nodeName={node}")

    def list_nodes(self, *, label: str | None = None, fields: str | None = None) -> list[dict[str, Any]]:
        return self._list("/api/v1/nodes", label, fields)

    def _list(self, path: str, label: str | None, fields: str | None) -> list[dict[str, Any]]:
        query: list[tuple[str, str | int]] = [("limit", 500)]
        if label:
            query.append(("labelSelector", label))
        if fields:
            query.append(("fieldSelector", fields))
        items: list[dict[str, Any]] = []
        token: str | None = None
        while True:
            page = self.json("GET", path, query=[*query, *([("continue", token)] if token else [])])
            items.extend(i for i in page.get("items") or [] if isinstance(i, dict))
            token = (page.get("metadata") or {}).get("continue") or None
            if not token:
                return items

    def get_node(self, name: str) -> dict[str, Any]:
        return self.json("GET", f"/api/v1/nodes/{name}")

    def get_namespace(self, name: str) -> dict[str, Any]:
        return self.json("GET", f"/api/v1/namespaces/{name}")

    def access_review(self, attributes: dict[str, str]) -> bool:
        review = {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "spec": {"resourceAttributes": attributes},
        }
        answer = self.json("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", body=review)
        return bool((answer.get("status") or {}).get("allowed"))
