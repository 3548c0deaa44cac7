"""Safe YAML for our inputs (snapshots, manifests, price and config files): a mapping names each key once.

PyYAML keeps the last of two equal keys without a word; kubectl (sigs.k8s.io/yaml) refuses such a document
("mapping key already defined"), and a silently dropped `nodeName` or price misleads. Keys that a merge
(`<<: *base`) brings in may be overridden: that is what merges are for."""

from __future__ import annotations

from typing import Any

import yaml

__all__ = ["DUPLICATE_HINT", "DuplicateKeyError", "UniqueKeyLoader", "safe_load"]

_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE = "tag:yaml.org,2002:merge"
_STR = "tag:yaml.org,2002:str"
DUPLICATE_HINT = "kubectl refuses this too; keep one of them"


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A key named twice in one mapping; `detail` says which and where (lines count from 1)."""

    def __init__(self, key: object, line: int, first_line: int, mark: Any) -> None:
        self.detail = f"duplicate key {key!r} at line {line} (first at line {first_line})"
        super().__init__(problem=self.detail, problem_mark=mark)


class UniqueKeyLoader(_Base):  # type: ignore[misc]
    """yaml.CSafeLoader (SafeLoader without libyaml) that refuses a mapping naming a key twice."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            self._check_unique(node)
        result: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return result

    def _check_unique(self, node: yaml.MappingNode) -> None:
        seen: dict[object, int] = {}  # key -> its line, from 0
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE:
                continue  # a merge, or a complex key (PyYAML refuses the unhashable ones itself)
            key = key_node.value if key_node.tag == _STR else self.construct_object(key_node)
            line = key_node.start_mark.line
            try:
                first = seen.get(key)
            except TypeError:
                continue
            if first is not None:
                raise DuplicateKeyError(key, line + 1, first + 1, key_node.start_mark)
            seen[key] = line


def safe_load(text: str | bytes) -> Any:
    """One document, as `yaml.safe_load` reads it but with keys unique; YAMLError on bad YAML."""
    return yaml.load(text, Loader=UniqueKeyLoader)
