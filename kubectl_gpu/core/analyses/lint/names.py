"""Instance families, sizes and types a NodePool names that do not exist, with the closest real ones.

Only accelerated names are judged (a category the catalog holds: g, p, gr, inf, trn, ...): the catalog lists
every current accelerated EC2 type (`instance_types.json`), and no CPU types, so a `c7i` says nothing. The
closest names come from `difflib.get_close_matches` (Ratcliff/Obershelp similarity), after the catalogued
names that start with what was written (`g4` -> `g4ad`, `g4dn`)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

import msgspec

from kubectl_gpu.core.analyses.lint.facts import (
    INSTANCE_TYPE_KEYS,
    accel_categories,
    category_of,
    requirement_values,
    suffix_keys,
)
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.k8s.models import NodePool

__all__ = ["UnknownName", "closest", "unknown_names"]

# EC2 size names (the `instance-size` label): nano ... 48xlarge, metal, metal-24xl / metal-48xl.
_SIZE = re.compile(r"^(nano|micro|small|medium|large|xlarge|[1-9][0-9]*xlarge|metal(-[1-9][0-9]*xl)?)$")


class UnknownName(msgspec.Struct, frozen=True):
    what: str  # "instance family" | "instance size" | "instance type"
    key: str
    value: str
    closest: tuple[str, ...]


def closest(value: str, candidates: Iterable[str], n: int = 3) -> tuple[str, ...]:
    """Catalogued names that start with `value`, then the most similar ones, those of its own category
    (the letters before the generation: `g` for `g3`) first."""
    names = sorted(set(candidates))
    prefixed = [c for c in names if c.startswith(value) and c != value]
    similar = difflib.get_close_matches(value, names, n=n + 2, cutoff=0.5)
    own = category_of(value)
    similar.sort(key=lambda c: category_of(c) != own)  # stable: similarity order within each group
    return tuple(dict.fromkeys([*prefixed, *similar]))[:n]


def unknown_names(pool: NodePool, catalog: Catalog) -> list[UnknownName]:
    """Accelerated families, sizes (in a pool that names accelerated families) and types the catalog does
    not know, as written in `In` requirements, each once."""
    cats = accel_categories(catalog)
    families = set(catalog.families())
    out: list[UnknownName] = []
    accel_families = False
    for key in suffix_keys("family"):
        for value in requirement_values(pool, (key,)):
            if category_of(value) not in cats:
                continue
            accel_families = True
            if value not in families:
                out.append(UnknownName("instance family", key, value, closest(value, families)))
    for key in INSTANCE_TYPE_KEYS:
        for value in requirement_values(pool, (key,)):
            if category_of(value) in cats and catalog.by_name(value) is None:
                names = [it.name for it in catalog.instance_types]
                out.append(UnknownName("instance type", key, value, closest(value, names)))
    sizes = {it.size for it in catalog.instance_types}
    for key in suffix_keys("size"):
        for value in requirement_values(pool, (key,)):
            if accel_families and not _SIZE.match(value) and value not in sizes:
                out.append(UnknownName("instance size", key, value, closest(value, sizes)))
    return list({(u.key, u.value): u for u in out}.values())
