"""A --snapshot of several clusters' bundles is a fleet found from the bundles' heads, before anything is
parsed: each file is parsed once (issue 18: it was parsed until the second cluster's bundle, refused, then
again per cluster)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.kube import snapshot
from tests.conftest import Result

DEMO = Path(__file__).resolve().parents[2] / "examples" / "automode-gpu-demo.json"
Cli = Callable[..., Result]


def _bundle(path: Path, context: str) -> Path:
    text = DEMO.read_text()
    old = json.loads(text)["context"]
    path.write_text(text.replace(json.dumps(old), json.dumps(context), 1))
    return path


def test_each_bundle_of_a_fleet_snapshot_is_parsed_once(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = [_bundle(tmp_path / f"{name}.json", name) for name in ("prod", "staging")]
    assert snapshot.cluster_groups(files) == [("prod", (str(files[0]),)), ("staging", (str(files[1]),))]
    parsed: Counter[str] = Counter()
    real = snapshot._load

    def counted(documents: Any, source_name: str, **kw: Any) -> Any:
        parsed[source_name] += 1
        return real(documents, source_name, **kw)

    monkeypatch.setattr(snapshot, "_load", counted)
    result = cli("nodes", "--snapshot", str(files[0]), "--snapshot", str(files[1]), "-o", "json")
    assert result.code == 0, result.err
    assert [c["context"] for c in json.loads(result.out)["clusters"]] == ["prod", "staging"]
    assert parsed == Counter({str(files[0]): 1, str(files[1]): 1})


def test_a_list_that_is_not_a_bundle_is_left_to_the_loader(tmp_path: Path) -> None:
    plain = tmp_path / "nodes.json"
    plain.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": []}))
    assert snapshot.cluster_groups([plain, _bundle(tmp_path / "a.json", "a")]) == []
    assert snapshot.cluster_groups(["-"]) == []
