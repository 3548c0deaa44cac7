"""Issue 38: lint's "did you mean" search, indexed and kept per catalog, gives the answers it gave before."""

from __future__ import annotations

import difflib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_gpu.core.analyses.lint.facts import accel_categories, category_of, known_families
from kubectl_gpu.core.analyses.lint.names import _Names, closest, unknown_names
from kubectl_gpu.core.analyses.lint.similar import NameIndex, ratio
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.k8s.parse import parse_nodepool

CATALOG = load_catalog()
TYPES = sorted({it.name for it in CATALOG.instance_types})
ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789.-"


def _before(value: str, candidates: list[str], n: int = 3) -> tuple[str, ...]:
    """`closest` as it was before the index (difflib over the sorted names, every call)."""
    names = sorted(set(candidates))
    prefixed = [c for c in names if c.startswith(value) and c != value]
    similar = difflib.get_close_matches(value, names, n=n + 2, cutoff=0.5)
    own = category_of(value)
    similar.sort(key=lambda c: category_of(c) != own)
    return tuple(dict.fromkeys([*prefixed, *similar]))[:n]


def _words(seed: int, count: int) -> list[str]:
    """Names as people mistype them: truncated, one letter changed, or made up."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        word = rng.choice(TYPES)
        kind = rng.randrange(4)
        if kind == 0:
            word = word[: rng.randrange(1, len(word))]
        elif kind == 1:
            i = rng.randrange(len(word))
            word = word[:i] + rng.choice(ALPHABET) + word[i + 1 :]
        elif kind == 2:
            word = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 14)))
        out.append(word)
    return out


@pytest.mark.parametrize(("n", "cutoff"), [(1, 0.5), (3, 0.5), (5, 0.5), (8, 0.7), (3, 0.0)])
def test_the_index_answers_what_difflib_answers(n: int, cutoff: float) -> None:
    index = NameIndex(TYPES)
    for word in _words(n, 400):
        assert index.close_matches(word, n=n, cutoff=cutoff) == difflib.get_close_matches(
            word, TYPES, n=n, cutoff=cutoff
        ), word


def test_ties_and_edge_words_match_difflib() -> None:
    names = ["ab", "ba", "abc", "acb", "bca", "cab", "", "a"]
    index = NameIndex(names)
    for word in ["", "a", "ab", "abc", "cba", "zz", "abcabc"]:
        for n in (1, 2, 4):
            assert index.close_matches(word, n=n, cutoff=0.3) == difflib.get_close_matches(
                word, sorted(set(names)), n=n, cutoff=0.3
            )


def test_names_of_256_characters_and_more_match_difflib() -> None:
    """A name's character counts outgrow one byte from 256 characters on: the packed columns widen."""
    rng = random.Random(11)
    names = ["".join(rng.choice("abc") for _ in range(rng.choice((5, 255, 256, 300)))) for _ in range(12)]
    index = NameIndex(names)
    for word in [*names[:3], "abc" * 90, "ab", names[4][:100] + "zz"]:
        assert index.close_matches(word, n=3, cutoff=0.5) == difflib.get_close_matches(
            word, sorted(set(names)), n=3, cutoff=0.5
        )


def test_closest_gives_the_answers_it_gave_before() -> None:
    families = list(CATALOG.families())
    sizes = [it.size for it in CATALOG.instance_types]
    for word in _words(11, 300):
        assert closest(word, TYPES) == _before(word, TYPES)
        assert closest(word, NameIndex(TYPES)) == _before(word, TYPES)
        family = word.split(".")[0]
        assert closest(family, families) == _before(family, families)
        size = word.rpartition(".")[2]
        assert closest(size, sizes) == _before(size, sizes)


def test_names_and_answers_are_kept_per_catalog() -> None:
    first = CATALOG.derived("lint.names", _Names)
    assert CATALOG.derived("lint.names", _Names) is first
    assert accel_categories(CATALOG) is accel_categories(CATALOG)
    assert known_families(CATALOG) == frozenset(CATALOG.families())
    assert first.closest("type", "g6e.xlarg") == _before("g6e.xlarg", TYPES)
    assert ("type", "g6e.xlarg") in first.answers
    assert first.closest("type", "g6e.xlarg") is first.answers[("type", "g6e.xlarg")]


