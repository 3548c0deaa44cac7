"""The /metrics parsers on real texts (tests/fixtures/metrics, PROVENANCE.jsonl), and the window maths."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from kubectl_gpu.core.usage.dcgm import GPU_UTIL, GR_ENGINE_ACTIVE, PodRef, dcgm_readings
from kubectl_gpu.core.usage.inference import token_reading
from kubectl_gpu.core.usage.metrics import parse_metrics
from kubectl_gpu.core.usage.rates import Point, counter_increase, counter_rate, gauge_mean, resets

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "metrics"
T0 = datetime(2026, 12, 1, 12, tzinfo=UTC)


def _text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def test_every_fixture_has_provenance() -> None:
    lines = [json.loads(line) for line in (FIXTURES / "PROVENANCE.jsonl").read_text().splitlines() if line]
    listed = {line["file"] for line in lines}
    files = {str(p.relative_to(FIXTURES)) for p in FIXTURES.rglob("*.txt")}
    assert listed == files
    for line in lines:
        assert (FIXTURES / line["file"]).stat().st_size == line["bytes"], line["file"]


def test_dcgm_exporter_text_of_a_tesla_t4() -> None:
    metrics = parse_metrics(_text("dcgm/datadog__tesla-t4__metrics.txt"))
    assert metrics.skipped == 0
    (gpu,) = dcgm_readings(metrics)  # label-less dummy series and fields we do not read name no GPU
    assert gpu.uuid == "GPU-20c56d28-0da5-6d26-a36a-e7af1ce2586e"
    assert (gpu.index, gpu.model, gpu.hostname) == ("0", "Tesla T4", "424773df46e0")
    assert (gpu.util_percent, gpu.util_field) == (0.0, GPU_UTIL)
    assert (gpu.memory_used_mib, gpu.memory_free_mib, gpu.memory_total_mib) == (0.0, 15109.0, 15109.0)
    assert gpu.power_w == pytest.approx(8.969)
    assert gpu.energy_mj == 128996013  # a counter: the parser names it ..._total, we find it either way
    assert gpu.pods == ()


def test_dcgm_attribution_labels() -> None:
    (gpu,) = dcgm_readings(parse_metrics(_text("dcgm/datadog__tesla-t4__label-remap.txt")))
    assert gpu.pods == (PodRef("foo", "bar", "baz"),)
    assert gpu.util_percent == 0.0


def test_gr_engine_active_is_preferred_and_a_ratio() -> None:
    text = (
        _text("dcgm/datadog__tesla-t4__label-remap.txt")
        .replace(GPU_UTIL, GR_ENGINE_ACTIVE)
        .replace("} 0", "} 0.42")
    )
    (gpu,) = dcgm_readings(parse_metrics(text + "\n" + _text("dcgm/datadog__tesla-t4__label-remap.txt")))
    assert (gpu.util_field, gpu.util_percent) == (GR_ENGINE_ACTIVE, pytest.approx(42.0))


def test_vllm_docs_text_with_elided_lines() -> None:
    metrics = parse_metrics(_text("vllm/vllm-docs__llama-3.1-8b__design-metrics-example.txt"))
    assert metrics.skipped == 3  # the doc's three "..." lines; every series around them is kept
    reading = token_reading(metrics)
    assert reading.server == "vllm"
    assert reading.output_tokens == 27453.0
    assert reading.prompt_tokens is None  # the excerpt does not show vllm:prompt_tokens_total
    assert reading.model == "meta-llama/Llama-3.1-8B-Instruct"


def test_nim_hint_keeps_vllm_counters() -> None:
    metrics = parse_metrics(_text("vllm/vllm-docs__llama-3.1-8b__design-metrics-example.txt"))
    assert token_reading(metrics, "nim").server == "nim"
    assert token_reading(metrics, "nim").output_tokens == 27453.0


@pytest.mark.parametrize(
    ("text", "server", "output"),
    [
        # ours: shapes the servers document (TGI's histogram sum, TensorRT-LLM's Triton histogram, ...)
        ("tgi_request_generated_tokens_sum 1000\ntgi_request_generated_tokens_count 10\n", "tgi", 1000.0),
        (
            'nv_llm_output_token_len_sum{model="tensorrt_llm",response_metric_type="total_output_tokens",version="1"} 7\n',
            "trtllm",
            7.0,
        ),
        ('nv_inference_count{model="resnet",version="1"} 5\n', "triton", None),
        ('sglang:generation_tokens_total{model_name="q"} 44\n', "sglang", 44.0),
        ("process_cpu_seconds_total 3\n", None, None),
        ("", None, None),
    ],
)
def test_servers_are_recognised_by_their_names(text: str, server: str | None, output: float | None) -> None:
    reading = token_reading(parse_metrics(text))
    assert (reading.server, reading.output_tokens) == (server, output)


def test_garbage_never_raises() -> None:
    metrics = parse_metrics('{{{\nDCGM_FI_DEV_GPU_UTIL{gpu="0" 5\n\x00\n')
    assert metrics.skipped == 3 and not metrics.by_name


def _points(*values: float) -> list[Point]:
    return [Point(T0 + timedelta(seconds=60 * i), v) for i, v in enumerate(values)]


def test_counter_rate_over_the_window() -> None:
    assert counter_rate(_points(100, 160, 220)) == 1.0


def test_a_drop_is_a_reset() -> None:
    # 100 -> 160 (+60), restart, 30 (+30 counted from zero), 90 (+60)
    points = _points(100, 160, 30, 90)
    assert counter_increase(points) == 150
    assert resets(points) == 1
    assert counter_rate(points) == pytest.approx(150 / 180)


def test_fewer_than_two_samples_is_unknown() -> None:
    assert counter_rate(_points(5)) is None
    assert counter_rate([]) is None
    assert counter_rate([Point(T0, 1), Point(T0, 2)]) is None  # no time between them
    assert gauge_mean([None, None]) is None
    assert gauge_mean([1.0, None, 3.0]) == 2.0


def test_tensorrt_llm_backend_text_has_no_token_counter() -> None:
    metrics = parse_metrics(_text("triton/tensorrtllm-backend-readme__inflight-batcher.txt"))
    assert metrics.skipped == 0
    reading = token_reading(metrics)
    assert (reading.server, reading.output_tokens, reading.prompt_tokens) == ("trtllm", None, None)


def test_tgi_router_text_counts_tokens_from_its_histogram_sums() -> None:
    metrics = parse_metrics(_text("tgi/datadog__tgi__payload.txt"))
    assert metrics.skipped == 0  # blank lines between families, TYPE without HELP, a summary
    reading = token_reading(metrics)
    assert (reading.server, reading.output_tokens, reading.prompt_tokens) == ("tgi", 3423.0, 662.0)
    assert reading.model is None  # TGI's series name no model


def test_nim_text_with_unprefixed_names() -> None:
    metrics = parse_metrics(_text("nim/datadog__llama-3.1-8b-instruct__nim-metrics.txt"))
    assert metrics.skipped == 0
    reading = token_reading(metrics)
    assert (reading.server, reading.output_tokens, reading.prompt_tokens) == ("nim", 174.0, 109.0)
    assert reading.model == "meta/llama-3.1-8b-instruct"


@pytest.mark.parametrize(
    ("name", "output", "prompt", "model"),
    [
        ("sglang/datadog__opt-125m__sglang-metrics.txt", 32.0, 5.0, "facebook/opt-125m"),
        (
            "sglang/sglang-docs__llama-3.1-8b__production-metrics.txt",
            7557572.0,
            8128902.0,
            "meta-llama/Llama-3.1-8B-Instruct",
        ),
    ],
)
def test_sglang_texts(name: str, output: float, prompt: float, model: str) -> None:
    metrics = parse_metrics(_text(name))
    assert metrics.skipped == 0
    reading = token_reading(metrics)
    assert (reading.server, reading.output_tokens, reading.prompt_tokens, reading.model) == (
        "sglang",
        output,
        prompt,
        model,
    )
