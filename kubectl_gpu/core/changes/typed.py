"""The typed path: a patch made on an object's parsed model, for a state whose source kept no manifests
(`kubectl gpu pending` and `explain` read none: the fix verifier makes its changes here).

Only the fields the model holds as they were written can be changed this way, each read by the parser every
source uses: a NodePool's `spec.limits` and `spec.template.spec.requirements` (merge or json patch
semantics: a map is merged, a list replaced, null removes), a Pod's `spec.tolerations` (replaced, as the
strategic merge replaces a list without a merge key), `spec.nodeSelector` (merged, null removes a key) and
`spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution`. Any other field is a
`ChangeError`: the change needs the object as read (a source that keeps manifests).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from kubectl_gpu.core.changes.model import Change
from kubectl_gpu.core.changes.patches import json_merge
from kubectl_gpu.core.k8s.models import NodePool, Pod
from kubectl_gpu.core.k8s.parse.common import ModelError, resources, str_map, tolerations
from kubectl_gpu.core.k8s.parse.karpenter import field_paths
from kubectl_gpu.core.scheduling.affinity import NodeAffinity

__all__ = ["patch_model"]

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_POOL_FIELDS = ("spec.limits", "spec.template.spec.requirements")
_POD_FIELDS = ("spec.tolerations", "spec.nodeSelector", f"spec.affinity.nodeAffinity.{_REQUIRED}")


def _leaves(body: Any, known: tuple[str, ...], path: str = "") -> dict[str, Any]:
    """The patch's values at the known field paths; any other field the patch sets is named in the error."""
    if path in known:
        return {path: body}
    if not isinstance(body, Mapping) or not any(k.startswith(f"{path}.") or not path for k in known):
        raise ValueError(path or "the patch")
    out: dict[str, Any] = {}
    for key, value in body.items():
        out.update(_leaves(value, known, f"{path}.{key}" if path else str(key)))
    return out


def patch_model(change: Change, model: NodePool | Pod) -> NodePool | Pod:
    """The model as the patch leaves it. Raises the change's ChangeError for a patch this path cannot make."""
    known = _POOL_FIELDS if isinstance(model, NodePool) else _POD_FIELDS
    if change.patch_type == "json":
        raise change.error(
            "the source kept no copy of it to apply a json patch to", "use a merge or strategic patch"
        )
    try:
        leaves = _leaves(change.body, known)
    except ValueError as exc:
        raise change.error(
            f"{exc}: the source kept no copy of it to change (only {', '.join(known)} can be)",
            "read the cluster with its manifests",
        ) from None
    try:
        if isinstance(model, NodePool):
            return _pool(model, leaves)
        return _pod(model, leaves)
    except (ModelError, ValueError, TypeError) as exc:
        raise change.error(f"the object does not parse: {exc}") from None


def _pool(pool: NodePool, leaves: dict[str, Any]) -> NodePool:
    fields: dict[str, Any] = {}
    written: dict[str, Any] = {}  # each patched field as the patched object holds it (None: removed)
    if "spec.limits" in leaves:
        written["spec.limits"] = json_merge(
            {k: str(v) for k, v in pool.limits.items()}, leaves["spec.limits"]
        )
        fields["limits"] = resources(written["spec.limits"] or {}, "spec.limits")
    if "spec.template.spec.requirements" in leaves:
        value = written["spec.template.spec.requirements"] = leaves["spec.template.spec.requirements"]
        where = "spec.template.spec.requirements"
        value = value or []
        if not isinstance(value, list) or not all(isinstance(r, dict) and "key" in r for r in value):
            raise ModelError(f"{where} entries need a key")
        fields["requirements"] = tuple(value)
    return msgspec.structs.replace(pool, **fields, field_paths=_paths_after(pool.field_paths, written))


def _paths_after(paths: tuple[str, ...], written: dict[str, Any]) -> tuple[str, ...]:
    """The pool's field paths (lint's unknown-field check reads them) as the parser lists them from the
    patched object (`field_paths`): the paths under each patched field go, and its new value's come, unless
    the patch removed it (None)."""
    fields = tuple(f".{name}" for name in written)
    kept = [p for p in paths if not any(p == f or p.startswith((f"{f}.", f"{f}[")) for f in fields)]
    patched: dict[str, Any] = {}
    for name, value in written.items():
        if value is None:
            continue
        *parents, last = name.split(".")
        node = patched
        for parent in parents:
            node = node.setdefault(parent, {})
        node[last] = value
    return tuple(sorted({*kept, *field_paths(patched)}))


def _pod(pod: Pod, leaves: dict[str, Any]) -> Pod:
    fields: dict[str, Any] = {}
    if "spec.tolerations" in leaves:
        fields["tolerations"] = tolerations(leaves["spec.tolerations"] or [], "spec.tolerations")
    if "spec.nodeSelector" in leaves:
        merged = json_merge(dict(pod.node_selector), leaves["spec.nodeSelector"]) or {}
        fields["node_selector"] = str_map(merged, "spec.nodeSelector")
    key = f"spec.affinity.nodeAffinity.{_REQUIRED}"
    if key in leaves:
        value = leaves[key]
        required = (
            NodeAffinity.from_spec({"affinity": {"nodeAffinity": {_REQUIRED: value}}}) if value else None
        )
        fields["node_affinity"] = msgspec.structs.replace(
            pod.node_affinity,
            has_required=required is not None and required.has_required,
            required_terms=required.required_terms if required else (),
            required_error=required.required_error if required else None,
        )
    return msgspec.structs.replace(pod, **fields)
