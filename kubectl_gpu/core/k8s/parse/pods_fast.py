"""A pod in its usual shape, read once per *template*: the pods of a Deployment, a DaemonSet or a Job share
their requests, tolerations, node affinity and containers, so those are read for the first pod of each
distinct set and looked up for the others (see `parse/fast.py` for the rules every fast path keeps).

`parse_pod` is the parser: this path where it answers, else the checked one (`pods.parse_pod_checked`),
which answers or raises exactly as it always did. Tests hold the two equal on every real pod and on pods
with any field broken or replaced (tests/core/k8s/test_parse_fast.py).

A pod decoded from a large List (`parse/fields.py`) holds its template's parts as their JSON text
(`msgspec.Raw`): the template is then keyed by that text, and the parts are read (`loaded_spec`) only for the
first pod of each template, and for what reads a pod's own spec (its placement, the checked path).
"""

from __future__ import annotations

from typing import Any

from kubectl_gpu.core.k8s.models import Meta, Pod, Raw, Resources
from kubectl_gpu.core.k8s.parse.common import ModelError, resources, tolerations
from kubectl_gpu.core.k8s.parse.fast import (
    constructor,
    dumps,
    fast_meta,
    fast_time,
    memo_json,
    remember,
    str_values,
)
from kubectl_gpu.core.k8s.parse.fields import CONTAINER_TEXT_FIELDS, POD_TEXT_FIELDS, Text, read_text
from kubectl_gpu.core.k8s.parse.placement import interesting, parse_placement
from kubectl_gpu.core.k8s.parse.pods import (
    APP_KEYS,
    INIT_KEYS,
    LaterContainers,
    SlimDetails,
    effective,
    parse_pod_checked,
    selectable,
    slim,
    slim_status,
)
from kubectl_gpu.core.k8s.placement import NO_PLACEMENT
from kubectl_gpu.core.scheduling.affinity import NodeAffinity
from kubectl_gpu.core.scheduling.taints import Toleration

__all__ = ["fast_pod", "loaded_pod", "loaded_spec", "parse_pod", "parse_pod_kept"]


def parse_pod(obj: Raw) -> Pod:
    """A Pod from its `kubectl get -o json` dict; errors name the field."""
    found = fast_pod(obj)
    return found if found is not None else parse_pod_checked(loaded_pod(obj))


def parse_pod_kept(obj: Raw) -> Pod:
    """`parse_pod` of an object its caller holds until it exits: the pod's container statuses are read
    from the object as it is, not from a copy cut down to what is read (which saves memory only where the
    object is let go). The same answers (tests/core/k8s/test_pod_slim.py)."""
    found = fast_pod(obj, whole_status=True)
    return found if found is not None else parse_pod_checked(loaded_pod(obj))


def _loaded_containers(items: list[Any]) -> list[Any]:
    """The containers with the fields kept as text read; the list itself where none is."""
    out = None
    for index, item in enumerate(items):
        if type(item) is not dict:
            continue
        read = {k: read_text(v) for k in CONTAINER_TEXT_FIELDS if type(v := item.get(k)) is Text}
        if read:
            if out is None:
                out = list(items)
            out[index] = {**item, **read}
    return items if out is None else out


def loaded_spec(spec: Raw) -> Raw:
    """The spec as the whole parse gives it: each part kept as text (`parse/fields.py`) read as orjson reads
    it; the spec itself where none is."""
    read: Raw = {k: read_text(v) for k in POD_TEXT_FIELDS if type(v := spec.get(k)) is Text}
    for name in ("containers", "initContainers"):
        items = spec.get(name)
        if type(items) is list and (found := _loaded_containers(items)) is not items:
            read[name] = found
    return {**spec, **read} if read else spec


def loaded_pod(obj: Raw) -> Raw:
    """The pod as the whole parse gives it (`loaded_spec` of its spec): what the checked readers take."""
    spec = obj.get("spec")
    if type(spec) is not dict or (found := loaded_spec(spec)) is spec:
        return obj
    return {**obj, "spec": found}


