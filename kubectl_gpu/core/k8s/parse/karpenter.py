"""Karpenter's kinds: NodePool, NodeClaim, the node classes (Auto Mode NodeClass, EC2NodeClass), and the
pre-v1beta1 kinds (Provisioner, Machine, AWSNodeTemplate), recognised only to be named."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from kubectl_gpu.core.k8s.models import (
    Budget,
    Condition,
    LegacyKarpenterObject,
    Meta,
    NodeClaim,
    NodeClass,
    NodePool,
    Raw,
)
from kubectl_gpu.core.k8s.parse.common import (
    ModelError,
    as_dict,
    as_list,
    conditions,
    meta,
    node_class_ref,
    opt_int,
    opt_str,
    resources,
    str_map,
    taints,
)
from kubectl_gpu.core.k8s.parse.fast import (
    constructor,
    fast_conditions,
    fast_meta,
    fast_time,
    memo_labels,
    memo_resources,
    memo_text,
)
from kubectl_gpu.core.k8s.parse.fields import Text, read_text
from kubectl_gpu.core.scheduling.taints import Taint

__all__ = ["field_paths", "nodeclass_parser", "parse_legacy_karpenter", "parse_nodeclaim", "parse_nodepool"]


def _requirements(value: object, where: str) -> tuple[Raw, ...]:
    items = as_list(value, where)
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("key"), str):
            raise ModelError(f"{where} entries need a key")
    return tuple(items)


def _budgets(disruption: Raw, where: str) -> tuple[Budget, ...]:
    budgets = []
    for item in as_list(disruption.get("budgets"), f"{where} spec.disruption.budgets"):
        if isinstance(item, dict):
            budgets.append(
                Budget(
                    nodes=str(item.get("nodes", "10%")),
                    schedule=opt_str(item.get("schedule")),
                    duration=opt_str(item.get("duration")),
                    reasons=tuple(str(r) for r in as_list(item.get("reasons"), f"{where} budget reasons")),
                )
            )
    return tuple(budgets)


_NOT_CHECKED = frozenset({"metadata", "status"})
_MAX_PATHS = 2000  # a NodePool sets a few dozen; past this, the rest is not listed
_CONTAINERS = (dict, list)
_SCALARS = frozenset({str, int, float, bool, type(None)})


def field_paths(obj: Raw) -> tuple[str, ...]:
    """The paths of every field the object sets, as the CRD schema writes them: `.spec.limits.cpu`,
    `.spec.template.spec.requirements[].key` (`[]` for list items). `metadata` (ObjectMeta, not in the
    CRD schema) and `status` (written by the controller) are left out. Sorted, each once."""
    out: set[str] = set()
    stack: list[tuple[str, object]] = [
        (f".{k}", v) for k, v in obj.items() if isinstance(k, str) and k not in _NOT_CHECKED
    ]
    push = stack.append  # plain loops: a generator per value, and a `dict | list` per item, cost 1.6x
    while stack and len(out) < _MAX_PATHS:
        path, value = stack.pop()
        out.add(path)
        if isinstance(value, dict):
            for k, v in value.items():
                if isinstance(k, str):
                    push((f"{path}.{k}", v))
        elif isinstance(value, list) and not _SCALARS.issuperset(map(type, value)):  # a list of strings: in C
            item = f"{path}[]"
            for v in value:
                if isinstance(v, _CONTAINERS):
                    push((item, v))
    return tuple(sorted(out))


def parse_nodepool(obj: Raw) -> NodePool:
    m = meta(obj, "NodePool")
    where = f"NodePool {m.name}"
    spec = as_dict(obj.get("spec"), f"{where} spec")
    template = as_dict(spec.get("template"), f"{where} spec.template")
    tmeta = as_dict(template.get("metadata"), f"{where} spec.template.metadata")
    tspec = as_dict(template.get("spec"), f"{where} spec.template.spec")
    disruption = as_dict(spec.get("disruption"), f"{where} spec.disruption")
    status = as_dict(obj.get("status"), f"{where} status")
    return NodePool(
        meta=m,
        requirements=_requirements(tspec.get("requirements"), f"{where} spec.template.spec.requirements"),
        template_labels=str_map(tmeta.get("labels"), f"{where} spec.template.metadata.labels"),
        taints=taints(tspec.get("taints"), f"{where} spec.template.spec.taints"),
        startup_taints=taints(tspec.get("startupTaints"), f"{where} spec.template.spec.startupTaints"),
        node_class_ref=node_class_ref(tspec.get("nodeClassRef")),
        expire_after=opt_str(tspec.get("expireAfter")),
        termination_grace_period=opt_str(tspec.get("terminationGracePeriod")),
        consolidation_policy=opt_str(disruption.get("consolidationPolicy")),
        consolidate_after=opt_str(disruption.get("consolidateAfter")),
        budgets=_budgets(disruption, where),
        limits=resources(spec.get("limits"), f"{where} spec.limits"),
        weight=opt_int(spec.get("weight"), f"{where} spec.weight"),
        replicas=opt_int(spec.get("replicas"), f"{where} spec.replicas"),
        conditions=conditions(status.get("conditions"), f"{where} status.conditions"),
        status_resources=resources(status.get("resources"), f"{where} status.resources"),
        api_version=opt_str(obj.get("apiVersion")),
        field_paths=field_paths(obj),
    )


def parse_legacy_karpenter(obj: Raw) -> LegacyKarpenterObject:
    kind = str(obj.get("kind", ""))
    return LegacyKarpenterObject(meta(obj, kind), kind, str(obj.get("apiVersion", "")))


def parse_nodeclaim(obj: Raw) -> NodeClaim:
    """A NodeClaim: its spec read once per distinct spec (`_SPECS`: a NodePool's claims share theirs but
    the instance type's, 401 specs for 10,000 claims on bench's `nodeclaims`), its own status each time."""
    m = _claim_meta(obj)
    where = f"NodeClaim {m.name}"
    try:
        spec = memo_text(_SPECS, obj.get("spec"), lambda v: _spec_parts(as_dict(v, f"{where} spec"), where))
    except ModelError:  # read again in the order of the whole read, so the error is the one it gives
        return _checked_nodeclaim(obj, m, where)
    return _claim(m, spec, _status_parts(as_dict(obj.get("status"), f"{where} status"), where))


def _checked_nodeclaim(obj: Raw, m: Meta, where: str) -> NodeClaim:
    """The claim read field by field in the order of the API's printing (spec, status, then the startup
    taints): what answers, or raises, where its spec does not read."""
    value = obj.get("spec")
    spec = as_dict(read_text(value) if type(value) is Text else value, f"{where} spec")
    status = as_dict(obj.get("status"), f"{where} status")
    head = _spec_head(spec, where)
    found = _status_parts(status, where)
    return _claim(m, (*head, _startup_taints(spec, where)), found)


def _claim_meta(obj: Raw) -> Meta:
    """The claim's metadata, its labels kept as text (`parse/fields.py`) read once per text."""
    md = obj.get("metadata")
    labels = md.get("labels") if type(md) is dict else None
    if type(labels) is not Text:
        return fast_meta(md, namespaced=False) or meta(obj, "NodeClaim")
    read = memo_labels(labels)
    found = fast_meta(md, namespaced=False, labels=read) if read is not None else None
    if found is not None:
        return found
    assert type(md) is dict
    return meta({**obj, "metadata": {**md, "labels": read_text(labels)}}, "NodeClaim")  # says why


