"""Values a pod may write that no GPU or server has (issue 36, item 2): NaN, infinities and 1e308 (valid
Prometheus text), figures out of their field's range, a counter below 0 or going backwards. They are left
out and counted, never an internal error, never a negative rate or cost. The texts are the real fixtures
(tests/fixtures/metrics, PROVENANCE.jsonl) and ours derived from them (tests/core/usage/ours/README.md)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

from kubectl_gpu.core.analyses import usage
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.k8s.parse import parse_object
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.usage import Scrape, ScrapeSet
from kubectl_gpu.core.usage.dcgm import dcgm_readings
from kubectl_gpu.core.usage.inference import token_reading
from kubectl_gpu.core.usage.metrics import parse_metrics
from kubectl_gpu.core.usage.rates import Point, counter_increase, counter_rate, resets
from tests.helpers import node, pod

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "metrics"
OURS = Path(__file__).resolve().parent / "ours"
DCGM = (FIXTURES / "dcgm" / "datadog__tesla-t4__metrics.txt").read_text()
VLLM = (FIXTURES / "vllm" / "vllm-docs__llama-3.1-8b__design-metrics-example.txt").read_text()
UUID = "GPU-20c56d28-0da5-6d26-a36a-e7af1ce2586e"
CATALOG = load_catalog()
T0 = datetime(2026, 12, 1, 12, tzinfo=UTC)


def _ours(name: str) -> str:
    return (OURS / name).read_text()


def test_nan_infinities_and_1e308_are_dropped_and_counted() -> None:
    metrics = parse_metrics(_ours("ours__dcgm-t4-nonfinite.txt"))
    assert metrics.skipped == 0 and metrics.unusable == 5
    assert dcgm_readings(metrics) == ()  # every field read was one of them: no figure of the GPU at all


def test_figures_out_of_their_range_are_not_believed() -> None:
    (gpu,) = dcgm_readings(parse_metrics(_ours("ours__dcgm-t4-out-of-range.txt")))
    assert gpu.rejected == 4
    assert (gpu.util_percent, gpu.memory_used_mib, gpu.power_w, gpu.energy_mj) == (None, None, None, None)
    assert gpu.memory_free_mib == 15109.0  # the field left as read is still read


@pytest.mark.parametrize(
    ("name", "unusable", "rejected"),
    [
        ("ours__vllm-nonfinite-counter.txt", 1, 0),
        ("ours__vllm-infinite-counter.txt", 1, 0),
        ("ours__vllm-absurd-counter.txt", 1, 0),  # 1e308: past 2^63, not believed at all
        ("ours__vllm-negative-counter.txt", 0, 1),
        ("ours__vllm-two-series-1e308.txt", 2, 0),  # before: OverflowError in the sum
    ],
)
def test_a_token_counter_that_is_no_count_is_unknown(name: str, unusable: int, rejected: int) -> None:
    metrics = parse_metrics(_ours(name))
    reading = token_reading(metrics)
    assert (metrics.unusable, reading.rejected) == (unusable, rejected)
    assert reading.server == "vllm" and reading.output_tokens is None


def test_a_counter_is_never_negative_and_a_drop_is_a_reset() -> None:
    at = [T0 + timedelta(seconds=s) for s in (0, 30, 60, 90)]
    backwards = [Point(at[0], 5000.0), Point(at[1], 100.0), Point(at[2], 50.0)]  # restarted, then again
    assert counter_increase(backwards) == 150.0 and resets(backwards) == 2
    below_zero = [Point(at[0], 100.0), Point(at[1], -50.0), Point(at[2], 130.0)]
    assert counter_increase(below_zero) == 30.0  # -50 is no count: left out
    assert counter_rate(below_zero) == pytest.approx(30.0 / 60)
    assert counter_rate([Point(at[0], 100.0), Point(at[1], -1e300)]) is None  # one good sample: unknown
    for points in (backwards, below_zero):
        assert (counter_rate(points) or 0) >= 0


# --- through the whole analysis: one trainer on a T4 node, one vLLM server beside it -----------------------


def _state() -> ClusterState:
    labels = {"node.kubernetes.io/instance-type": "g4dn.xlarge", "topology.kubernetes.io/region": "us-east-1"}
    objs: list[dict[str, Any]] = [
        node("n1", labels=labels, capacity={"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"}),
        pod(
            "vllm-0",
            "serving",
            node_name="n1",
            requests={"nvidia.com/gpu": "1"},
            image="vllm/vllm-openai:v0.6.3",
        ),
    ]
    return ClusterState.of(parse_object(o) for o in objs)


def _window(dcgm: list[str], vllm: list[str]) -> ScrapeSet:
    scrapes = [
        Scrape(
            "dcgm",
            "gpu-operator",
            "nvidia-dcgm-exporter-a",
            T0 + timedelta(seconds=60 * i),
            node="n1",
            text=t,
        )
        for i, t in enumerate(dcgm)
    ] + [
        Scrape(
            "inference", "serving", "vllm-0", T0 + timedelta(seconds=60 * i), node="n1", server="vllm", text=t
        )
        for i, t in enumerate(vllm)
    ]
    return ScrapeSet(60.0 * max(len(dcgm), len(vllm), 2), tuple(scrapes))


HOSTILE_VLLM = [
    "ours__vllm-nonfinite-counter.txt",
    "ours__vllm-infinite-counter.txt",
    "ours__vllm-absurd-counter.txt",
    "ours__vllm-negative-counter.txt",
    "ours__vllm-two-series-1e308.txt",
]


@pytest.mark.parametrize("hostile", HOSTILE_VLLM)
@pytest.mark.parametrize("dcgm", ["ours__dcgm-t4-nonfinite.txt", "ours__dcgm-t4-out-of-range.txt"])
def test_the_report_is_written_whatever_the_texts_say(dcgm: str, hostile: str) -> None:
    """Real, hostile, real: the report is whole (JSON, no error), no figure is negative, the hostile values
    are said in a note."""
    scrapes = _window([DCGM, _ours(dcgm), DCGM], [VLLM, _ours(hostile), VLLM.replace("27453.0", "30453.0")])
    report = usage.analyse(_state(), CATALOG, T0, scrapes=scrapes)
    document = orjson.loads(orjson.dumps(report.to_dict()))
    (gpu,) = document["gpus"]
    assert gpu["utilizationPercent"] == 0.0 and gpu["samples"] == 2  # the hostile read is left out
    assert gpu["memoryTotalMiB"] in (15109, None) and (gpu["powerW"] is None or 0 <= gpu["powerW"] <= 10_000)
    (row,) = document["inference"]
    assert row["outputTokensPerSecond"] == pytest.approx(3000 / 120)  # 27453 -> 30453 over the window
    assert row["counterResets"] == 0
    assert any("were not believed" in n for n in report.notes)


@pytest.mark.parametrize("hostile", HOSTILE_VLLM)
def test_a_server_with_only_hostile_counters_has_no_rate_never_a_negative_one(hostile: str) -> None:
    report = usage.analyse(_state(), CATALOG, T0, scrapes=_window([], [_ours(hostile), _ours(hostile)]))
    (row,) = report.inference
    assert row.output_tokens_per_s is None and row.status == "rate-unknown"
    assert row.usd_per_million_output_tokens is None


def test_a_counter_that_goes_below_zero_between_good_reads_gives_no_negative_rate() -> None:
    negative = _ours("ours__vllm-negative-counter.txt")
    report = usage.analyse(_state(), CATALOG, T0, scrapes=_window([], [VLLM, negative]))
    (row,) = report.inference
    assert row.output_tokens_per_s is None  # one good read: unknown
    report = usage.analyse(_state(), CATALOG, T0, scrapes=_window([], [negative, VLLM]))
    assert report.inference[0].output_tokens_per_s is None
    backwards = VLLM.replace("27453.0", "100.0")  # the server restarted: a reset, counted from 0
    report = usage.analyse(_state(), CATALOG, T0, scrapes=_window([], [VLLM, backwards]))
    (row,) = report.inference
    assert row.output_tokens_per_s == pytest.approx(100 / 60) and row.resets == 1
