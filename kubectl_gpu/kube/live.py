"""Live source: list what the analyses need from the API server with the official `kubernetes` client.

Lists only (never watch, never a GET per object), paginated with `limit`/`continue`, run concurrently, and
decoded with orjson straight to dicts (the client's model classes are slow and lossy). A kind whose CRD is
not installed is *absent*; a kind we may not list (403) becomes a visible note and the analysis carries on
without it; anything that means "we cannot talk to this cluster" is a `ClusterError` (exit 3).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson
import urllib3
import yaml
from kubernetes import client, config
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException

from kubectl_gpu.core.errors import ClusterError, InvalidInput
from kubectl_gpu.core.k8s.parse import ModelError, parse_object
from kubectl_gpu.core.k8s.state import ClusterState, Note, Scope, StateBuilder
from kubectl_gpu.kube.heap import bulk_load
from kubectl_gpu.kube.kinds import ALL_KINDS, EVENT_COMPONENTS, EVENT_REASONS, KindSpec, by_name

__all__ = ["Fetched", "LiveOptions", "LiveSource"]

PAGE_SIZE = 500
_CREDENTIAL_HINT = "run the kubeconfig's exec command yourself to see why (for EKS: log in to AWS again)"


class _Collected(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(" ".join(record.getMessage().split()))


@contextmanager
def _client_log() -> Iterator[list[str]]:
    """What the kubernetes client logs meanwhile, kept off stderr. A failed exec credential plugin is only
    logged (through the root logger, which prints `ERROR:root:...`), then the client carries on without
    credentials; a handler on the root logger also stops `logging.error` from configuring one on stderr."""
    handler = _Collected()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler.messages
    finally:
        root.removeHandler(handler)


@dataclass(frozen=True)
class LiveOptions:
    kubeconfig: str | None = None
    context: str | None = None
    request_timeout: float | None = 30.0
    scope: Scope = field(default_factory=Scope)  # -n, -l; pods read cluster-wide where allowed (_fetch_pods)
    keep_manifests: bool = False  # keep each object as read (ClusterState.manifest), for a YAML view


@dataclass
class Fetched:
    """Raw objects as the API returned them, with what could not be read."""

    objects: list[dict[str, Any]] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    absent: set[str] = field(default_factory=set)


class LiveSource:
    def __init__(self, options: LiveOptions) -> None:
        self.options = options
        self.context, self.default_namespace = self._context()
        self.api = self._client()

    # --- configuration -------------------------------------------------------------------------

    def _context(self) -> tuple[str | None, str]:
        try:
            contexts, active = config.list_kube_config_contexts(  # type: ignore[no-untyped-call]
                config_file=self.options.kubeconfig
            )
        except ConfigException as exc:
            raise ClusterError(
                f"cannot load kubeconfig: {exc}",
                "set KUBECONFIG or --kubeconfig, or analyse a saved cluster with --snapshot",
            ) from None
        except OSError as exc:
            raise InvalidInput(f"cannot read kubeconfig: {exc}") from None
        except (yaml.YAMLError, UnicodeDecodeError, TypeError, AttributeError, KeyError, ValueError) as exc:
            first = " ".join(str(exc).split())[:200]
            raise InvalidInput(f"malformed kubeconfig: {type(exc).__name__}: {first}") from None
        name = self.options.context or (active or {}).get("name")
        chosen = next((c for c in contexts or [] if c.get("name") == name), None)
        if chosen is None:
            known = ", ".join(sorted(c.get("name", "") for c in contexts or [])) or "none"
            raise InvalidInput(f"context {name!r} not found in kubeconfig", f"known contexts: {known}")
        namespace = (chosen.get("context") or {}).get("namespace") or "default"
        return name, namespace

    def _client(self) -> client.ApiClient:
        try:
            with _client_log() as logged:
                api: client.ApiClient = config.new_client_from_config(  # type: ignore[no-untyped-call]
                    config_file=self.options.kubeconfig, context=self.context
                )
            self._check_credentials(logged)
        except ConfigException as exc:
            # Exec credential plugins (aws eks get-token) fail here too.
            raise ClusterError(f"cannot use context {self.context!r}: {exc}") from None
        except OSError as exc:
            raise ClusterError(f"cannot use context {self.context!r}: {exc}") from None
        # One attempt: a refused connection mid-incident should fail in milliseconds, not after retries.
        api.configuration.retries = False
        api.rest_client.pool_manager.connection_pool_kw["retries"] = False
        refresh = api.configuration.refresh_api_key_hook
        if refresh is not None:  # re-runs the plugin when its token expires: the same failure, later
            api.configuration.refresh_api_key_hook = self._checked(refresh)
        return api

    def _check_credentials(self, logged: list[str]) -> None:
        if logged:
            raise ClusterError(
                f"cannot get credentials for context {self.context!r}: {logged[0][:300]}", _CREDENTIAL_HINT
            )

    def _checked(self, refresh: Callable[[Any], None]) -> Callable[[Any], None]:
        def hook(configuration: Any) -> None:
            with _client_log() as logged:
                refresh(configuration)
            self._check_credentials(logged)

        return hook

    @property
    def server(self) -> str:
        return str(self.api.configuration.host)

    @property
    def namespace(self) -> str | None:
        """The namespace the user scoped pods to (-n); None means all namespaces."""
        return self.options.scope.namespace

    # --- requests ------------------------------------------------------------------------------

    def _get(self, path: str, query: list[tuple[str, str | int]]) -> dict[str, Any]:
        method, url, headers, body, post = self.api.param_serialize(
            method="GET",
            resource_path=path,
            query_params=query,
            header_params={"Accept": "application/json"},
            auth_settings=["BearerToken"],
        )
        try:
            response = self.api.call_api(
                method,
                url,
                header_params=headers,
                body=body,
                post_params=post,
                _request_timeout=self.options.request_timeout,
            )
            data = response.read()  # type: ignore[no-untyped-call]
        except ApiException as exc:
            if not exc.status:  # the client wraps transport failures (TLS) as status 0
                raise ClusterError(self._transport_message(exc), self._transport_hint(exc)) from None
            raise
        except urllib3.exceptions.HTTPError as exc:
            raise ClusterError(self._transport_message(exc), self._transport_hint(exc)) from None
        if not 200 <= response.status < 300:
            raise ApiException(status=response.status, reason=response.reason, body=_text(data))
        try:
            decoded = orjson.loads(data or b"")
        except orjson.JSONDecodeError:
            raise ClusterError(
                f"the API server at {self.server} sent a malformed or truncated response for {path}",
                "retry; if it persists, check proxies between you and the cluster",
            ) from None
        if not isinstance(decoded, dict):
            raise ClusterError(f"the API server at {self.server} sent an unexpected response for {path}")
        return decoded

    def _transport_message(self, exc: BaseException) -> str:
        reason = getattr(exc, "reason", None) or exc
        text = " ".join(str(reason).split())
        timeout = self.options.request_timeout
        if isinstance(reason, urllib3.exceptions.SSLError) or "SSL" in text or "certificate" in text:
            return f"TLS error talking to {self.server}: {text[:200]}"
        # NewConnectionError subclasses ConnectTimeoutError in urllib3: test for it first.
        if isinstance(reason, urllib3.exceptions.NewConnectionError) or "refused" in text:
            return f"cannot connect to the API server at {self.server} (connection refused or unreachable)"
        if isinstance(reason, (urllib3.exceptions.TimeoutError, TimeoutError)) or "timed out" in text:
            if timeout:
                return f"the API server at {self.server} did not answer within {timeout:g}s"
            return f"the API server at {self.server} timed out"
        if isinstance(reason, urllib3.exceptions.ProtocolError) or "IncompleteRead" in text:
            return f"the connection to {self.server} broke mid-response (truncated body)"
        return f"cannot talk to the API server at {self.server}: {text[:200]}"

    def _transport_hint(self, exc: BaseException) -> str:
        reason = getattr(exc, "reason", None) or exc
        text = str(reason)
        if "SSL" in text or "certificate" in text:
            return "check certificate-authority-data in your kubeconfig"
        if not isinstance(reason, urllib3.exceptions.NewConnectionError) and "timed out" in text:
            return "raise --request-timeout or check your network path to the cluster"
        return f"check that context {self.context!r} points at a running cluster, or use --snapshot"

    def list_kind(
        self,
        spec: KindSpec,
        *,
        namespace: str | None = None,
        label: str | None = None,
        fields: str | None = None,
    ) -> list[dict[str, Any]] | None:
        """All objects of one kind (every page); None when the API does not serve it (absent CRD)."""
        for version in spec.versions:
            query: list[tuple[str, str | int]] = [("limit", PAGE_SIZE)]
            if label:
                query.append(("labelSelector", label))
            if fields:
                query.append(("fieldSelector", fields))
            items: list[dict[str, Any]] = []
            token: str | None = None
            try:
                while True:
                    page = self._get(
                        spec.path(version, namespace), [*query, *([("continue", token)] if token else [])]
                    )
                    api_version = f"{spec.group}/{version}" if spec.group else version
                    for item in page.get("items") or []:
                        if isinstance(item, dict):
                            item.setdefault("kind", spec.kind)
                            item.setdefault("apiVersion", api_version)
                            items.append(item)
                    token = (page.get("metadata") or {}).get("continue") or None
                    if not token:
                        return items
            except ApiException as exc:
                if exc.status == 404:
                    continue
                raise
        return None

    # --- orchestration -------------------------------------------------------------------------

    def _fetch_one(self, spec: KindSpec) -> list[dict[str, Any]] | None:
        if spec.name == "nodes":
            return self.list_kind(spec, label=self.options.scope.node_selector)
        if spec.name == "pods":
            return self._fetch_pods(spec)
        if spec.name == "events":
            found: dict[str, dict[str, Any]] = {}
            selectors = [f"reason={r}" for r in EVENT_REASONS]
            selectors += [f"reportingComponent={c}" for c in EVENT_COMPONENTS]
            for selector in selectors:
                for item in self.list_kind(spec, fields=selector) or []:
                    meta = item.get("metadata") or {}
                    found[str(meta.get("uid") or (meta.get("namespace"), meta.get("name")))] = item
            return list(found.values())
        return self.list_kind(spec)

    def _fetch_pods(self, spec: KindSpec) -> list[dict[str, Any]] | None:
        """Every pod, so that node figures count them all; `-n`/`-l` narrow what is listed, later.

        Where listing pods cluster-wide is forbidden (namespace-scoped RBAC), the scoped list still
        answers, and a note says that node figures count only the pods that could be read."""
        scope = self.options.scope
        if not scope.narrows_pods:
            return self.list_kind(spec)
        try:
            return self.list_kind(spec)
        except ApiException as exc:
            if exc.status != 403:
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
        """List every kind concurrently. 403 degrades, 404 means absent, the rest is fatal."""
        if kinds is None:
            specs = list(ALL_KINDS)
        else:
            wanted = {by_name(k).name for k in kinds}  # KeyError on a kind we do not know
            specs = [spec for spec in ALL_KINDS if spec.name in wanted]
        result = Fetched()
        self._notes: list[Note] = []
        with ThreadPoolExecutor(max_workers=min(8, len(specs))) as pool:
            futures = [(spec, pool.submit(self._fetch_one, spec)) for spec in specs]
            outcomes: list[tuple[KindSpec, list[dict[str, Any]] | BaseException | None]] = []
            for spec, future in futures:
                try:
                    outcomes.append((spec, future.result()))
                except (ApiException, ClusterError) as exc:
                    outcomes.append((spec, exc))
        for spec, outcome in outcomes:
            if isinstance(outcome, ClusterError):
                raise outcome
            if isinstance(outcome, ApiException):
                if outcome.status != 403:
                    raise self._api_error(outcome)
                scope = (
                    f"in namespace {self.namespace}" if spec.namespaced and self.namespace else "cluster-wide"
                )
                result.notes.append(
                    Note(
                        "FORBIDDEN",
                        f"forbidden to list {spec.resource} {scope}: {spec.impact} "
                        f"(needs RBAC verb 'list' on {spec.resource})",
                        spec.name,
                    )
                )
            elif outcome is None:
                result.absent.add(spec.name)
            elif isinstance(outcome, list):
                result.objects.extend(outcome)
        result.notes.extend(self._notes)
        return result

    def _api_error(self, exc: ApiException) -> ClusterError:
        message = _status_message(exc)
        if exc.status == 401:
            return ClusterError(
                f"unauthorized: the API server at {self.server} rejected the credentials of context "
                f"{self.context!r}",
                "refresh them (for EKS: aws eks update-kubeconfig, or log in to AWS again)",
            )
        return ClusterError(f"the API server at {self.server} answered {exc.status} {exc.reason}: {message}")

    def load(self, kinds: Iterable[str] | None = None) -> tuple[ClusterState, Fetched]:
        with bulk_load():
            return self._load(kinds)

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
        state.absent |= fetched.absent
        return state.build(source=f"context {self.context} ({self.server})", context=self.context), fetched


def _text(data: object) -> str:
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return str(data or "")


def _status_message(exc: ApiException) -> str:
    try:
        body = orjson.loads(exc.body or b"{}")
    except orjson.JSONDecodeError:
        return str(exc.body or "")[:200]
    return str(body.get("message", "")) if isinstance(body, dict) else ""
