"""The objects as read, for a YAML view: each kept whole, or read whole only when it is first asked for."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

__all__ = ["ManifestKey", "Manifests"]

#: (kind, namespace, name), the namespace as the model has it.
ManifestKey = tuple[str, str | None, str]


class _Later:
    __slots__ = ("read",)

    def __init__(self, read: Callable[[], Mapping[str, Any]]) -> None:
        self.read = read


class Manifests(Mapping[ManifestKey, Mapping[str, Any]]):
    """By key, in the order the objects were read. An entry kept `later` is read on first use and then
    held: a large List is decoded to the parts the parsers read (`core/k8s/parse/fields.py`), and its
    objects whole only when a front end shows one (a person looks at a few of twenty thousand pods)."""

    def __init__(self) -> None:
        self._items: dict[ManifestKey, Mapping[str, Any] | _Later] = {}

    def keep(self, key: ManifestKey, obj: Mapping[str, Any]) -> None:
        self._items[key] = obj

    def keep_later(self, key: ManifestKey, read: Callable[[], Mapping[str, Any]]) -> None:
        self._items[key] = _Later(read)

    def __getitem__(self, key: ManifestKey) -> Mapping[str, Any]:
        found = self._items[key]
        if isinstance(found, _Later):
            found = self._items[key] = found.read()
        return found

    def __iter__(self) -> Iterator[ManifestKey]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)
