"""The karpenter.sh/v1 NodePool CRD schema as field paths (`kubectl_gpu/data/karpenter_schema.json`, built by
`scripts/build_catalogs.py` from `karpenter_crd_fields.json`): which fields exist, and where a misplaced one
belongs."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

import msgspec

from kubectl_gpu.core.catalog.errors import CatalogError
from kubectl_gpu.core.catalog.provenance import Provenance
from kubectl_gpu.core.data_files import data_file

__all__ = ["CrdSchema", "FieldProblem", "load_nodepool_schema"]

_FILE = "karpenter_schema.json"


class FieldProblem(msgspec.Struct, frozen=True):
    """A field the schema does not have: `path` as written (`.spec.disruption.expireAfter`), and where a
    field of that name does exist (`.spec.template.spec.expireAfter`), if anywhere."""

    path: str
    belongs_at: tuple[str, ...]


class CrdSchema:
    """Field paths of one CRD: `.spec.limits{*}` marks a map (any key), `[]` a list item."""

    def __init__(self, paths: Iterable[str], provenance: Provenance | None = None) -> None:
        self.paths = frozenset(paths)
        self.maps = frozenset(p[: -len("{*}")] for p in self.paths if p.endswith("{*}"))
        self.provenance = provenance
        by_leaf: dict[str, list[str]] = {}
        for path in sorted(self.paths):
            leaf = path.rsplit(".", 1)[-1]
            by_leaf.setdefault(leaf, []).append(path)
        self._by_leaf = by_leaf

    @classmethod
    def from_data(cls, data: Mapping[str, Any], name: str = _FILE) -> CrdSchema:
        rows = data.get("nodepool_fields")
        if not isinstance(rows, list) or not all(isinstance(r, dict) and "path" in r for r in rows):
            raise CatalogError(f"{name}: nodepool_fields must be a list of {{path, type}}")
        return cls((str(r["path"]) for r in rows), Provenance.from_data(name, data))

    def _inside_map(self, path: str) -> bool:
        return any(path.startswith(f"{m}.") or path == m for m in self.maps)

    def problems(self, paths: Iterable[str]) -> list[FieldProblem]:
        """The paths the schema does not know, outermost only (nothing under an unknown field is listed,
        nor anything under a map such as `.spec.limits` or `.spec.template.metadata.labels`)."""
        out: list[FieldProblem] = []
        unknown: list[str] = []
        for path in sorted(paths):
            if path in self.paths or self._inside_map(path.rsplit(".", 1)[0]) or self._inside_map(path):
                continue
            if any(path.startswith(f"{u}.") or path.startswith(f"{u}[]") for u in unknown):
                continue
            unknown.append(path)
            out.append(FieldProblem(path, self._belongs_at(path)))
        return out

    def _belongs_at(self, path: str) -> tuple[str, ...]:
        """Where a field of this name exists; else a sibling whose name is close (a typo: `minvalues`)."""
        parent, _, leaf = path.rpartition(".")
        exact = tuple(p for p in self._by_leaf.get(leaf, ()) if p != path)
        if exact:
            return exact
        siblings = {
            p.rpartition(".")[2]: p
            for p in self.paths
            if p.rpartition(".")[0] == parent and not p.endswith(("[]", "{*}"))
        }
        lowered = {k.lower(): v for k, v in siblings.items()}
        if leaf.lower() in lowered:
            return (lowered[leaf.lower()],)
        return tuple(siblings[m] for m in difflib.get_close_matches(leaf, sorted(siblings), n=2, cutoff=0.75))


@cache
def load_nodepool_schema() -> CrdSchema:
    """The packaged NodePool schema, loaded once per process."""
    data = json.loads(data_file(_FILE))
    if not isinstance(data, dict):
        raise CatalogError(f"{_FILE}: top level is not an object")
    return CrdSchema.from_data(data)
