"""Issue 37, cause 8: inference servers behind other front doors.

Ray Serve LLM re-exports vLLM's counters through `ray.util.metrics`, which prefixes every name with `ray_`:
its own Serve LLM Grafana dashboard reads `ray_vllm:generation_tokens_total`,
`ray_vllm:request_prompt_tokens_sum` and its own `ray_serve_llm_tokens_generated` / `_input`
(ray-project/ray, python/ray/dashboard/modules/metrics/dashboards/serve_llm_dashboard_panels.py, commit
ef82d1d979d285dafd39767c4e82a6d4c1e1cf0d). The texts below are the real vLLM /metrics of
tests/fixtures/metrics (PROVENANCE.jsonl), renamed the way such a gateway renames them: only the names change.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

from kubectl_gpu.core.analyses.usage.findings import findings_of
from kubectl_gpu.core.analyses.usage.report import TokenCost, Workload
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.usage.inference import token_reading
from kubectl_gpu.core.usage.metrics import parse_metrics

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "metrics"
VLLM = (FIXTURES / "vllm" / "vllm-docs__llama-3.1-8b__design-metrics-example.txt").read_text(encoding="utf-8")
MODEL = "meta-llama/Llama-3.1-8B-Instruct"


def _prefixed(text: str, prefix: str) -> str:
    """Every metric name of `text` behind `prefix`, in samples and in # HELP / # TYPE lines."""
    text = re.sub(r"^(# (?:HELP|TYPE) )(\S)", rf"\g<1>{prefix}\g<2>", text, flags=re.M)
    return re.sub(r"^(?!#)(\S)", rf"{prefix}\g<1>", text, flags=re.M)


@pytest.mark.parametrize("prefix", ["ray_", "gateway:", "my_gateway_"])
def test_vllm_counters_behind_a_prefix_are_vllms(prefix: str) -> None:
    plain = token_reading(parse_metrics(VLLM))
    behind = token_reading(parse_metrics(_prefixed(VLLM, prefix)))
    assert behind.server == "vllm"
    assert (behind.output_tokens, behind.prompt_tokens) == (plain.output_tokens, plain.prompt_tokens)
    assert behind.output_tokens == 27453.0
    assert behind.model == MODEL
    assert behind.unread is None


def test_a_hint_from_the_pod_still_reads_the_prefixed_counters() -> None:
    # Before: a pod whose image said vLLM but whose text was Ray's read "vLLM exports no token counter".
    reading = token_reading(parse_metrics(_prefixed(VLLM, "ray_")), hint="vllm")
    assert (reading.server, reading.output_tokens) == ("vllm", 27453.0)


def test_the_unprefixed_counter_wins_and_is_never_summed_with_a_prefixed_copy() -> None:
    both = VLLM + _prefixed(VLLM, "ray_")
    reading = token_reading(parse_metrics(both))
    assert reading.output_tokens == 27453.0  # not 2 x


def test_a_name_that_merely_ends_like_a_counter_is_not_read() -> None:
    # `xvllm:` is another namespace, not vLLM's behind a prefix (the prefix must end in `_` or `:`).
    reading = token_reading(parse_metrics(_prefixed(VLLM, "x")))
    assert reading.server is None
    assert reading.unread is not None  # it still looks like a token counter: named, not "expose one"


def _row(status: str, server: str | None, unread: str | None) -> TokenCost:
    return TokenCost(
        Workload("ml", "Deployment", "llm"),
        server,
        None,
        ("llm-0",),
        status,
        None,
        None,
        Decimal(1),
        0,
        unread,
    )


def test_a_server_that_counts_tokens_under_another_name_is_not_told_to_expose_them() -> None:
    # Ray Serve LLM's own counter, without vLLM's: a server that counts tokens, under a name we do not read.
    text = "# TYPE ray_serve_llm_tokens_generated counter\nray_serve_llm_tokens_generated_total 12.0\n"
    reading = token_reading(parse_metrics(text))
    assert reading.server is None and reading.unread == "ray_serve_llm_tokens_generated_total"
    (finding,) = findings_of([], [], [_row("not-recognised", None, reading.unread)], [], load_catalog(), 5.0)
    assert finding.code == "USAGE_SERVER_UNRECOGNISED"
    assert "ray_serve_llm_tokens_generated_total" in finding.message
    assert finding.fix is not None and "expose" not in finding.fix


def test_a_server_without_any_token_counter_is_still_told_to_expose_one() -> None:
    text = (FIXTURES / "triton" / "tensorrtllm-backend-readme__inflight-batcher.txt").read_text()
    reading = token_reading(parse_metrics(text))
    if reading.output_tokens is not None:
        pytest.skip("this Triton text carries TensorRT-LLM token counters")
    (finding,) = findings_of(
        [], [], [_row("no-token-counter", reading.server, reading.unread)], [], load_catalog(), 5.0
    )
    assert finding.fix is not None and finding.fix.startswith("expose")
