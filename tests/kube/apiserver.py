"""A Kubernetes API server for tests: real HTTP on 127.0.0.1, an in-memory store, injectable faults.

It speaks enough of the API for the official `kubernetes` Python client and the real `kubectl` binary
(as the research reference's KUBECTL-WIRE.md describes the wire): legacy discovery, list (limit/continue, label and field
selectors), get, create (JSON, and the protobuf Pod `kubectl debug node/X` sends), delete, pod logs, the pod
proxy (`pod_proxy.py`: what exporters answer on /metrics) and SelfSubjectAccessReview. Every error is a
`Status` body as the real server writes it.

Extension points for a simulated kubelet: `on_create` callbacks run after each create through the API, and
`update_status()` changes an object's status with a new resourceVersion.

Watch (`?watch=1&resourceVersion=RV`) answers every change since RV to the objects the list would select
(ADDED, MODIFIED, DELETED), one JSON event a line, and ends the stream at once, as a real server does when
its `timeoutSeconds` runs out; after `compact()`, a resourceVersion from before it is answered with the
410 `ERROR` event of an expired one.
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
import random
import re
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote

from tests.kube import resources
from tests.kube.pod_proxy import PodProxy, proxy_target
from tests.kube.protobuf_pod import PROTOBUF_CONTENT_TYPE, SCHEMAS, ProtobufError, decode_object
from tests.kube.resources import ResourceType
from tests.kube.selectors import SelectorError, field_matches, parse_field_selector, parse_label_selector
from tests.kube.wire import ApiError, Fault, HttpServer, RecordedRequest, Response, json_response, status_body

Obj = dict[str, Any]
OnCreate = Callable[[str, Obj], None]
SsarPolicy = Callable[[Obj], bool] | Mapping[tuple[str, str], bool]

_NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789"  # what apiserver's generateName suffix draws from
DEFAULT_NAMESPACES = ("default", "kube-system")
_VERBS = {  # (HTTP method, is the path a collection?) -> API verb
    ("GET", True): "list",
    ("POST", True): "create",
    ("GET", False): "get",
    ("DELETE", False): "delete",
}


def _not_found(rt: ResourceType, name: str) -> ApiError:
    details = {"name": name, "group": rt.group, "kind": rt.plural}
    return ApiError(404, f'{rt.key} "{name}" not found', details=details)


def _int_param(query: Mapping[str, str], name: str) -> int:
    try:
        return int(query.get(name) or 0)
    except ValueError:
        raise ApiError(400, f"{name}: invalid integer {query[name]!r}") from None


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class FakeKubeAPI:
    """The fake API server. Use as a context manager, or `start()` / `stop()`."""

    def __init__(self, server_version: str = "v1.32.0", tls: bool = False) -> None:
        self.server_version = server_version
        self.tls = tls  # kubectl sends tokens and exec-plugin credentials only over TLS
        self.requests: list[RecordedRequest] = []
        self.require_token: str | None = None  # requests without `Authorization: Bearer <it>` get 401
        #: requests whose path matches get a 500 that quotes their Authorization header (a leaky proxy)
        self.echo_authorization: re.Pattern[str] | None = None
        self.ssar_allowed: SsarPolicy | None = None  # None: everything allowed
        self.pod_logs: dict[tuple[str, str] | str, str] = {}  # (namespace, pod) or node name -> text
        self.pod_proxy = PodProxy()  # what pods answer behind .../pods/NAME:PORT/proxy/PATH (pod_proxy.py)
        # Called with (resource key, a copy of the object) after each create through the API, in the request's
        # thread and before the response is sent; `add()` does not call them.
        self.on_create: list[OnCreate] = []
        self.server_errors: list[Exception] = []  # unexpected exceptions, each answered with a 500
        # How many more list requests that carry a `continue` token answer 410 Expired, as the API server does
        # once the token's resourceVersion was compacted away (a long list on a busy cluster).
        self.expire_continue_tokens = 0
        self._lock = threading.RLock()
        self._rv = 0
        self._store: dict[str, dict[tuple[str, str], Obj]] = {rt.key: {} for rt in resources.ALL}
        self._crds: set[str] = set()
        self._faults: list[Fault] = []
        self._http: HttpServer | None = None
        self._changes: list[tuple[int, str, str, Obj]] = []  # (resourceVersion, resource key, type, object)
        self._compacted = 0
        self.add(
            *({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}} for n in DEFAULT_NAMESPACES)
        )

    # ----------------------------------------------------------------- lifecycle
    @property
    def url(self) -> str:
        """`http://127.0.0.1:PORT` (`https://` with tls=True)."""
        if self._http is None:
            raise RuntimeError("FakeKubeAPI is not started")
        return self._http.url

    @property
    def ca_pem(self) -> bytes | None:
        """With tls=True, the self-signed certificate (PEM) clients should trust."""
        return self._http.ca_pem if self._http is not None else None

    def start(self) -> FakeKubeAPI:
        if self._http is None:
            self._http = HttpServer(self, tls=self.tls).start()
        return self

    def stop(self) -> None:
        """Stop serving; returns once every server thread has ended."""
        http, self._http = self._http, None
        if http is not None:
            http.stop()

    def __enter__(self) -> FakeKubeAPI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ----------------------------------------------------------------- store
    def _next_rv(self) -> str:
        self._rv += 1
        return str(self._rv)

    def _stamp(self, obj: Obj) -> None:
        meta = obj.setdefault("metadata", {})
        meta.setdefault("uid", str(uuid.uuid4()))
        meta.setdefault("creationTimestamp", _now())
        meta["resourceVersion"] = self._next_rv()

    def add(self, *objs: Obj) -> None:
        """Store objects as they are (plus uid, resourceVersion, creationTimestamp); the resource type comes
        from apiVersion/kind. Objects of a CRD kind may be added before `install_crds`; the API hides them
        until then. Replaces an object with the same name."""
        with self._lock:
            for original in objs:
                obj = copy.deepcopy(original)
                rt = resources.by_kind(obj.get("apiVersion", ""), obj.get("kind", ""))
                meta = obj.setdefault("metadata", {})
                if "name" not in meta:
                    raise ValueError(f"{rt.kind} without metadata.name")
                if rt.namespaced:
                    meta.setdefault("namespace", "default")
                else:
                    meta.pop("namespace", None)
                self._stamp(obj)
                replaced = self._store[rt.key].get((meta.get("namespace", ""), meta["name"]))
                self._store[rt.key][(meta.get("namespace", ""), meta["name"])] = obj
                self._changed(rt.key, "MODIFIED" if replaced is not None else "ADDED", obj)

    def objects(self, resource: str, namespace: str | None = None) -> list[Obj]:
        """Copies of the stored objects of `resource` (`pods`, `nodepools`...), sorted by namespace/name."""
        rt = resources.by_name(resource)
        with self._lock:
            items = sorted(self._store[rt.key].items())
            return [copy.deepcopy(o) for (ns, _), o in items if namespace is None or ns == namespace]

    def get(self, resource: str, name: str, namespace: str | None = None) -> Obj | None:
        rt = resources.by_name(resource)
        ns = (namespace or "default") if rt.namespaced else ""
        with self._lock:
            obj = self._store[rt.key].get((ns, name))
            return copy.deepcopy(obj) if obj is not None else None

    def update_status(self, resource: str, name: str, status: Obj, namespace: str | None = None) -> Obj:
        """Merge `status` into the object's status (top-level keys replaced) and bump its resourceVersion;
        the hook a simulated kubelet moves pods Pending -> Running -> Succeeded with."""
        rt = resources.by_name(resource)
        ns = (namespace or "default") if rt.namespaced else ""
        with self._lock:
            obj = self._store[rt.key].get((ns, name))
            if obj is None:
                raise KeyError(f"{rt.key} {ns}/{name} not found")
            obj.setdefault("status", {}).update(copy.deepcopy(status))
            obj["metadata"]["resourceVersion"] = self._next_rv()
            self._changed(rt.key, "MODIFIED", obj)
            return copy.deepcopy(obj)

    def remove(self, resource: str, name: str, namespace: str | None = None) -> bool:
        """Delete an object behind the API's back (a node going away, pod garbage collection); True if it
        existed. A simulated kubelet's hook, like `update_status`."""
        rt = resources.by_name(resource)
        ns = (namespace or "default") if rt.namespaced else ""
        with self._lock:
            gone = self._store[rt.key].pop((ns, name), None)
            if gone is not None:
                self._next_rv()
                self._changed(rt.key, "DELETED", gone)
            return gone is not None

    def install_crds(self, *names: str) -> None:
        """Make CRD-backed kinds exist (`nodepools.karpenter.sh`...); absent ones answer 404 everywhere."""
        unknown = set(names) - resources.CRD_NAMES
        if unknown:
            raise ValueError(f"unknown CRDs {sorted(unknown)}; known: {sorted(resources.CRD_NAMES)}")
        with self._lock:
            self._crds.update(names)

    # ----------------------------------------------------------------- faults
    def fault(
        self,
        *,
        method: str = "GET",
        path: str,
        status: int | None = None,
        body: Obj | None = None,
        delay: float = 0.0,
        truncate: bool = False,
        times: int | None = None,
        raw: bytes | str | None = None,
        content_type: str = "application/json",
        headers: Mapping[str, str] | None = None,
        drop: bool = False,
        seconds: float | None = None,
        stream: Callable[[], Iterator[bytes]] | None = None,
    ) -> None:
        """Misbehave on requests whose method matches (`*`: any) and whose URL path `re.search`es `path`:
        sleep `delay` seconds, then answer `status` with `body` (default: a `Status` for that code), or with
        `raw` as it is (an HTML error page, broken JSON; `content_type`; status 200 unless given), adding
        `headers` (`Retry-After`); or declare the full Content-Length, send half the body and close
        (`truncate`); or close the connection without a word (`drop`). `times`: how many requests (None: all);
        `seconds`: only during that many seconds from the first request it matches (an outage); `stream`: a
        body sent chunk by chunk as the iterator yields (a watch that never ends, an endless body). The first
        matching fault wins."""
        data = raw.encode() if isinstance(raw, str) else raw
        fault = Fault(
            method.upper(), re.compile(path), status, body, delay, truncate, times,
            data, content_type, dict(headers or {}), drop, seconds, stream=stream,
        )  # fmt: skip
        with self._lock:
            self._faults.append(fault)

    def repeat_continue_token(self, path: str, token: str = "c2FtZQ") -> None:
        """Every list under `path` answers an empty page whose `continue` is always `token`: a server (or a
        caching proxy) that sends the client round in circles."""
        body = {"kind": "List", "apiVersion": "v1", "metadata": {"continue": token}, "items": []}
        self.fault(path=path, status=200, body=body)

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def take_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in list(self._faults):
                if fault.matches(method, path) and fault.expired():
                    self._faults.remove(fault)
                    continue
                if fault.matches(method, path):
                    if fault.times is not None:
                        fault.times -= 1
                        if fault.times <= 0:
                            self._faults.remove(fault)
                    return fault
        return None

    # ----------------------------------------------------------------- request handling
    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _resource_types(self) -> list[ResourceType]:
        """Built-in types plus the installed CRDs: what discovery shows and paths resolve to."""
        with self._lock:
            return [rt for rt in resources.ALL if not rt.crd or rt.key in self._crds]

    def handle(
        self, method: str, path: str, query: dict[str, str], headers: dict[str, str], body: bytes
    ) -> Response:
        """Answer one request (after faults): auth, then discovery or a resource operation."""
        if self.require_token is not None and headers.get("authorization") != f"Bearer {self.require_token}":
            return json_response(401, status_body(401, "Unauthorized"))
        if self.echo_authorization is not None and self.echo_authorization.search(path):
            said = headers.get("authorization", "")
            return json_response(
                500, status_body(500, f"upstream rejected request with Authorization: {said}")
            )
        try:
            parts = [unquote(p) for p in path.split("/") if p]  # segments are unescaped, as the server does
            if parts == ["version"]:
                return json_response(200, self._version())
            if (parts[:1] == ["api"] and len(parts) <= 2) or (parts[:1] == ["apis"] and len(parts) <= 3):
                return json_response(200, self._discovery(parts))
            if method == "GET" and (target := proxy_target(parts)) is not None:
                with self._lock:
                    pods = dict(self._store["pods"])
                return self.pod_proxy.answer(target, pods)
            return self._resource_request(method, parts, query, headers, body)
        except ApiError as err:
            return json_response(err.code, err.body)
        except Exception as exc:  # a bug here or in an on_create callback: answer, and keep it for the test
            self.server_errors.append(exc)
            return json_response(500, status_body(500, f"fake API server error: {exc!r}"))

    def _version(self) -> Obj:
        match = re.match(r"v(\d+)\.(\d+)", self.server_version)
        major, minor = match.groups() if match else ("1", "32")
        return {
            "major": major,
            "minor": minor,
            "gitVersion": self.server_version,
            "gitCommit": "0000000000000000000000000000000000000000",
            "gitTreeState": "clean",
            "buildDate": "2025-01-01T00:00:00Z",
            "goVersion": "go1.23.0",
            "compiler": "gc",
            "platform": "linux/amd64",
        }

    def _discovery(self, parts: list[str]) -> Obj:
        """Legacy discovery documents; kubectl accepts them although it asks for aggregated discovery."""
        types = self._resource_types()
        if parts == ["api"]:
            return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}
        groups: dict[str, list[ResourceType]] = {}
        for rt in types:
            groups.setdefault(rt.group_version, []).append(rt)
        if parts == ["apis"]:
            names = sorted({rt.group for rt in types if rt.group})
            return {
                "kind": "APIGroupList",
                "apiVersion": "v1",
                "groups": [self._group(g, groups) for g in names],
            }
        if len(parts) == 2 and parts[0] == "apis":
            if not any(gv.startswith(parts[1] + "/") for gv in groups):
                raise ApiError(404, "the server could not find the requested resource")
            return {"kind": "APIGroup", "apiVersion": "v1", **self._group(parts[1], groups)}
        gv = "/".join(parts[1:])
        if gv not in groups:
            raise ApiError(404, "the server could not find the requested resource")
        entries = [entry for rt in groups[gv] for entry in rt.discovery()]
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": entries}

    @staticmethod
    def _group(name: str, groups: Mapping[str, list[ResourceType]]) -> Obj:
        versions = [
            {"groupVersion": gv, "version": gv.split("/")[1]} for gv in groups if gv.startswith(name + "/")
        ]
        return {"name": name, "versions": versions, "preferredVersion": versions[0]}

    def _route(self, parts: list[str]) -> tuple[ResourceType, str | None, str | None, str | None]:
        """Split a resource path into (type, namespace, name, subresource); 404 for anything unknown."""
        if parts[:2] == ["api", "v1"]:
            gv, rest = "v1", parts[2:]
        elif parts[:1] == ["apis"] and len(parts) >= 3:
            gv, rest = f"{parts[1]}/{parts[2]}", parts[3:]
        else:
            raise ApiError(404, "the server could not find the requested resource")
        by_plural = {rt.plural: rt for rt in self._resource_types() if rt.group_version == gv}
        namespace: str | None = None
        if (
            len(rest) >= 3
            and rest[0] == "namespaces"
            and rest[2] in by_plural
            and by_plural[rest[2]].namespaced
        ):
            namespace, rest = rest[1], rest[2:]
        rt = by_plural.get(rest[0]) if rest else None
        if rt is None or len(rest) > 3:
            raise ApiError(404, "the server could not find the requested resource")
        if rt.namespaced and namespace is None and len(rest) > 1:
            raise ApiError(404, "the server could not find the requested resource")
        name = rest[1] if len(rest) > 1 else None
        sub = rest[2] if len(rest) > 2 else None
        if sub is not None and sub not in {s.name for s in rt.subresources}:
            raise ApiError(404, "the server could not find the requested resource")
        return rt, namespace, name, sub

    def _resource_request(
        self, method: str, parts: list[str], query: dict[str, str], headers: Mapping[str, str], body: bytes
    ) -> Response:
        rt, namespace, name, sub = self._route(parts)
        not_allowed = ApiError(
            405, f"the server does not allow this method on the requested resource ({method})"
        )
        if sub is None:
            verb = _VERBS.get((method, name is None))
            if verb is None or verb not in rt.verbs:
                raise not_allowed
            if verb == "list" and query.get("watch") in ("true", "1"):
                return self._watch(rt, namespace, query)
            if verb == "list":
                return json_response(200, self._list(rt, namespace, query))
            if verb == "create":
                return json_response(201, self._create(rt, namespace, query, headers, body))
            assert name is not None
            if verb == "get":
                return json_response(200, self._get(rt, namespace, name))
            return json_response(200, self._delete(rt, namespace, name, query, body))
        assert name is not None
        if sub == "status" and method == "GET":
            return json_response(200, self._get(rt, namespace, name))
        if rt.plural == "pods" and sub == "log" and method == "GET":
            return self._log(namespace or "default", name, query)
        if sub in ("exec", "attach", "portforward"):
            raise ApiError(400, "Upgrade request required")  # streaming is not implemented
        raise not_allowed

    def _changed(self, key: str, kind: str, obj: Obj) -> None:
        """Keep a change for watches (under the lock, with the object's new resourceVersion)."""
        self._changes.append((self._rv, key, kind, copy.deepcopy(obj)))

    def compact(self) -> None:
        """Forget the changes so far, as etcd compaction does: watches from before now get a 410."""
        with self._lock:
            self._changes.clear()
            self._compacted = self._rv

    def _watch(self, rt: ResourceType, namespace: str | None, query: dict[str, str]) -> Response:
        try:
            since = int(query.get("resourceVersion") or "0")
            labels = parse_label_selector(query.get("labelSelector", ""))
            terms = parse_field_selector(query.get("fieldSelector", ""), rt.field_labels)
        except (ValueError, SelectorError) as err:
            raise ApiError(400, str(err)) from None
        with self._lock:
            if since < self._compacted:
                gone = status_body(410, f"too old resource version: {since} ({self._compacted})", "Expired")
                events = [{"type": "ERROR", "object": gone}]
            else:
                events = [
                    {"type": kind, "object": obj}
                    for rv, key, kind, obj in self._changes
                    if rv > since
                    and key == rt.key
                    and (namespace is None or obj["metadata"].get("namespace") == namespace)
                    and labels(obj.get("metadata", {}).get("labels") or {})
                    and field_matches(obj, terms, rt.fields)
                ]
        return Response(200, b"".join(json.dumps(e).encode() + b"\n" for e in events))

    def _list(self, rt: ResourceType, namespace: str | None, query: dict[str, str]) -> Obj:
        try:
            labels = parse_label_selector(query.get("labelSelector", ""))
            terms = parse_field_selector(query.get("fieldSelector", ""), rt.field_labels)
        except SelectorError as err:
            raise ApiError(400, str(err)) from None
        limit = _int_param(query, "limit")
        start: tuple[str, str] | None = None
        if token := query.get("continue"):
            with self._lock:
                expire = self.expire_continue_tokens > 0
                self.expire_continue_tokens -= int(expire)
            if expire:
                raise ApiError(
                    410,
                    "The provided continue parameter is too old to display a consistent list result. "
                    "You can start a new list without the continue parameter.",
                    reason="Expired",
                )
            try:
                decoded = json.loads(base64.urlsafe_b64decode(token.encode()))
                start = (decoded["start"][0], decoded["start"][1])
            except (ValueError, KeyError, IndexError, TypeError, binascii.Error):
                raise ApiError(400, "continue key is not valid: malformed token") from None
        with self._lock:
            rv = str(self._rv)
            items = [
                copy.deepcopy(obj)
                for key, obj in sorted(self._store[rt.key].items())
                if (namespace is None or key[0] == namespace)
                and (start is None or key > start)
                and labels(obj.get("metadata", {}).get("labels") or {})
                and field_matches(obj, terms, rt.fields)
            ]
        meta: Obj = {"resourceVersion": rv}
        if limit and len(items) > limit:
            last = items[limit - 1]["metadata"]
            token_doc = {
                "v": "fake.k8s.io/v1",
                "rv": int(rv),
                "start": [last.get("namespace", ""), last["name"]],
            }
            meta["continue"] = base64.urlsafe_b64encode(json.dumps(token_doc).encode()).decode()
            meta["remainingItemCount"] = len(items) - limit
            items = items[:limit]
        return {"kind": f"{rt.kind}List", "apiVersion": rt.group_version, "metadata": meta, "items": items}

    def _get(self, rt: ResourceType, namespace: str | None, name: str) -> Obj:
        with self._lock:
            obj = self._store[rt.key].get((namespace or "", name))
            if obj is None:
                raise _not_found(rt, name)
            return copy.deepcopy(obj)

    def _delete(
        self, rt: ResourceType, namespace: str | None, name: str, query: dict[str, str], body: bytes
    ) -> Obj:
        """DeleteOptions come as a JSON body or as query parameters; an unknown propagationPolicy is 422."""
        options: Obj = {}
        if body.strip():
            try:
                options = json.loads(body)
            except ValueError:
                raise ApiError(400, "the body of the request was in an unknown format") from None
        policy = query.get("propagationPolicy", options.get("propagationPolicy"))
        if policy is not None and policy not in ("Foreground", "Background", "Orphan"):
            message = f'propagationPolicy: Unsupported value: "{policy}"'
            raise ApiError(422, message, details={"name": name, "group": rt.group, "kind": rt.plural})
        with self._lock:
            obj = self._store[rt.key].pop((namespace or "", name), None)
            if obj is None:
                raise _not_found(rt, name)
            self._next_rv()
            self._changed(rt.key, "DELETED", obj)
            return obj

    def _decode_body(self, rt: ResourceType, headers: Mapping[str, str], body: bytes) -> Obj:
        content_type = headers.get("content-type", "application/json").split(";")[0].strip()
        if content_type == PROTOBUF_CONTENT_TYPE and (rt.group_version, rt.kind) in SCHEMAS:
            try:
                obj = decode_object(body)
            except ProtobufError as err:
                raise ApiError(400, f"the body of the request was in an unknown format: {err}") from None
            if obj["kind"] != rt.kind:
                raise ApiError(
                    400, f"the kind of the body ({obj['kind']}) does not match the resource ({rt.kind})"
                )
            return obj
        if content_type != "application/json":
            raise ApiError(
                415,
                f"the body of the request was in an unknown format - accepted media types "
                f"include: application/json (got {content_type})",
            )
        try:
            obj = json.loads(body)
        except ValueError as err:
            raise ApiError(400, f"the body of the request was in an unknown format: {err}") from None
        if not isinstance(obj, dict):
            raise ApiError(400, "the body of the request was in an unknown format")
        return obj

    def _create(
        self,
        rt: ResourceType,
        namespace: str | None,
        query: dict[str, str],
        headers: Mapping[str, str],
        body: bytes,
    ) -> Obj:
        obj = self._decode_body(rt, headers, body)
        if rt.key == "selfsubjectaccessreviews.authorization.k8s.io":
            return self._access_review(obj)
        if rt.namespaced and namespace is None:
            raise ApiError(405, "the server does not allow this method on the requested resource")
        obj.setdefault("apiVersion", rt.group_version)
        obj.setdefault("kind", rt.kind)
        meta = obj.setdefault("metadata", {})
        if rt.namespaced:
            if meta.get("namespace") not in (None, "", namespace):
                raise ApiError(
                    400,
                    "the namespace of the provided object does not match the namespace sent on the request",
                )
            meta["namespace"] = namespace
        if not meta.get("name"):
            if not meta.get("generateName"):
                raise ApiError(
                    422,
                    f"{rt.kind} is invalid: metadata.name: Required value: name or generateName is required",
                    reason="Invalid",
                )
            meta["name"] = meta["generateName"] + "".join(random.choices(_NAME_CHARS, k=5))
        if rt.key == "pods":
            obj.setdefault("status", {}).setdefault("phase", "Pending")
        dry_run = query.get("dryRun") == "All"
        with self._lock:
            store = self._store[rt.key]
            key = (namespace or "", meta["name"])
            if key in store:
                details = {"name": meta["name"], "group": rt.group, "kind": rt.plural}
                raise ApiError(409, f'{rt.key} "{meta["name"]}" already exists', "AlreadyExists", details)
            meta.pop("uid", None)
            meta.pop("resourceVersion", None)
            meta.pop("creationTimestamp", None)
            self._stamp(obj)
            if not dry_run:
                store[key] = obj
                self._changed(rt.key, "ADDED", obj)
            created = copy.deepcopy(obj)
        if not dry_run:
            for callback in list(self.on_create):
                callback(rt.key, copy.deepcopy(created))
        return created

    def _access_review(self, review: Obj) -> Obj:
        attrs = review.get("spec", {}).get("resourceAttributes") or {}
        policy = self.ssar_allowed
        if policy is None:
            allowed = True
        elif callable(policy):
            allowed = bool(policy(attrs))
        else:
            resource = attrs.get("resource", "")
            if attrs.get("group"):
                resource += "." + attrs["group"]
            if attrs.get("subresource"):
                resource += "/" + attrs["subresource"]
            allowed = policy.get((attrs.get("verb", ""), resource), True)
        status: Obj = {"allowed": allowed}  # no reason, like an RBAC denial: kubectl then prints a bare "no"
        return {
            "kind": "SelfSubjectAccessReview",
            "apiVersion": "authorization.k8s.io/v1",
            "metadata": {"creationTimestamp": None},
            "spec": review.get("spec", {}),
            "status": status,
        }

    def _log(self, namespace: str, name: str, query: dict[str, str]) -> Response:
        with self._lock:
            pod = self._store["pods"].get((namespace, name))
            if pod is None:
                raise _not_found(resources.by_name("pods"), name)
            node = pod.get("spec", {}).get("nodeName", "")
            text = self.pod_logs.get((namespace, name), self.pod_logs.get(node, "") if node else "")
        if "tailLines" in query:
            tail = _int_param(query, "tailLines")
            text = "".join(text.splitlines(keepends=True)[-tail:]) if tail > 0 else ""
        data = text.encode()
        if "limitBytes" in query:  # the API server stops after that many bytes, mid-line if need be
            data = data[: _int_param(query, "limitBytes")]
        return Response(200, data, "text/plain")