class _Template:
    """What the pods of one scheduling template share (requests, tolerations, node affinity, whether they
    may hold a placement rule): read once, from the first of them. Their containers' names, images and
    variables are the pod's own part (`_apps`): many small Deployments and Jobs share a handful of these."""

    __slots__ = ("apps", "init", "node_affinity", "placement", "requests", "texts", "tolerations")

    def __init__(self, spec: Raw, containers: list[Any], init: list[Any], meta: Meta, *, texts: bool) -> None:
        where = f"Pod {meta.key}"
        # Keyed by its parts' text (`_text_key`): each app container's fields kept as text, read, which are
        # the same for every pod of the template (`_app`).
        self.texts = (
            [{k: c[k] for k in CONTAINER_TEXT_FIELDS if k in c} for c in containers] if texts else None
        )
        # The pods' app containers cut to what is read of them, per their names, images and variables
        # (`_template`): one list for the pods alike in those.
        self.apps: dict[tuple[tuple[str, str], ...] | bytes, list[Any] | LaterContainers] = {}
        # Templates that differ in an image or an env var share these parts: each read once per its own
        # text (`memo_json`; a part that does not read raises for this pod, and nothing is kept).
        resources_of = (
            [{} if (r := c.get("resources")) is None else r for c in containers],
            [({} if (r := c.get("resources")) is None else r, c.get("restartPolicy") or "") for c in init],
            {} if (v := spec.get("overhead")) is None else v,
        )
        self.requests: Resources = memo_json(
            _REQUESTS, resources_of, lambda: _requests(spec, containers, init, where)
        )
        self.tolerations: tuple[Toleration, ...] = memo_json(
            _TOLERATIONS,
            [] if (v := spec.get("tolerations")) is None else v,
            lambda: tolerations(spec.get("tolerations"), f"{where} spec.tolerations"),
        )
        self.node_affinity = memo_json(
            _AFFINITIES,
            {} if (v := spec.get("affinity")) is None else v,
            lambda: NodeAffinity.from_spec(spec),  # it reads `affinity` alone
        )
        self.init = slim(init, INIT_KEYS)
        # Whether the parts of a Placement the template holds (spread, pod affinity, host ports) are there:
        # then each pod's placement is read whole; else only its volumes can hold one (claims).
        parts = {
            k: spec.get(k) for k in ("topologySpreadConstraints", "affinity", "containers", "initContainers")
        }
        self.placement = interesting(parts)


_TEMPLATES: dict[bytes, _Template] = {}
_REQUESTS: dict[bytes, Resources] = {}
_TOLERATIONS: dict[bytes, tuple[Toleration, ...]] = {}
_AFFINITIES: dict[bytes, NodeAffinity] = {}


def _requests(spec: Raw, containers: list[Any], init: list[Any], where: str) -> Resources:
    overhead = resources(spec.get("overhead"), f"{where} spec.overhead")
    return effective(containers, init, overhead, where, "requests")


def _text_key(spec: Raw, containers: list[Any], init: list[Any]) -> bytes | None:
    """The template's key from its parts' text, where every part the pod has is kept as text (a pod decoded
    from a List: `parse/fields.py`); None where one is a value (then `_json_key`). An absent part is empty;
    the parts are cut by control characters, which JSON text never holds unescaped (nor `_json_key`'s).

    Straight-line, a pod at a time: each part is its text, `b""` where absent, or None where it is a value,
    which the join refuses (TypeError), as it does nothing but bytes-like objects."""
    get = spec.get
    t, a, o, s = get("tolerations"), get("affinity"), get("overhead"), get("topologySpreadConstraints")
    parts: list[Any] = [
        b"" if t is None else t if type(t) is Text else None,
        b"" if a is None else a if type(a) is Text else None,
        b"" if o is None else o if type(o) is Text else None,
        b"" if s is None else s if type(s) is Text else None,
    ]
    for c in containers:
        if type(c) is not dict:
            return None
        r, p = c.get("resources"), c.get("ports")
        parts += (
            b"\x01",
            b"" if r is None else r if type(r) is Text else None,
            b"" if p is None else p if type(p) is Text else None,
        )
    for c in init:
        if type(c) is not dict:
            return None
        r, p = c.get("resources"), c.get("ports")
        policy = c.get("restartPolicy") or ""  # a sidecar's (Always) ports are host ports: `interesting`
        if type(policy) is not str:
            return None
        parts += (
            b"\x02",
            b"" if r is None else r if type(r) is Text else None,
            b"" if p is None else p if type(p) is Text else None,
            dumps(policy),
        )
    try:
        return b"\x00".join(parts)
    except TypeError:  # a part that is a value
        return None


