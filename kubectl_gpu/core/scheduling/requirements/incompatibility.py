"""Why pod requirements cannot be met by a NodePool's: an `UnknownLabel` or a `Conflict`, with the messages
Karpenter prints for them (and its `labelHint` typo suggestion)."""

from __future__ import annotations

import json
from collections.abc import Iterable

import msgspec

from .normalized import NormalizedRequirement

__all__ = [
    "Conflict",
    "Incompatibility",
    "UnknownLabel",
    "label_hint",
]


def _go_quote(text: str) -> str:
    """Close enough to Go's `%q` for label keys (which cannot contain characters where the two differ)."""
    return json.dumps(text, ensure_ascii=False)


class UnknownLabel(msgspec.Struct, frozen=True):
    """The pod needs a custom label the NodePool neither sets nor requires."""

    key: str
    hint: str | None = None

    @property
    def message(self) -> str:
        suffix = f" (typo of {_go_quote(self.hint)}?)" if self.hint else ""
        return f"label {_go_quote(self.key)} does not have known values{suffix}"

    def __str__(self) -> str:
        return self.message


class Conflict(msgspec.Struct, frozen=True):
    """Pod and NodePool both constrain `key` and no value satisfies both."""

    key: str
    pod_requirement: NormalizedRequirement
    pool_requirement: NormalizedRequirement

    @property
    def message(self) -> str:
        """Upstream `badKeyError`: `key k, k In [h100] not in k In [a10g l4]` (each side prints its key)."""
        return f"key {self.key}, {self.pod_requirement.render()} not in {self.pool_requirement.render()}"

    @property
    def summary(self) -> str:
        """Key printed once: `key k, In [h100] not in In [a10g l4]`."""
        pod = self.pod_requirement.render(with_key=False)
        pool = self.pool_requirement.render(with_key=False)
        return f"key {self.key}, {pod} not in {pool}"

    def __str__(self) -> str:
        return self.message


Incompatibility = UnknownLabel | Conflict


def _suffix(key: str) -> str:
    return key.split("/", 1)[1] if "/" in key else key


def label_hint(existing: Iterable[str], key: str, allow_undefined: Iterable[str]) -> str | None:
    """Karpenter HEAD `labelHint`: a well-known key, then an existing key, that contains `key` or ends with
    the part of `key` after its first `/`. (v1.0-era releases also tried an edit-distance < len/5 match;
    not reproduced.) Candidates are tried in sorted order; upstream order is random."""
    suffix = _suffix(key)
    for group in (sorted(allow_undefined), sorted(existing)):
        for candidate in group:
            if key in candidate or candidate.endswith(suffix):
                return candidate
    return None
