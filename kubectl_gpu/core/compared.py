"""What a dataclass's `field(compare=False)` and `field(hash=False)` did, for a msgspec Struct.

A Struct compares and hashes every field. A model with a field that must not count (a pod's lazily read
details, a blocker's free-form detail) or cannot be hashed (a mapping) gets its equality or its hash from
these class decorators instead, over its other fields in order, as the dataclass it replaced did.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["compared_without", "hashed_without"]

S = TypeVar("S", bound=type)


def _kept(cls: type, left_out: tuple[str, ...]) -> list[str]:
    """The Struct's field names but `left_out`, in order (a name it does not have is a TypeError)."""
    fields: tuple[str, ...] = getattr(cls, "__struct_fields__", ())
    unknown = set(left_out) - set(fields)
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {sorted(unknown)}")
    return [name for name in fields if name not in left_out]


def _key(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    if len(names) == 1:
        return lambda obj: (getattr(obj, names[0]),)
    return operator.attrgetter(*names)


def compared_without(*left_out: str, shown: bool = True) -> Callable[[S], S]:
    """Equality (`==`, `!=`) and hash over every field but `left_out`, for a Struct declared `eq=False`;
    `shown=False`: its repr leaves them out too."""

    def give(cls: S) -> S:
        names = _kept(cls, left_out)
        key = _key(names)

        def __eq__(self: Any, other: object) -> bool:
            if other.__class__ is not cls:
                return NotImplemented
            return bool(key(self) == key(other))

        def __ne__(self: Any, other: object) -> bool:
            equal = __eq__(self, other)
            return equal if equal is NotImplemented else not equal

        def __hash__(self: Any) -> int:
            return hash(key(self))

        def __repr__(self: Any) -> str:
            return f"{cls.__name__}({', '.join(f'{n}={v!r}' for n, v in zip(names, key(self), strict=True))})"

        methods: dict[str, Callable[..., Any]] = {"__eq__": __eq__, "__ne__": __ne__, "__hash__": __hash__}
        if not shown:
            methods["__repr__"] = __repr__
        return _given(cls, methods)

    return give


def hashed_without(*left_out: str) -> Callable[[S], S]:
    """A hash over every field but `left_out` (still compared: a mapping, which has no hash)."""

    def give(cls: S) -> S:
        key = _key(_kept(cls, left_out))

        def __hash__(self: Any) -> int:
            return hash(key(self))

        return _given(cls, {"__hash__": __hash__})

    return give


def _given(cls: S, methods: dict[str, Callable[..., Any]]) -> S:
    """`cls` with `methods` set on it (the type's slots follow: `==`, `hash()`)."""
    for name, method in methods.items():
        setattr(cls, name, method)
    return cls