def _json_key(spec: Raw, containers: list[Any], init: list[Any]) -> bytes | None:
    """The template's key from its parts as values: their JSON text, exact where Python's equality is not
    (`1`, `1.0` and `true` are equal keys and read differently). An absent field stands as the empty value it
    reads as (`[]`, `{}`: `as_list` and `as_dict` read both alike), so the text holds a `null` only where a
    value inside is one or where JSON cannot tell (NaN and infinities, YAML's `.nan` and `.inf`, are written
    `null` too): such a key is not used (None), nor one of what JSON cannot hold."""
    get = spec.get
    try:  # the empty values inline, not through a helper: a call per field is a tenth of the key's cost
        key = dumps(
            (
                [] if (v := get("tolerations")) is None else v,
                {} if (v := get("affinity")) is None else v,
                {} if (v := get("overhead")) is None else v,
                [] if (v := get("topologySpreadConstraints")) is None else v,
                [
                    (
                        {} if (r := c.get("resources")) is None else r,
                        [] if (p := c.get("ports")) is None else p,
                    )
                    for c in containers
                ],
                [  # a sidecar's (restartPolicy: Always) ports are host ports the pod holds: `interesting`
                    (
                        {} if (r := c.get("resources")) is None else r,
                        c.get("restartPolicy") or "",
                        [] if (p := c.get("ports")) is None else p,
                    )
                    for c in init
                ],
            )
        )
    except (TypeError, AttributeError):  # an entry that is not an object, a value JSON cannot hold
        return None
    return None if b"null" in key else key


def _template(
    spec: Raw, containers: list[Any], init: list[Any], meta: Meta
) -> tuple[_Template, list[Any] | LaterContainers] | None:
    """The template of `spec` and its app containers cut to what is read of them (`slim`), each read once per
    distinct set of the fields it comes from: the template by `_text_key` or `_json_key` (a key of one
    can never be a key of the other: only the first holds control characters), the app containers by their
    names, images and variables. A hit is an input the checked readers read the same; None where a field is
    not in its usual shape or does not read (the checked path then says why).

    Where the template's parts are kept as text and the containers have names and images alone, the app
    containers are made on first use (`LaterContainers`)."""
    key = _text_key(spec, containers, init)
    texts = key is not None
    if key is None and (key := _json_key(spec, containers, init)) is None:
        return None
    own = _own_key(containers)  # the app containers' own part (`_Template.apps`)
    if own is None:
        return None
    found = _TEMPLATES.get(key)
    if found is None:
        whole = loaded_spec(spec)
        try:
            found = remember(_TEMPLATES, key, _Template(whole, *_containers_of(whole), meta, texts=texts))
        except ModelError:
            return None
    app = found.apps.get(own)
    if app is None:
        read = found.texts
        if read is not None and isinstance(own, tuple):  # names and images alone: made on first use
            app = remember(found.apps, own, LaterContainers(own, read))
        else:
            app = remember(found.apps, own, _app(containers, read))
    return found, app


def _own_key(containers: list[Any]) -> tuple[tuple[str, str], ...] | bytes | None:
    """The containers' names, images and variables as a key: their names and images where each is text and
    no container has variables (exact: strings compare as they read), else the JSON text of the three (exact
    where Python's equality is not); None where that text holds a `null` (a container without a name or an
    image: every real one has both) or cannot be written. A tuple never equals a text, so the two kinds of
    key share the memo."""
    plain: list[tuple[str, str]] = []
    for c in containers:
        if type(c) is not dict or c.get("env") is not None:
            break
        name, image = c.get("name"), c.get("image")
        if type(name) is not str or type(image) is not str:
            break
        plain.append((name, image))
    else:
        return tuple(plain)
    try:
        own = dumps(
            [(c.get("name"), c.get("image"), [] if (e := c.get("env")) is None else e) for c in containers]
        )
    except (TypeError, AttributeError):
        return None
    return None if b"null" in own else own


