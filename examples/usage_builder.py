"""The demo's usage window: what `kubectl gpu snapshot --usage-window 5m` stores (the bundle's `usage` key).

Texts in the real exporters' formats, with the demo's names and made-up figures:

* DCGM exporter: the metric families, their order, HELP and TYPE lines and label layout of the first
  exporter of the real dcgm-exporter output in tests/fixtures/metrics/dcgm/datadog__tesla-t4__metrics.txt
  (read from it here), plus the `container`, `namespace`, `pod` labels the exporter adds when it maps GPUs to
  pods (`--kubernetes`); GPU values are ours.
* vLLM: the families and label layout of vLLM's own example output (tests/fixtures/metrics/vllm/
  vllm-docs__llama-3.1-8b__design-metrics-example.txt), with `vllm:prompt_tokens_total` beside
  `vllm:generation_tokens_total` as vLLM exports it; values are ours.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DCGM_FIXTURE = ROOT / "tests" / "fixtures" / "metrics" / "dcgm" / "datadog__tesla-t4__metrics.txt"
DCGM_IMAGE = "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.9-3.6.1-ubuntu22.04"
DCGM_NAMESPACE = "monitoring"
DCGM_PORT = 9400


@dataclass(frozen=True, slots=True)
class DcgmGpu:
    """One GPU as the exporter reports it; `pod` is (namespace, name, container) or None (no pod holds it)."""

    index: int
    uuid: str
    model: str
    util: int  # DCGM_FI_DEV_GPU_UTIL, %
    used_mib: int
    total_mib: int
    power_w: float
    energy_mj: int  # DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION at the read
    temp_c: int
    sm_clock: int
    mem_clock: int
    pod: tuple[str, str, str] | None = None


def _families() -> list[tuple[str, str, str]]:
    """(name, HELP line, TYPE line) of the fixture's first exporter, in its order (up to the second one's
    families, which begin where the layout of the labels changes)."""
    lines = DCGM_FIXTURE.read_text(encoding="utf-8").splitlines()
    out: list[tuple[str, str, str]] = []
    for number, line in enumerate(lines):
        if not line.startswith("# HELP "):
            continue
        name = line.split()[2]
        sample = lines[number + 2]
        if "DCGM_FI_PROCESS_NAME" not in sample:  # the second exporter's layout: stop there
            break
        out.append((name, line, lines[number + 1]))
    return out


def _value(name: str, gpu: DcgmGpu) -> str:
    values: Mapping[str, str] = {
        "DCGM_FI_DEV_SM_CLOCK": str(gpu.sm_clock),
        "DCGM_FI_DEV_MEM_CLOCK": str(gpu.mem_clock),
        "DCGM_FI_DEV_GPU_TEMP": str(gpu.temp_c),
        "DCGM_FI_DEV_POWER_USAGE": f"{gpu.power_w:.6f}",
        "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION": str(gpu.energy_mj),
        "DCGM_FI_DEV_GPU_UTIL": str(gpu.util),
        "DCGM_FI_DEV_MEM_COPY_UTIL": str(gpu.util // 3),
        "DCGM_FI_DEV_FB_FREE": str(gpu.total_mib - gpu.used_mib),
        "DCGM_FI_DEV_FB_USED": str(gpu.used_mib),
        "DCGM_FI_DEV_COUNT": "",  # set per node by dcgm_text
    }
    return values.get(name, "0")


def dcgm_text(node: str, driver: str, gpus: Sequence[DcgmGpu]) -> str:
    """The exporter's /metrics on `node`: every family of the fixture's layout, one sample per GPU."""
    out = []
    for name, help_line, type_line in _families():
        out += [help_line, type_line]
        for gpu in gpus:
            labels = (
                f'gpu="{gpu.index}",UUID="{gpu.uuid}",device="nvidia{gpu.index}",modelName="{gpu.model}",'
                f'Hostname="{node}",DCGM_FI_DRIVER_VERSION="{driver}",DCGM_FI_PROCESS_NAME="/usr/bin/dcgm-exporter"'
            )
            if gpu.pod is not None:
                namespace, pod, container = gpu.pod
                labels += f',container="{container}",namespace="{namespace}",pod="{pod}"'
            value = str(len(gpus)) if name == "DCGM_FI_DEV_COUNT" else _value(name, gpu)
            out.append(f"{name}{{{labels}}} {value}")
    return "\n".join(out) + "\n"


_TTFT_BUCKETS = ("0.001", "0.005", "0.01", "0.02", "0.04", "0.06", "0.08", "0.1")


def vllm_text(model: str, *, running: int, generation: int, prompt: int, requests: int) -> str:
    """vLLM's /metrics in the layout of its documented example: requests running, the token counters, the
    finished requests by reason, the time-to-first-token histogram (every request under 100 ms)."""
    m = f'model_name="{model}"'
    lines = [
        "# HELP vllm:num_requests_running Number of requests in model execution batches.",
        "# TYPE vllm:num_requests_running gauge",
        f"vllm:num_requests_running{{{m}}} {running:.1f}",
        "# HELP vllm:prompt_tokens_total Number of prefill tokens processed.",
        "# TYPE vllm:prompt_tokens_total counter",
        f"vllm:prompt_tokens_total{{{m}}} {prompt:.1f}",
        "# HELP vllm:generation_tokens_total Number of generation tokens processed.",
        "# TYPE vllm:generation_tokens_total counter",
        f"vllm:generation_tokens_total{{{m}}} {generation:.1f}",
        "# HELP vllm:request_success_total Count of successfully processed requests.",
        "# TYPE vllm:request_success_total counter",
        f'vllm:request_success_total{{finished_reason="stop",{m}}} {requests - requests // 9:.1f}',
        f'vllm:request_success_total{{finished_reason="length",{m}}} {requests // 9:.1f}',
        f'vllm:request_success_total{{finished_reason="abort",{m}}} 0.0',
        "# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.",
        "# TYPE vllm:time_to_first_token_seconds histogram",
    ]
    shares = (0, 0, 0, 9, 70, 88, 98, 100)  # % of requests under each bucket's bound
    for bound, share in zip(_TTFT_BUCKETS, shares, strict=True):
        lines.append(
            f'vllm:time_to_first_token_seconds_bucket{{le="{bound}",{m}}} {requests * share // 100:.1f}'
        )
    lines.append(f'vllm:time_to_first_token_seconds_bucket{{le="+Inf",{m}}} {requests:.1f}')
    lines.append(f"vllm:time_to_first_token_seconds_count{{{m}}} {requests:.1f}")
    return "\n".join(lines) + "\n"


_UUID = re.compile(r"<uuid>(GPU-[0-9a-f-]+)</uuid>")


def probe_uuids(probe_output: str) -> list[str]:
    """The GPU UUIDs a stored probe's nvidia-smi XML names, in GPU order (the exporter names the same)."""
    return _UUID.findall(probe_output)
