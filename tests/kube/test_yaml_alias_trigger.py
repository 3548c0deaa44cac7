"""The YAML alias check (`snapshot_decode._check_aliases`, billion laughs and loops) walks every node of the
input; it runs only where the text may hold an alias. kubectl's printer writes none, while `&` and `*` are
common in annotations, URLs and schedules: those alone must not cost the walk, and no alias may escape it."""

from __future__ import annotations

import pytest
import yaml

from kubectl_gpu.kube.snapshot_decode import _may_alias

WITH_ALIASES = [
    "a: &x\n  b: 1\nc: *x\n",
    "[&a 1, *a]\n",
    "{a: &b c, d: *b}\n",
    '{"a":&b c, "d":*b}\n',
    "- &a x\n- *a\n",
    "? &a k\n: v\nz: *a\n",
    "--- &a\nb: [1]\n---\nc: *a\n",
    "items:\n- spec:\n    tolerations: &t\n    - key: k\n  other:\n    tolerations: *t\n",
]
TEXT_ONLY = [
    "url: https://h.example/?a=1&b=2\nschedule: '*/5 * * * *'\n",
    'note: "a&b*c"\nimage: registry.example/app:1.0&x*\n',
    "rules:\n- verbs: ['*']\n  note: 'R&D'\n",
]


@pytest.mark.parametrize("text", WITH_ALIASES)
def test_every_alias_position_is_checked(text: str) -> None:
    events = list(yaml.parse(text))
    assert any(isinstance(e, yaml.AliasEvent) for e in events)  # PyYAML itself reads an alias here
    assert _may_alias(text.encode())
    assert _may_alias(text.encode("utf-16"))  # other encodings are not searched: checked


@pytest.mark.parametrize("text", TEXT_ONLY)
def test_ampersands_and_stars_in_text_cost_no_walk(text: str) -> None:
    assert not any(isinstance(e, yaml.AliasEvent) for e in yaml.parse(text))
    assert not _may_alias(text.encode())


def test_an_anchor_after_a_byte_order_mark_is_seen() -> None:
    from kubectl_gpu.kube.snapshot_decode import _ANCHOR

    assert _ANCHOR.search("\ufeff&a [1, 2]\n".encode())
    assert any(getattr(e, "anchor", None) == "a" for e in yaml.parse("\ufeff&a [1, 2]\n"))
