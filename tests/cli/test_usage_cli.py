"""`kubectl gpu usage` end to end on the scenario bundles in tests/scenarios/usage (real /metrics texts,
a counter reset, a timed-out exporter; a forbidden read -> exit 4)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Result
from tests.helpers import load_script

Cli = Callable[..., Result]

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "tests" / "scenarios" / "usage"
WINDOW = str(SCENARIOS / "ours__usage-window.json")
FORBIDDEN = str(SCENARIOS / "ours__usage-forbidden.json")

generate = load_script(SCENARIOS / "generate.py", "usage_generate")


def test_scenarios_are_regenerated_byte_identically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(generate, "HERE", tmp_path)
    assert generate.main() == 0
    for name in ("ours__usage-window.json", "ours__usage-forbidden.json"):
        assert (tmp_path / name).read_bytes() == (SCENARIOS / name).read_bytes(), (
            "run tests/scenarios/usage/generate.py"
        )


def test_json_on_the_window(cli: Cli) -> None:
    result = cli("usage", "--snapshot", WINDOW, "-o", "json")
    assert result.code == 0, result.err
    doc = json.loads(result.out)
    assert doc["kind"] == "UsageReport"
    (vllm,) = [i for i in doc["inference"] if i["name"] == "vllm"]
    # 27453 -> 30453 (+3000), restart -> 1500 (+1500): 4500 tokens in 300 s
    assert (vllm["outputTokensPerSecond"], vllm["counterResets"], vllm["status"]) == (15.0, 1, "ok")
    assert vllm["costPerHour"] == 1.006 and vllm["usdPerMillionOutputTokens"] == pytest.approx(18.6296)
    (embedder,) = [i for i in doc["inference"] if i["name"] == "embedder"]
    assert embedder["status"] == "not-recognised" and embedder["usdPerMillionOutputTokens"] is None
    nodes = {n["name"]: n for n in doc["nodes"]}
    assert nodes["i-0a11000000000001"]["source"] == "dcgm" and nodes["i-0a11000000000001"]["state"] == "idle"
    assert nodes["i-0a11000000000002"]["state"] == "empty"
    timed_out = nodes["i-0a11000000000003"]
    assert (timed_out["source"], timed_out["utilizationPercent"], timed_out["state"]) == (
        "allocation-only",
        None,
        "unknown",
    )
    (failed,) = doc["window"]["failedReads"]
    assert (failed["error"], failed["reads"], failed["forbidden"]) == ("timed out after 5s", 2, False)
    assert doc["totals"]["idleHeldCostPerHour"] == 1.204 and doc["totals"]["emptyNodeCostPerHour"] == 3.912
    codes = sorted(f["code"] for f in doc["findings"])
    assert codes == [
        "USAGE_EMPTY_GPU_NODE",
        "USAGE_IDLE_GPUS",
        "USAGE_READ_FAILED",
        "USAGE_SERVER_UNRECOGNISED",
    ]
    (gpu,) = doc["gpus"]
    assert gpu["uuid"] == "GPU-20c56d28-0da5-6d26-a36a-e7af1ce2586e" and gpu["samples"] == 2


def test_table_marks_sources_and_unknowns(cli: Cli) -> None:
    result = cli("usage", "--snapshot", WINDOW)
    assert result.code == 0, result.err
    assert "18.63*" in result.out  # $ per 1M tokens of the vLLM Deployment
    line = next(ln for ln in result.out.splitlines() if ln.startswith("i-0a11000000000003"))
    assert "allocation-only" in line and " - " in line
    wide = cli("usage", "--snapshot", WINDOW, "-o", "wide")
    assert "ml/trainer-5d8f7c9b6d-abcde" in wide.out and "DCGM_FI_DEV_GPU_UTIL" in wide.out


def test_forbidden_read_is_could_not_look(cli: Cli) -> None:
    result = cli("usage", "--snapshot", FORBIDDEN, "-o", "json")
    assert result.code == 4
    doc = json.loads(result.out)
    assert doc["window"]["couldNotLook"] == [
        "dcgm gpu-operator/nvidia-dcgm-exporter-bbbbb: forbidden: pods/proxy"
    ]
    assert any(n["code"] == "FORBIDDEN" for n in doc["notes"])


def test_snapshot_without_a_window(cli: Cli) -> None:
    result = cli("usage", "--snapshot", str(ROOT / "tests" / "scenarios" / "cost" / "idle-gpu-nodes.yaml"))
    assert result.code == 4
    assert "snapshot --usage-window" in result.err


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--window", "soon"), "--window: not a duration"),
        (("--window", "2h"), "out of range"),
        (("--idle-below", "120"), "--idle-below"),
    ],
)
def test_bad_flags_are_exit_2(cli: Cli, args: tuple[str, ...], says: str) -> None:
    result = cli("usage", "--snapshot", WINDOW, *args)
    assert result.code == 2 and says in result.err


def test_hostile_metrics_text_is_made_safe(cli: Cli, tmp_path: Path) -> None:
    """Labels, errors and notes come from the cluster: escapes, bidi and markup are shown as text."""
    from tests.hostile import PAYLOAD, unsafe_in

    bundle = json.loads(Path(WINDOW).read_text())
    label = PAYLOAD.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    for scrape in bundle["usage"]["scrapes"]:
        if scrape["text"] and scrape["source"] == "dcgm":
            scrape["text"] = scrape["text"].replace('modelName="Tesla T4"', f'modelName="{label}"')
        if scrape["error"]:
            scrape["error"] = f"timed out {PAYLOAD}"
    bundle["usage"]["notes"].append(f"note {PAYLOAD}")
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(bundle))
    for fmt in ("table", "wide"):
        result = cli("usage", "--snapshot", str(path), "-o", fmt)
        assert result.code == 0, result.err
        assert unsafe_in(result.out + result.err) == []
    doc = json.loads(cli("usage", "--snapshot", str(path), "-o", "json").out)
    assert PAYLOAD in doc["gpus"][0]["model"]  # JSON keeps the exact value
