"""Instance families, sizes and types a NodePool names that do not exist, with the closest real ones.

Only accelerated names are judged (a category the catalog holds: g, p, gr, inf, trn, ...): the catalog lists
every current accelerated EC2 type (`instance_types.json`), and no CPU types, so a `c7i` says nothing. The
closest names come from `difflib.get_close_matches` (Ratcliff/Obershelp similarity; `similar.NameIndex`
gives its answer with fewer comparisons), after the catalogued names that start with what was written
(`g4` -> `g4ad`, `g4dn`). The names and the answers are kept per catalog (`Catalog.derived`)."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from kubectl_gpu.core.analyses.lint.facts import (
    INSTANCE_TYPE_KEYS,
    accel_categories,
    category_of,
    requirement_values,
    suffix_keys,
)
from kubectl_gpu.core.analyses.lint.similar import NameIndex
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.k8s.models import NodePool
from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = ["UnknownName", "closest", "unknown_names"]

# EC2 size names (the `instance-size` label): nano ... 48xlarge, metal, metal-24xl / metal-48xl.
_SIZE = lazy_pattern(r"^(nano|micro|small|medium|large|xlarge|[1-9][0-9]*xlarge|metal(-[1-9][0-9]*xl)?)$")


class UnknownName(msgspec.Struct, frozen=True):
    what: str  # "instance family" | "instance size" | "instance type"
    key: str
    value: str
    closest: tuple[str, ...]


def closest(value: str, candidates: Iterable[str] | NameIndex, n: int = 3) -> tuple[str, ...]:
    """Catalogued names that start with `value`, then the most similar ones, those of its own category
    (the letters before the generation: `g` for `g3`) first."""
    index = candidates if isinstance(candidates, NameIndex) else NameIndex(candidates)
    prefixed = index.starting_with(value)
    similar = index.close_matches(value, n=n + 2, cutoff=0.5)
    own = category_of(value)
    similar.sort(key=lambda c: category_of(c) != own)  # stable: similarity order within each group
    return tuple(dict.fromkeys([*prefixed, *similar]))[:n]


class _Names:
    """A catalog's family, type and size names, sorted once, and the closest names already found for a
    value: a NodePool fleet repeats the same unknown names pool after pool (issue 38: 300 pools spent
    ~71 % of `diagnose` in `difflib`, once per value per pool)."""

    __slots__ = ("answers", "categories", "families", "known_families", "known_sizes", "sizes", "types")

    def __init__(self, catalog: Catalog) -> None:
        self.categories = accel_categories(catalog)
        self.families = NameIndex(catalog.families())
        self.types = NameIndex(it.name for it in catalog.instance_types)
        self.sizes = NameIndex(it.size for it in catalog.instance_types)
        self.known_families = frozenset(self.families.names)
        self.known_sizes = frozenset(self.sizes.names)
        self.answers: dict[tuple[str, str], tuple[str, ...]] = {}

    def closest(self, what: str, value: str) -> tuple[str, ...]:
        found = self.answers.get((what, value))
        if found is None:
            names = {"family": self.families, "type": self.types, "size": self.sizes}[what]
            found = self.answers[(what, value)] = closest(value, names)
        return found


def _names(catalog: Catalog) -> _Names:
    return catalog.derived("lint.names", _Names)


def unknown_names(pool: NodePool, catalog: Catalog) -> list[UnknownName]:
    """Accelerated families, sizes (in a pool that names accelerated families) and types the catalog does
    not know, as written in `In` requirements, each once."""
    index = _names(catalog)
    cats = index.categories
    out: list[UnknownName] = []
    accel_families = False
    for key in suffix_keys("family"):
        for value in requirement_values(pool, (key,)):
            if category_of(value) not in cats:
                continue
            accel_families = True
            if value not in index.known_families:
                out.append(UnknownName("instance family", key, value, index.closest("family", value)))
    for key in INSTANCE_TYPE_KEYS:
        for value in requirement_values(pool, (key,)):
            if category_of(value) in cats and catalog.by_name(value) is None:
                out.append(UnknownName("instance type", key, value, index.closest("type", value)))
    for key in suffix_keys("size"):
        for value in requirement_values(pool, (key,)):
            if accel_families and not _SIZE.match(value) and value not in index.known_sizes:
                out.append(UnknownName("instance size", key, value, index.closest("size", value)))
    return list({(u.key, u.value): u for u in out}.values())
