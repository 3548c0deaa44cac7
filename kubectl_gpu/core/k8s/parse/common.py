"""Field readers every kind shares: typed access with the field path in the error, quantities, metadata,
conditions, taints and tolerations."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.k8s.models import Condition, Meta, NodeClassRef, Raw, Resources
from kubectl_gpu.core.k8s.quantity import QuantityError, parse_quantity
from kubectl_gpu.core.k8s.times import TimeError, parse_optional_time, parse_time
from kubectl_gpu.core.scheduling.taints import Taint, Toleration

__all__ = [
    "ModelError",
    "as_dict",
    "as_list",
    "conditions",
    "meta",
    "node_class_ref",
    "opt_int",
    "opt_str",
    "opt_time",
    "resources",
    "str_map",
    "taints",
    "time_text",
    "tolerations",
]


class ModelError(InvalidInput):
    """A Kubernetes object of a kind we know, with a field we cannot read."""


# Timestamps outside this range are garbage (a hand-edited file); read them as absent, like malformed ones,
# since the analyses add expiry periods to them and datetime ends at year 9999.
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(3000, 1, 1, tzinfo=UTC)


def opt_time(value: object) -> datetime | None:
    try:
        parsed = parse_optional_time(value)
    except OverflowError:  # an offset that pushes it past year 9999
        return None
    return parsed if parsed is not None and EARLIEST <= parsed < LATEST else None


def time_text(value: object) -> str | None:
    """A timestamp kept as text (parsed on use): dropped, like `opt_time`, when out of range."""
    text = opt_str(value)
    if text is None:
        return None
    try:
        parsed = parse_time(text)
    except TimeError:  # malformed: the reader treats it as absent
        return text
    except OverflowError:
        return None
    return text if EARLIEST <= parsed < LATEST else None


def as_dict(value: object, where: str) -> Raw:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ModelError(f"{where} must be an object, got {type(value).__name__}")
    return value


def as_list(value: object, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ModelError(f"{where} must be a list, got {type(value).__name__}")
    return value


def str_map(value: object, where: str) -> dict[str, str]:
    mapping = as_dict(value, where)
    for key, item in mapping.items():
        if not isinstance(item, str):
            raise ModelError(f"{where}.{key} must be a string")
    return mapping


def opt_str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def opt_int(value: object, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ModelError(f"{where} must be an integer")
    return value


# The API server keeps quantities in an int64 of their canonical unit and refuses negative requests,
# capacities and limits; beyond these bounds a value is a hand-edited file, and JSON output and pricing
# arithmetic (28 significant digits) would fail on it.
_QUANTITY_MAX = Decimal(2**63 - 1)


def resources(value: object, where: str) -> Resources:
    """A ResourceList ({"cpu": "500m", "nvidia.com/gpu": "1"}) as exact Decimals."""
    mapping = as_dict(value, where)
    out: Resources = {}
    for name, quantity in mapping.items():
        try:
            parsed = parse_quantity(quantity)
            in_range = parsed.is_finite() and 0 <= parsed <= _QUANTITY_MAX
        except QuantityError as exc:
            raise ModelError(f"{where}.{name}: {exc}") from None
        except (TypeError, ArithmeticError):  # unhashable, or NaN/inf from YAML's .nan/.inf
            raise ModelError(f"{where}.{name}: not a quantity: {quantity!r}") from None
        if not in_range:
            raise ModelError(f"{where}.{name}: quantity out of range: {quantity!r:.40}")
        out[name] = parsed
    return out


def meta(obj: Raw, kind: str, *, namespaced: bool = False) -> Meta:
    md = as_dict(obj.get("metadata"), f"{kind}.metadata")
    name = md.get("name")
    if name is not None and not isinstance(name, str):
        raise ModelError(f"{kind} metadata.name must be a string, got {type(name).__name__}: {name!r:.40}")
    if not name:
        raise ModelError(f"{kind} without metadata.name")
    owner_kind = owner_name = None
    owners = md.get("ownerReferences")
    if isinstance(owners, list) and owners and isinstance(owners[0], dict):
        owner_kind = opt_str(owners[0].get("kind"))
        owner_name = opt_str(owners[0].get("name"))
    namespace = opt_str(md.get("namespace"))
    return Meta(
        name=name,
        namespace=namespace if namespace or not namespaced else "default",
        uid=opt_str(md.get("uid")),
        labels=str_map(md.get("labels"), f"{kind} {name} labels"),
        annotations=str_map(md.get("annotations"), f"{kind} {name} annotations"),
        created=opt_time(md.get("creationTimestamp")),
        owner_kind=owner_kind,
        owner_name=owner_name,
        deleting=bool(md.get("deletionTimestamp")),
    )


def conditions(value: object, where: str) -> tuple[Condition, ...]:
    out = []
    for item in as_list(value, where):
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            continue
        out.append(
            Condition(
                type=item["type"],
                status=str(item.get("status", "Unknown")),
                reason=opt_str(item.get("reason")),
                message=opt_str(item.get("message")),
                last_transition_text=time_text(item.get("lastTransitionTime")),
            )
        )
    return tuple(out)


def taints(value: object, where: str) -> tuple[Taint, ...]:
    out = []
    for item in as_list(value, where):
        if not isinstance(item, dict):
            raise ModelError(f"{where} entries must be objects")
        try:
            out.append(Taint.from_dict(item))
        except (ValueError, TypeError, KeyError) as exc:
            raise ModelError(f"{where}: {exc}") from None
    return tuple(out)


_TOLERATIONS: dict[tuple[tuple[str, Any], ...], Toleration] = {}


def tolerations(value: object, where: str) -> tuple[Toleration, ...]:
    """Tolerations, interned: nearly every pod carries the same two defaults (not-ready, unreachable)."""
    out = []
    for item in as_list(value, where):
        if not isinstance(item, dict):
            raise ModelError(f"{where} entries must be objects")
        try:
            key = tuple(sorted(item.items()))
            found = _TOLERATIONS.get(key)
        except TypeError:  # unhashable values: parse it, it will be rejected or kept as is
            key, found = None, None
        if found is None:
            try:
                found = Toleration.from_dict(item)
            except (ValueError, TypeError, KeyError) as exc:
                raise ModelError(f"{where}: {exc}") from None
            if key is not None and len(_TOLERATIONS) < 4096:
                _TOLERATIONS[key] = found
        out.append(found)
    return tuple(out)


def node_class_ref(value: object) -> NodeClassRef | None:
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    return NodeClassRef(
        group=str(value.get("group", "")), kind=str(value.get("kind", "")), name=value["name"]
    )