def _spec_parts(spec: Raw, where: str) -> tuple[Any, ...]:
    """What a claim reads of its spec (`_claim`'s order); ModelError where a part does not read."""
    return (*_spec_head(spec, where), _startup_taints(spec, where))


def _spec_head(spec: Raw, where: str) -> tuple[Any, ...]:
    """The spec's parts but the startup taints (read after the status: `_checked_nodeclaim`)."""
    return (
        node_class_ref(spec.get("nodeClassRef")),
        memo_text(
            _REQUIREMENTS, spec.get("requirements"), lambda v: _requirements(v, f"{where} spec.requirements")
        ),
        memo_text(_TAINTS, spec.get("taints"), lambda v: taints(v, f"{where} spec.taints")),
        opt_str(spec.get("expireAfter")),
        opt_str(spec.get("terminationGracePeriod")),
        memo_resources(
            as_dict(spec.get("resources"), where).get("requests"), lambda: f"{where} spec.resources"
        ),
    )


def _startup_taints(spec: Raw, where: str) -> tuple[Taint, ...]:
    return memo_text(_TAINTS, spec.get("startupTaints"), lambda v: taints(v, f"{where} spec.startupTaints"))


def _status_parts(status: Raw, where: str) -> tuple[Any, ...]:
    """The claim's own parts, read for every claim: its node, instance, capacity, conditions."""
    return (
        opt_str(status.get("nodeName")),
        opt_str(status.get("providerID")),
        opt_str(status.get("imageID")),
        memo_resources(status.get("capacity"), lambda: f"{where} status.capacity"),
        memo_resources(status.get("allocatable"), lambda: f"{where} status.allocatable"),
        memo_text(  # a NodePool's claims launched together share their conditions, times too
            _CONDITIONS, status.get("conditions"), lambda v: fast_conditions(v, f"{where} status.conditions")
        ),
        fast_time(status.get("lastPodEventTime")),
    )


