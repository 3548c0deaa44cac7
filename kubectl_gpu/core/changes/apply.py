"""Changes applied, in order, to a copy of a captured cluster: all of them or none (`ChangeError`, exit 2).

Each change reads the object as captured (`ClusterState.manifest`, when the source keeps manifests) or as
an earlier change left it, makes the new object, parses it with the parsers every source uses, and puts the
model in place of the old one. Workloads become their Pending pods (`workloads.py`). A patch of a NodePool
or Pod the source kept no manifest of is made on its model (`typed.py`), as is every patch the model takes
where only the model is wanted (`changed_objects`): `simulate` and the pending fix verifier make their
changes through this one entry point.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

import msgspec

from kubectl_gpu.core.changes.defaults import nodepool_defaults
from kubectl_gpu.core.changes.model import KINDS, NAMESPACED, Change, ChangeError
from kubectl_gpu.core.changes.patches import PatchFailed, json_merge, json_patch, strategic_merge
from kubectl_gpu.core.changes.typed import patch_model
from kubectl_gpu.core.changes.workloads import (
    base_from_pods,
    owned_pods,
    replica_count,
    replica_pods,
    same_scheduling,
)
from kubectl_gpu.core.k8s.models import NodeClass, NodePool, Pod
from kubectl_gpu.core.k8s.parse import ModelError, kind_of, parse_object
from kubectl_gpu.core.k8s.state import ClusterState

__all__ = ["Applied", "apply_changes"]

_WORKLOADS = frozenset({"Deployment", "StatefulSet", "Job", "LeaderWorkerSet"})
_CUSTOM = frozenset({"NodePool", "NodeClass", "EC2NodeClass", "LeaderWorkerSet"})
ManifestKey = tuple[str, str | None, str]


class Applied(msgspec.Struct, frozen=True):
    """What one change did: the object before and after (None: added, deleted; both None when the source kept
    no manifest and the change was made on the model, `typed.py`), the pods it made Pending and the pods it
    took away, how its base was found, and the model it made (a NodePool, NodeClass or Pod; None otherwise)."""

    change: Change
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None
    pods_added: tuple[str, ...] = ()
    pods_removed: tuple[str, ...] = ()
    note: str | None = None
    model: Any = None


class _Manifests(Mapping[ManifestKey, Mapping[str, Any]]):
    """The captured manifests with the changes' objects over them (nothing captured is copied)."""

    def __init__(self, base: Mapping[ManifestKey, Mapping[str, Any]]) -> None:
        self.base = base
        self.changed: dict[ManifestKey, Mapping[str, Any] | None] = {}

    def __getitem__(self, key: ManifestKey) -> Mapping[str, Any]:
        if key in self.changed:
            found = self.changed[key]
            if found is None:
                raise KeyError(key)
            return found
        return self.base[key]

    def __iter__(self) -> Iterator[ManifestKey]:
        yield from (k for k, v in self.changed.items() if v is not None)
        yield from (k for k in self.base if k not in self.changed)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _Work:
    """The lists a run of changes edits, then freezes into the new state. The pods are copied only when a
    change needs them all (a workload's) or the new state is built: the fix verifier makes one change per
    fix and wants only the object it makes."""

    def __init__(
        self, state: ClusterState, now: datetime | None, known: Sequence[Pod] = (), *, on_models: bool = False
    ) -> None:
        self.state = state
        self.now = now
        self.known = known  # the pods the caller means by their names (`changed_objects`)
        self.on_models = on_models  # a patch the model takes is made on it, kept manifest or not
        self.pools = list(state.nodepools)
        self.classes = list(state.nodeclasses)
        self.gone: set[int] = set()  # the ids of the captured pods a change took away
        self.added: list[Pod] = []
        self.manifests = _Manifests(state.manifests)
        self.workloads: dict[ManifestKey, Mapping[str, Any]] = {}

    @property
    def pods(self) -> list[Pod]:
        kept = self.state.pods if not self.gone else [p for p in self.state.pods if id(p) not in self.gone]
        return [*kept, *self.added]

    def named(self, namespace: str | None, name: str) -> list[Pod]:
        """The pods of that namespace and name, as the changes so far left them."""
        held = [p for p in self.known if p.namespace == namespace and p.name == name]
        if held:  # the caller's own: no index of every pod for it
            found = [p for p in held if id(p) not in self.gone]
        else:
            index = self.state.memo(_POD_INDEX, lambda: _pod_index(self.state.pods))
            found = [p for p in index.get((namespace, name), ()) if id(p) not in self.gone]
        return found + [p for p in self.added if p.namespace == namespace and p.name == name]

    def remove(self, pods: Iterable[Pod]) -> None:
        ids = {id(p) for p in pods}
        self.added = [p for p in self.added if id(p) not in ids]
        self.gone |= ids

    def build(self) -> ClusterState:
        return dataclasses.replace(
            self.state,
            nodepools=tuple(self.pools),
            nodeclasses=tuple(self.classes),
            pods=tuple(self.pods),
            manifests=self.manifests,
            _memo={},
            _parsed_probes={},
        )


