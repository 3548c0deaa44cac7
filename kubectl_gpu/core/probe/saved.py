"""A saved tool output, recognised by its look: the collector's sections, `nvidia-smi -q -x`, or CSV."""

from __future__ import annotations

from kubectl_gpu.core.probe.collector import parse_collector_output
from kubectl_gpu.core.probe.models import ProbeResult
from kubectl_gpu.core.probe.nvidia_csv import parse_query_gpu_csv
from kubectl_gpu.core.probe.nvidia_xml import parse_nvidia_smi_xml

__all__ = ["parse_saved_output"]


def parse_saved_output(text: str) -> ProbeResult:
    """A saved tool output, by its look: our collector's output, `nvidia-smi -q -x`, or `--query-gpu` CSV.

    Raises ProbeParseError (a ValueError) when the XML or CSV cannot be read."""
    if "===KUBECTL-GPU:COLLECTOR" in text:
        return parse_collector_output(text)
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("<") or "<nvidia_smi_log" in text:
        report = parse_nvidia_smi_xml(text)
        source = "nvidia-smi-xml"
    else:
        report = parse_query_gpu_csv(text)
        source = "nvidia-smi-csv"
    return ProbeResult(
        driver_version=report.driver_version,
        cuda_version=report.cuda_version,
        gpus=report.gpus,
        gpu_source=source,
        complete=True,
    )
