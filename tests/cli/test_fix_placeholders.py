"""Fixes name what they are about: `kubectl gpu smi i-0abc...`, never `kubectl gpu smi NODE` for the reader to
fill in (issue 41, point 6)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from kubectl_gpu.core.analyses.pending.pod.evidence import scheduled_fix
from tests.conftest import Result

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "examples" / "automode-gpu-demo.json")
PLACEHOLDER = re.compile(r"\b(NODE|POD|NAME|NAMESPACE)\b")


def _fixes(value: object) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "fix" and isinstance(item, str):
                yield item
            else:
                yield from _fixes(item)
    elif isinstance(value, list):
        for item in value:
            yield from _fixes(item)


def test_no_fix_on_the_demo_leaves_a_placeholder(cli: Callable[..., Result]) -> None:
    fixes: list[str] = []
    for command in ("diagnose", "pending"):
        result = cli(command, "-A", "--snapshot", DEMO, "-o", "json")
        assert result.code in (0, 1), result.err
        fixes += _fixes(json.loads(result.out))
    assert any("kubectl gpu smi i-" in fix for fix in fixes)  # the health findings name their node
    assert [f for f in fixes if PLACEHOLDER.search(f)] == []


def test_replacing_nodes_names_them(cli: Callable[..., Result]) -> None:
    result = cli("drivers", "-A", "--snapshot", DEMO, "-o", "json")
    fixes = [f for f in _fixes(json.loads(result.out)) if "delete node" in f]
    assert fixes and all(re.search(r"`kubectl delete node i-[0-9a-f]+( i-[0-9a-f]+)*`", f) for f in fixes)


def test_a_device_the_plugin_did_not_provide_names_the_node() -> None:
    fix = scheduled_fix("UnexpectedAdmissionError", "ip-10-0-1-5.ec2.internal")
    assert "kubectl gpu smi ip-10-0-1-5.ec2.internal," in fix


def test_no_analysis_writes_a_placeholder_command() -> None:
    core = ROOT / "kubectl_gpu" / "core"
    pattern = re.compile(r"kubectl (gpu (smi|shell|explain)|delete nodeclaim|delete node) (NODE|POD|NAME)\b")
    found = [str(p.relative_to(ROOT)) for p in core.rglob("*.py") if pattern.search(p.read_text())]
    assert found == []
