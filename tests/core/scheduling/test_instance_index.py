"""`InstanceIndex.admitted`: the types a NodePool's requirements admit, read from `passing`'s bit masks, are
exactly those a scan of every type finds (`first_mismatch`); so are the masks themselves, and
`mismatch_counts` counts what the scan fails each type on."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.scheduling.instances import CAPACITY_TYPE, IndexedType, InstanceIndex
from kubectl_gpu.core.scheduling.requirements import Requirements

_OPERATORS = ("In", "In", "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def _requirement(rng: random.Random, index: InstanceIndex) -> dict[str, Any]:
    """A requirement on a label the types have (their values, a typo, a value no type has), on one whose
    value the catalog does not know for some type, on the capacity type, or on a key outside the index."""
    entry = rng.choice(index.types)
    keys = sorted(entry.labels) + sorted(entry.unknown) + [CAPACITY_TYPE, "example.com/team"]
    key = rng.choice(keys)
    operator = rng.choice(_OPERATORS)
    if operator in ("Exists", "DoesNotExist"):
        return {"key": key, "operator": operator}
    if operator in ("Gt", "Lt"):
        return {"key": key, "operator": operator, "values": [str(rng.randint(0, 64))]}
    seen = sorted({e.labels[key] for e in index.types if key in e.labels}) or ["spot", "on-demand"]
    values = rng.sample(seen, min(len(seen), rng.randint(1, 60)))
    values += rng.choice([[], [values[0] + "x"], ["no-such-value"]])
    return {"key": key, "operator": operator, "values": values}


def _sets(index: InstanceIndex, seed: int) -> Iterator[tuple[Requirements, tuple[IndexedType, ...]]]:
    """400 random requirement sets of 1-6 requirements, each with the types a scan of every type admits."""
    rng = random.Random(seed)
    for _ in range(400):
        reqs = Requirements.of(*(_requirement(rng, index) for _ in range(rng.randint(1, 6))))
        yield reqs, tuple(e for e in index.types if index.first_mismatch(reqs, e) is None)


@pytest.mark.parametrize("provider", ["auto", "karpenter"])
def test_admitted_is_the_scan_of_every_type(provider: Any) -> None:
    index = InstanceIndex(load_catalog(), provider)
    for reqs, expected in _sets(index, 38):
        assert index.admitted(reqs) == expected, reqs.render()
        assert index.admitted(reqs) is index.admitted(reqs)  # once per distinct set


def test_a_type_whose_value_is_unknown_is_admitted() -> None:
    index = InstanceIndex(load_catalog(), "auto")
    unknown = next((e for e in index.types if e.unknown), None)
    if unknown is None:
        pytest.skip("the catalog knows every label of every type")
    key = sorted(unknown.unknown)[0]
    reqs = Requirements.of({"key": key, "operator": "In", "values": ["a-value-no-type-has"]})
    assert unknown in index.admitted(reqs)


@pytest.mark.parametrize("provider", ["auto", "karpenter"])
def test_masks_and_counts_are_the_scan_of_every_type(provider: Any) -> None:
    index = InstanceIndex(load_catalog(), provider)
    counted = 0
    for reqs, expected in _sets(index, 40):
        assert index.of_mask(index.passing(reqs)) == expected, reqs.render()
        assert index.mask_of(expected) == index.passing(reqs)
        failing: dict[str, int] = {}
        for entry in index.types:
            key = index.first_mismatch(reqs, entry)
            if key is not None:
                failing[key] = failing.get(key, 0) + 1
        assert index.mismatch_counts(reqs) == failing, reqs.render()
        counted += len(failing) > 1
    assert counted > 20  # sets whose types fail on more than one key: the counts' order is exercised


def test_the_analyses_of_a_run_share_one_index_per_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pending and lint read the catalog's index for a pool's provider (`InstanceIndex.of`): built once, on
    first use, and not for a provider no NodePool of the cluster uses."""
    from datetime import UTC, datetime
    from pathlib import Path

    from kubectl_gpu.core.analyses import lint, pending
    from kubectl_gpu.core.catalog import Catalog
    from kubectl_gpu.core.catalog.loader import read_data_files
    from kubectl_gpu.kube.snapshot import load_snapshot

    built: list[str] = []
    original = InstanceIndex.__init__

    def counting(self: InstanceIndex, catalog: Catalog, provider: Any) -> None:
        built.append(provider)
        original(self, catalog, provider)

    monkeypatch.setattr(InstanceIndex, "__init__", counting)
    data = read_data_files()
    catalog = Catalog.from_data(instance_types=data["instance_types.json"], labels=data["labels.json"])
    state = load_snapshot([Path(__file__).parents[3] / "examples" / "automode-gpu-demo.json"])
    assert state.nodepools and all(p.node_class_ref and p.node_class_ref.group == "eks.amazonaws.com" for p in state.nodepools)
    now = datetime(2026, 12, 6, tzinfo=UTC)
    pending.analyse(state, catalog, now)
    lint.analyse(state, catalog, now)
    assert built == ["auto"]
    assert InstanceIndex.of(catalog, "auto") is InstanceIndex.of(catalog, "auto")
    assert InstanceIndex.of(catalog, "karpenter").provider == "karpenter"
    assert built == ["auto", "karpenter"]