_POD_INDEX = ("core.changes", "pods by namespace and name")


def _pod_index(pods: Iterable[Pod]) -> dict[tuple[str | None, str], list[Pod]]:
    out: dict[tuple[str | None, str], list[Pod]] = {}
    for pod in pods:
        out.setdefault((pod.namespace, pod.name), []).append(pod)
    return out


def apply_changes(
    state: ClusterState, changes: Iterable[Change], now: datetime | None = None
) -> tuple[ClusterState, tuple[Applied, ...]]:
    """The state with every change made, in order, and what each did. `now`: the creation time of the pods
    a workload makes. Raises ChangeError (nothing is applied) at the first change that cannot be made."""
    work = _Work(state, now)
    done = _run(work, changes)
    return work.build(), done


def changed_objects(
    state: ClusterState, changes: Iterable[Change], *, pods: Sequence[Pod] = ()
) -> tuple[Applied, ...]:
    """What `apply_changes` would do, each change's model included, without building the new state (the fix
    verifier: one change per fix, then the object it makes is evaluated alone). A patch the model takes
    (`typed.py`) is made on it even where the manifest was kept: the same model (tests/core/simulate), and
    no manifest kept for later is read for it (a large List's: `Manifests`), so the TUI's first answer pays
    no more than `diagnose`'s. `pods`: the pods a change to a pod means, where the caller holds them (a change
    to one of them by its namespace and name changes that object; no index of every pod is built to find it)."""
    return _run(_Work(state, None, pods, on_models=True), changes)


def _run(work: _Work, changes: Iterable[Change]) -> tuple[Applied, ...]:
    done = []
    for change in changes:
        if change.kind not in KINDS:
            raise change.error(
                f"kind {change.kind} cannot be simulated", f"simulate changes {', '.join(KINDS)}"
            )
        if change.kind in _WORKLOADS:
            done.append(_workload(work, change))
        elif change.kind == "Pod":
            done.append(_pod(work, change))
        else:
            done.append(_karpenter(work, change))
    return tuple(done)


def _on_model(work: _Work, change: Change, model: NodePool | Pod | None) -> NodePool | Pod | None:
    """The model as the patch leaves it, where only models are wanted and the patch is one the model takes;
    None: the change is made on the manifest (or the error is the one that path gives)."""
    if not work.on_models or model is None or change.action != "patch":
        return None
    try:
        return patch_model(change, model)
    except ChangeError:
        return None


