"""Typed reads from the parsed data files: every field checked, every error naming the file and row."""

from __future__ import annotations

from typing import Any

from kubectl_gpu.core.catalog.errors import CatalogError

__all__ = ["Reader"]


class Reader:
    """Typed reads from one JSON object; errors name the file and row."""

    __slots__ = ("_d", "_where")

    def __init__(self, data: object, where: str) -> None:
        if not isinstance(data, dict):
            raise CatalogError(f"{where}: expected an object, got {type(data).__name__}")
        self._d: dict[str, Any] = data
        self._where = where

    def _get(self, key: str) -> object:
        try:
            return self._d[key]
        except KeyError:
            raise CatalogError(f"{self._where}: missing field {key!r}") from None

    def _bad(self, key: str, want: str) -> CatalogError:
        return CatalogError(f"{self._where}: field {key!r} should be {want}, got {self._d.get(key)!r}")

    def has(self, key: str) -> bool:
        return key in self._d

    def text(self, key: str) -> str:
        v = self._get(key)
        if not isinstance(v, str):
            raise self._bad(key, "a string")
        return v

    def opt_text(self, key: str) -> str | None:
        return None if self._d.get(key) is None else self.text(key)

    def integer(self, key: str) -> int:
        v = self._get(key)
        if not isinstance(v, int) or isinstance(v, bool):
            raise self._bad(key, "an integer")
        return v

    def opt_integer(self, key: str) -> int | None:
        return None if self._d.get(key) is None else self.integer(key)

    def opt_number(self, key: str) -> float | None:
        v = self._d.get(key)
        if v is None:
            return None
        if not isinstance(v, int | float) or isinstance(v, bool):
            raise self._bad(key, "a number")
        return float(v)

    def flag(self, key: str) -> bool:
        v = self._get(key)
        if not isinstance(v, bool):
            raise self._bad(key, "true or false")
        return v

    def opt_flag(self, key: str) -> bool | None:
        return None if self._d.get(key) is None else self.flag(key)

    def texts(self, key: str) -> tuple[str, ...]:
        v = self._get(key)
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise self._bad(key, "a list of strings")
        return tuple(v)

    def objs(self, key: str) -> list[Reader]:
        v = self._get(key)
        if not isinstance(v, list):
            raise self._bad(key, "a list")
        return [Reader(x, f"{self._where} {key}[{i}]") for i, x in enumerate(v)]

    def obj(self, key: str) -> Reader:
        return Reader(self._get(key), f"{self._where} {key}")

    def opt_obj(self, key: str) -> Reader | None:
        return None if self._d.get(key) is None else self.obj(key)

    def str_map(self, key: str) -> dict[str, str]:
        v = self._get(key)
        if not isinstance(v, dict) or not all(isinstance(x, str) for x in v.values()):
            raise self._bad(key, "an object of strings")
        return dict(v)

    def int_map(self, key: str) -> dict[str, int]:
        v = self._get(key)
        if not isinstance(v, dict) or not all(
            isinstance(x, int) and not isinstance(x, bool) for x in v.values()
        ):
            raise self._bad(key, "an object of integers")
        return dict(v)
