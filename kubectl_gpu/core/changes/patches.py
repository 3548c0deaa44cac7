"""kubectl's three patch types, on plain JSON values: `strategic` (Kubernetes' strategic merge patch, for the
built-in kinds), `merge` (RFC 7386 JSON merge patch) and `json` (RFC 6902 JSON patch, the `jsonpatch` library).

Strategic merge merges a list by its `patchMergeKey` where the Go type declares one and replaces it otherwise
(k8s.io/api core/v1 types.go: `Containers []Container patchStrategy:"merge" patchMergeKey:"name"`,
`Env ... patchMergeKey:"name"`, `Ports []ContainerPort patchMergeKey:"containerPort"`, `VolumeMounts ...
patchMergeKey:"mountPath"`, `Volumes ... patchMergeKey:"name"`, `TopologySpreadConstraints ...
patchMergeKey:"topologyKey"`; `Tolerations`, `NodeSelectorTerms` and `Args` carry no strategy: replaced).
`$patch: replace` and `$patch: delete` are honoured on maps and list items; `null` deletes a key.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["MERGE_KEYS", "PatchFailed", "json_merge", "json_patch", "strategic_merge"]

#: List field -> its patchMergeKey, for the fields of the kinds `simulate` patches strategically (Pod and the
#: pod templates of Deployment, StatefulSet and Job: k8s.io/api core/v1, apps/v1, batch/v1 types.go).
MERGE_KEYS: dict[str, str] = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "env": "name",
    "ports": "containerPort",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "volumes": "name",
    "imagePullSecrets": "name",
    "hostAliases": "ip",
    "topologySpreadConstraints": "topologyKey",
    "resourceClaims": "name",
    "ownerReferences": "uid",
}
_DIRECTIVE = "$patch"


class PatchFailed(ValueError):
    """The patch does not apply to the object (a path that is not there, a failed `test`, a wrong shape)."""


def json_merge(target: Any, patch: Any) -> Any:
    """RFC 7386: a map merges key by key (null removes the key); anything else replaces the target."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = json_merge(out.get(key), value)
    return out


def json_patch(target: Any, patch: Any) -> Any:
    """RFC 6902 operations (add, remove, replace, move, copy, test) applied to a copy of `target`."""
    import jsonpatch

    if not isinstance(patch, list):
        raise PatchFailed("a json patch is a list of operations ([{op, path, value}, ...])")
    try:
        return jsonpatch.apply_patch(target, patch, in_place=False)
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as exc:
        raise PatchFailed(str(exc)) from None
    except (TypeError, KeyError, IndexError) as exc:  # an operation without its fields
        raise PatchFailed(f"malformed operation: {exc}") from None


def strategic_merge(target: Any, patch: Any) -> Any:
    """The strategic merge of `patch` into a copy of `target` (see the module's doc for the keys)."""
    if not isinstance(patch, dict):
        raise PatchFailed("a strategic merge patch is a map")
    return _merge_map(target if isinstance(target, dict) else {}, patch)


def _merge_map(target: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    directive = patch.get(_DIRECTIVE)
    if directive == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != _DIRECTIVE}
    if directive not in (None, "merge"):
        raise PatchFailed(f"unknown $patch directive {directive!r} on a map")
    out = dict(target)
    for key, value in patch.items():
        if key.startswith("$"):  # $patch, $retainKeys, $setElementOrder/...: ordering hints
            continue
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict):
            if value.get(_DIRECTIVE) == "delete":
                out.pop(key, None)
            else:
                current = out.get(key)
                out[key] = _merge_map(current if isinstance(current, dict) else {}, value)
        elif isinstance(value, list) and key in MERGE_KEYS and isinstance(out.get(key), list):
            out[key] = _merge_list(out[key], value, MERGE_KEYS[key], key)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _merge_list(target: list[Any], patch: list[Any], merge_key: str, field: str) -> list[Any]:
    """Items of `patch` merged into the item of `target` with the same merge key, or appended."""
    if any(isinstance(item, dict) and item.get(_DIRECTIVE) == "replace" for item in patch):
        return [copy.deepcopy(i) for i in patch if not (isinstance(i, dict) and _DIRECTIVE in i)]
    out = list(target)
    for item in patch:
        if not isinstance(item, dict) or merge_key not in item:
            raise PatchFailed(f"{field}: each item must name its merge key {merge_key!r}")
        at = next(
            (
                i
                for i, cur in enumerate(out)
                if isinstance(cur, dict) and cur.get(merge_key) == item[merge_key]
            ),
            None,
        )
        if item.get(_DIRECTIVE) == "delete":
            if at is not None:
                out.pop(at)
        elif at is None:
            out.append({k: copy.deepcopy(v) for k, v in item.items() if k != _DIRECTIVE})
        else:
            out[at] = _merge_map(out[at], item)
    return out