def _patched(change: Change, current: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The object after the change: the body (apply), the patch applied (patch), None (delete)."""
    if change.action == "delete":
        if current is None:
            raise change.error("not found", "check the kind and name (kubectl get)")
        return None
    if change.action == "apply":
        obj = change.body
    else:
        if current is None:
            raise change.error("not found: there is nothing to patch", "give the whole object instead")
        if change.patch_type == "strategic" and change.kind in _CUSTOM:
            raise change.error(
                "strategic merge patch is not supported for custom resources",
                "use --type merge or --type json",
            )
        patch = {"strategic": strategic_merge, "merge": json_merge, "json": json_patch}[change.patch_type]
        try:
            obj = patch(current, change.body)
        except PatchFailed as exc:
            raise change.error(f"the {change.patch_type} patch does not apply: {exc}") from None
    if not isinstance(obj, dict):
        raise change.error("the result is not an object")
    meta = _map(obj.get("metadata"))
    if obj.get("kind") != change.kind or meta.get("name") != change.name:
        raise change.error(
            f"the patch changes the object's kind or name ({obj.get('kind')}/{meta.get('name')})"
        )
    if change.kind in NAMESPACED:
        obj = {**obj, "metadata": {**meta, "namespace": change.namespace}}
    if current is not None and change.kind in _CUSTOM | {"Pod"}:
        # The status subresource: an apply or a patch of the object never changes it (the API server
        # ignores `status` there), so the pool's resources in use, its conditions, the class's subnets stay.
        obj = {k: v for k, v in obj.items() if k != "status"}
        if current.get("status") is not None:
            obj["status"] = current["status"]
    return obj


def _map(value: Any) -> dict[str, Any]:
    """`value` when it is a mapping (an object's part), else an empty one."""
    return dict(value) if isinstance(value, Mapping) else {}


def _parse(change: Change, obj: Mapping[str, Any]) -> Any:
    group, _ = kind_of(dict(obj))
    if group != KINDS[change.kind]:
        raise change.error(
            f"apiVersion {obj.get('apiVersion')!r} is not of API group {KINDS[change.kind] or 'core'}"
        )
    try:
        return parse_object(dict(obj))
    except (ModelError, ValueError, TypeError, AttributeError) as exc:
        raise change.error(f"the object does not parse: {exc}") from None


def _karpenter(work: _Work, change: Change) -> Applied:
    key: ManifestKey = (change.kind, None, change.name)
    models: list[Any] = work.pools if change.kind == "NodePool" else work.classes

    def same(m: NodePool | NodeClass) -> bool:
        return m.name == change.name and (isinstance(m, NodePool) or m.kind == change.kind)

    old = next((m for m in models if same(m)), None)
    model: Any = _on_model(work, change, old if isinstance(old, NodePool) else None)
    current = work.manifests.get(key) if model is None else None
    if old is not None and current is None and change.action == "patch":  # on the model
        if not isinstance(old, NodePool):
            raise change.error(
                "the source kept no copy of it to change", "read the cluster with its manifests"
            )
        model = model or patch_model(change, old)
        models[:] = [m for m in models if not same(m)] + [model]
        return Applied(change, None, None, model=model)
    obj = _patched(change, current)
    if obj is not None and change.kind == "NodePool":
        obj = nodepool_defaults(obj)
    model = _parse(change, obj) if obj is not None else None
    if isinstance(old, NodePool) and isinstance(model, NodePool) and current is None:
        # replaced without its manifest: the status the API server keeps comes from the model
        model = msgspec.structs.replace(
            model, conditions=old.conditions, status_resources=old.status_resources
        )
    models[:] = [m for m in models if not same(m)] + ([model] if model is not None else [])
    work.manifests.changed[key] = obj
    return Applied(change, current, obj, model=model)


def _pod(work: _Work, change: Change) -> Applied:
    key: ManifestKey = ("Pod", change.namespace, change.name)
    removed = work.named(change.namespace, change.name)
    model: Any = _on_model(work, change, removed[0] if removed else None)
    current = work.manifests.get(key) if model is None else None
    if current is None and removed and change.action == "patch":  # on the model (no manifest kept: its path)
        model = model or patch_model(change, removed[0])
        work.remove(removed)
        work.added.append(model)
        return Applied(change, None, None, (change.name,), (change.name,), model=model)
    obj = _patched(change, current)
    work.remove(removed)
    model = None
    if obj is not None:
        if change.action == "apply":  # a new pod object: Pending and not bound, whatever the file says
            spec = {k: v for k, v in (obj.get("spec") or {}).items() if k != "nodeName"}
            obj = {**obj, "spec": spec, "status": {"phase": "Pending"}}
        model = _parse(change, obj)
        work.added.append(model)
    work.manifests.changed[key] = obj
    added = (change.name,) if obj is not None else ()
    return Applied(change, current, obj, added, tuple(p.name for p in removed), model=model)


def _workload(work: _Work, change: Change) -> Applied:
    namespace = change.namespace or "default"
    key: ManifestKey = (change.kind, namespace, change.name)
    pods = [p for p in owned_pods(_view(work), change.kind, namespace, change.name) if not p.terminated]
    current, note = work.workloads.get(key), None
    pod_spec = None
    if pods:
        manifest = work.manifests.get(("Pod", namespace, pods[0].name))
        pod_spec = (manifest or {}).get("spec")
        if current is None and manifest is not None:
            api = (
                "leaderworkerset.x-k8s.io/v1"
                if change.kind == "LeaderWorkerSet"
                else f"{KINDS[change.kind]}/v1"
            )
            current = base_from_pods(change.kind, api, change.name, namespace, pods, manifest)
            note = f"rebuilt from pod {namespace}/{pods[0].name} and its {len(pods)} replica(s): no {change.kind} was captured"
    obj = _patched(change, current)
    if obj is None:
        return _replace_pods(work, change, current, None, pods, [], note)
    spec = _map(obj.get("spec"))
    count = replica_count(change.kind, spec)
    template = spec.get("template") or _map(spec.get("leaderWorkerTemplate")).get("workerTemplate") or {}
    if not isinstance(template, Mapping) or not isinstance(template.get("spec"), Mapping):
        raise change.error("it has no pod template (spec.template.spec)")
    keep = (
        sorted(pods, key=lambda p: p.node_name is None)[:count] if same_scheduling(pod_spec, template) else []
    )
    start = max((_index(p.name) for p in keep), default=-1) + 1
    made = replica_pods(obj, change.kind, start, count - len(keep), work.now)
    work.workloads[key] = obj
    return _replace_pods(work, change, current, obj, [p for p in pods if p not in keep], made, note)


def _replace_pods(
    work: _Work,
    change: Change,
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
    removed: list[Pod],
    made: list[dict[str, Any]],
    note: str | None,
) -> Applied:
    work.remove(removed)
    for made_pod in made:
        work.added.append(_parse(msgspec.structs.replace(change, kind="Pod"), made_pod))
        meta = made_pod["metadata"]
        work.manifests.changed[("Pod", meta["namespace"], meta["name"])] = made_pod
    for gone in removed:
        work.manifests.changed[("Pod", gone.namespace, gone.name)] = None
    return Applied(
        change,
        before,
        after,
        tuple(p["metadata"]["name"] for p in made),
        tuple(p.name for p in removed),
        note,
    )


def _view(work: _Work) -> ClusterState:
    return dataclasses.replace(work.state, pods=tuple(work.pods), _memo={}, _parsed_probes={})


def _index(name: str) -> int:
    tail = name.rpartition("-")[2]
    return int(tail) if tail.isdigit() else -1