def _pool(name: str, families: list[str], types: list[str], sizes: list[str]) -> object:
    return parse_nodepool(
        {
            "apiVersion": "karpenter.sh/v1",
            "kind": "NodePool",
            "metadata": {"name": name},
            "spec": {
                "template": {
                    "spec": {
                        "nodeClassRef": {
                            "group": "eks.amazonaws.com",
                            "kind": "NodeClass",
                            "name": "default",
                        },
                        "requirements": [
                            {
                                "key": "eks.amazonaws.com/instance-family",
                                "operator": "In",
                                "values": families,
                            },
                            {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": types},
                            {"key": "eks.amazonaws.com/instance-size", "operator": "In", "values": sizes},
                        ],
                    }
                }
            },
        }
    )


def test_unknown_names_of_many_pools_are_those_found_one_pool_at_a_time() -> None:
    """Pools repeating the same unknown names get the same answers from the kept search as from a fresh
    catalog (nothing of one pool leaks into another's)."""
    pools = [
        _pool(
            f"gpu-{i}",
            ["g6e", "g7x", "p5", "gg5"][: 1 + i % 4],
            ["g5.xlarge", "g6e.xlarg", "p6.48xlarge"],
            ["xlarge", "12xlarg", "bigxl"][: 1 + i % 3],
        )
        for i in range(12)
    ]
    kept = [unknown_names(p, CATALOG) for p in pools]  # type: ignore[arg-type]
    fresh = [unknown_names(p, load_catalog.__wrapped__()) for p in pools]  # type: ignore[arg-type,attr-defined]
    assert kept == fresh
    assert {(u.what, u.value) for u in kept[-1]} >= {
        ("instance family", "g7x"),
        ("instance type", "g6e.xlarg"),
    }
    by_value = {u.value: u.closest for found in kept for u in found}
    assert by_value["g6e.xlarg"] == _before("g6e.xlarg", TYPES)


@settings(max_examples=3000, deadline=None)
@given(
    st.text(alphabet="abcxl.0123-", max_size=24),
    st.text(alphabet="abcxl.0123-", max_size=24),
)
def test_the_ratio_is_difflibs(name: str, word: str) -> None:
    """`similar.ratio` is `SequenceMatcher(None, name, word).ratio()`: few letters, many repeats, so the
    longest blocks tie often (difflib breaks ties to the earliest in each string)."""
    assert ratio(name, word) == difflib.SequenceMatcher(None, name, word).ratio()


def test_the_ratio_of_long_or_foreign_words_is_difflibs() -> None:
    rng = random.Random(5)
    for length in (150, 199, 200, 260):  # from 200 characters on difflib drops popular ones (autojunk)
        word = "".join(rng.choice("ab.") for _ in range(length))
        name = "".join(rng.choice("ab.") for _ in range(length // 2))
        assert ratio(name, word) == difflib.SequenceMatcher(None, name, word).ratio()
    for name, word in (("", ""), ("p5.48xlarge", ""), ("", "g5"), ("ğ5.xlarge", "g5.xlärge")):
        assert ratio(name, word) == difflib.SequenceMatcher(None, name, word).ratio()


def test_the_names_starting_with_a_prefix_are_the_scans() -> None:
    """`NameIndex.starting_with` (bisection) answers as a scan of every name does, in order, the prefix itself
    left out: prefixes of real names, names themselves, the empty word, words past the last name."""
    index = NameIndex(TYPES)
    words = [*_words(7, 200), *TYPES[:20], "", "g", "p5", "zzz", "~", TYPES[-1], TYPES[0][:1]]
    for word in words:
        assert index.starting_with(word) == [c for c in index.names if c.startswith(word) and c != word]
    assert len(index.starting_with("g")) > 10


def test_the_fix_checks_memo_key_tells_apart_what_python_equates() -> None:
    """`admits_with`'s memo key (`pools._key_text`): the same requirements give the same key, and values
    Python holds equal but a parser reads differently (1, 1.0, true; None and NaN) give different keys."""
    from kubectl_gpu.core.analyses.lint.pools import _key_text

    reqs = [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}]
    assert _key_text(reqs) == _key_text([dict(r) for r in reqs])
    texts = [_key_text([{"key": "k", "operator": "Gt", "values": [v]}]) for v in (1, 1.0, True, None, float("nan"))]
    assert len(set(texts)) == len(texts)
    assert _key_text({1, 2}) == repr({1, 2})  # what JSON cannot hold: its repr
