"""The machine-readable documents (`-o json`, `-o yaml`): orjson alone, so that a command asked for JSON
imports no console library (rich is ~25 ms of a command's start-up; render/output.py draws the tables)."""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["dump_json", "dump_yaml"]


def _default(value: Any) -> Any:
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    raise TypeError(f"cannot serialise {type(value).__name__}")


def dump_json(data: Any) -> str:
    return orjson.dumps(data, default=_default, option=orjson.OPT_INDENT_2).decode() + "\n"


def dump_yaml(data: Any) -> str:
    plain = orjson.loads(orjson.dumps(data, default=_default))
    import yaml  # ~20 ms to import: only YAML output pays for it

    return yaml.safe_dump(plain, sort_keys=False, allow_unicode=True, default_flow_style=False)