def _app(containers: list[Any], texts: list[Any] | None) -> list[Any]:
    """`slim(containers, APP_KEYS)`, with the fields kept as text taken as the template read them (`texts`:
    the same text, container by container, as the template's key holds them)."""
    if texts is None:
        return slim(containers, APP_KEYS)
    return [
        {**{k: c[k] for k in _OWN_KEYS if k in c}, **read} for c, read in zip(containers, texts, strict=True)
    ]


#: What `APP_KEYS` names of a container that is its own, not its template's (`_app`), in `APP_KEYS`' order.
_OWN_KEYS = tuple(k for k in APP_KEYS if k not in CONTAINER_TEXT_FIELDS)


def _containers_of(spec: Raw) -> tuple[list[Any], list[Any]]:
    """A spec's app and init containers, absent as empty (`fast_pod` then checks that they are lists)."""
    containers, init = spec.get("containers"), spec.get("initContainers")
    return [] if containers is None else containers, [] if init is None else init


def _claims_in(volumes: object) -> bool:
    """Whether `volumes` may hold a claim (what `placement.interesting` looks for in them)."""
    if volumes is None:
        return False
    if type(volumes) is not list:
        return True
    for volume in volumes:
        if type(volume) is not dict or "persistentVolumeClaim" in volume or "ephemeral" in volume:
            return True
    return False


def fast_pod(obj: Raw, whole_status: bool = False) -> Pod | None:
    """`parse_pod_checked` of a pod in its usual shape; None for anything else. `whole_status`: its
    details read from `status` as it is, not from `slim_status` of it (see `parse_pod_kept`)."""
    m = fast_meta(obj.get("metadata"), namespaced=True)
    spec, status = obj.get("spec"), obj.get("status")
    if m is None or type(spec) is not dict or (status is not None and type(status) is not dict):
        return None
    status = status or {}
    get = spec.get  # every lookup counts: a pod is ~20 us, and a fleet has tens of thousands
    containers, init = _containers_of(spec)
    priority, grace = get("priority"), get("terminationGracePeriodSeconds")
    node_selector = get("nodeSelector")
    node_selector = {} if node_selector is None else node_selector
    claims, gates = get("resourceClaims"), get("schedulingGates")
    if (
        type(containers) is not list
        or type(init) is not list
        or not (claims is None or (type(claims) is list and not claims))  # absent or []
        or not (gates is None or (type(gates) is list and not gates))
        or (priority is not None and type(priority) is not int)
        or (grace is not None and type(grace) is not int)
        or type(node_selector) is not dict
        or not str_values(node_selector)
    ):
        return None
    found = _template(spec, containers, init, m)
    if found is None:
        return None
    template, app = found
    placement = (
        parse_placement(loaded_spec(spec), m.name)
        if template.placement or _claims_in(get("volumes"))
        else NO_PLACEMENT
    )
    status_get = status.get
    node_name, phase = get("nodeName"), status_get("phase")
    scheduler, nominated = get("schedulerName"), status_get("nominatedNodeName")
    restart, account, host_network, pod_ip = selectable(spec, status)
    return _pod(  # `opt_str` of each text, inline
        meta=m,
        node_name=node_name if isinstance(node_name, str) and node_name else None,
        phase=phase if isinstance(phase, str) and phase else "Pending",
        scheduler_name=scheduler if isinstance(scheduler, str) and scheduler else "default-scheduler",
        priority=priority,
        requests=template.requests,  # one dict for the pods of a template: read-only, like every model field
        tolerations=template.tolerations,
        node_selector=node_selector,
        node_affinity=template.node_affinity,
        nominated_node_name=nominated if isinstance(nominated, str) and nominated else None,
        resource_claims=(),
        started=fast_time(status_get("startTime")),
        termination_grace_period_seconds=grace,
        scheduling_gates=(),
        _details=SlimDetails(app, template.init, status if whole_status else slim_status(status), m),
        placement=placement,
        restart_policy=restart,
        service_account_name=account,
        host_network=host_network,
        pod_ip=pod_ip,
    )


_pod = constructor(Pod)