def _claim(m: Meta, spec: tuple[Any, ...], status: tuple[Any, ...]) -> NodeClaim:
    """The claim of its metadata, `_spec_parts` and `_status_parts`."""
    ref, requirements, claim_taints, expire, grace, requested, startup = spec
    node_name, provider_id, image_id, capacity, allocatable, conditions, last_pod_event = status
    return _nodeclaim(
        meta=m,
        node_pool=m.labels.get("karpenter.sh/nodepool"),
        node_class_ref=ref,
        requirements=requirements,
        taints=claim_taints,
        expire_after=expire,
        termination_grace_period=grace,
        requested=dict(requested),  # each claim's own, as `memo_resources` gives it
        node_name=node_name,
        provider_id=provider_id,
        image_id=image_id,
        capacity=capacity,
        allocatable=allocatable,
        conditions=conditions,
        last_pod_event=last_pod_event,
        startup_taints=startup,
    )


_TAINTS: dict[bytes, tuple[Taint, ...]] = {}  # a NodePool's claims share its taints
_CONDITIONS: dict[bytes, tuple[Condition, ...]] = {}
_REQUIREMENTS: dict[bytes, tuple[Raw, ...]] = {}  # and their requirements, but the instance type's
_SPECS: dict[bytes, tuple[Any, ...]] = {}  # and their specs (`_spec_parts`)
_nodeclaim = constructor(NodeClaim)


def _ami_aliases(value: object, where: str) -> tuple[str, ...]:
    return tuple(
        str(term["alias"])
        for term in as_list(value, where)
        if isinstance(term, dict) and term.get("alias") is not None
    )


def _block_devices(value: object, where: str) -> tuple[tuple[str | None, bool, Decimal | None], ...]:
    out = []
    for i, item in enumerate(as_list(value, where)):
        if not isinstance(item, dict):
            continue
        ebs = as_dict(item.get("ebs"), f"{where}[{i}].ebs")
        size = None
        if ebs.get("volumeSize") is not None:
            size = resources({"size": ebs["volumeSize"]}, f"{where}[{i}].ebs.volumeSize")["size"]
        out.append((opt_str(item.get("deviceName")), item.get("rootVolume") is True, size))
    return tuple(out)


def _zones(status: Raw, where: str) -> tuple[str, ...]:
    subnets = as_list(status.get("subnets"), f"{where} status.subnets")
    return tuple(sorted({str(s["zone"]) for s in subnets if isinstance(s, dict) and s.get("zone")}))


def nodeclass_parser(kind: str, group: str) -> Callable[[Raw], NodeClass]:
    def parse(obj: Raw) -> NodeClass:
        m = meta(obj, kind)
        where = f"{kind} {m.name}"
        spec = as_dict(obj.get("spec"), f"{where} spec")
        size: Decimal | None = None
        size_text: str | None = None
        eph = spec.get("ephemeralStorage")
        if isinstance(eph, dict) and eph.get("size") is not None:
            size = resources({"size": eph["size"]}, f"{where} spec.ephemeralStorage")["size"]
            size_text = str(eph["size"])
        user_data = spec.get("userData")
        status = as_dict(obj.get("status"), f"{where} status")
        return NodeClass(
            meta=m,
            kind=kind,
            group=group,
            ephemeral_storage_size=size,
            instance_store_policy=opt_str(spec.get("instanceStorePolicy")),
            conditions=conditions(status.get("conditions"), f"{where} status.conditions"),
            ephemeral_storage_text=size_text,
            user_data=None if user_data is None else str(user_data),
            ami_aliases=_ami_aliases(spec.get("amiSelectorTerms"), f"{where} spec.amiSelectorTerms"),
            block_devices=_block_devices(
                spec.get("blockDeviceMappings"), f"{where} spec.blockDeviceMappings"
            ),
            ami_family=opt_str(spec.get("amiFamily")),
            zones=_zones(status, where),
            api_version=opt_str(obj.get("apiVersion")),
        )

    return parse
