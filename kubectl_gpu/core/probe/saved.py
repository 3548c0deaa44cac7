"""A saved tool output, recognised by its look: the collector's sections, nvidia-smi's own error text,
`nvidia-smi -q -x`, or CSV."""

from __future__ import annotations

from kubectl_gpu.core.probe.collector import parse_collector_output
from kubectl_gpu.core.probe.models import ProbeIssue, ProbeResult
from kubectl_gpu.core.probe.nvidia_csv import parse_query_gpu_csv
from kubectl_gpu.core.probe.nvidia_errors import NVIDIA_SMI_ERROR, nvidia_smi_error
from kubectl_gpu.core.probe.nvidia_xml import parse_nvidia_smi_xml

__all__ = ["parse_saved_output"]


def parse_saved_output(text: str) -> ProbeResult:
    """A saved tool output, by its look: our collector's output, `nvidia-smi -q -x`, or `--query-gpu` CSV.

    Raises ProbeParseError (a ValueError) when the XML or CSV cannot be read."""
    if "===KUBECTL-GPU:COLLECTOR" in text:
        return parse_collector_output(text)
    error = nvidia_smi_error(text)
    if error is not None:  # nvidia-smi's own error instead of a report: the answer, whole
        return ProbeResult(
            None, None, (), complete=True, issues=(ProbeIssue("nvidia-smi", NVIDIA_SMI_ERROR, error),)
        )
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("<") or "<nvidia_smi_log" in text:
        report = parse_nvidia_smi_xml(text)
        source = "nvidia-smi-xml"
    else:
        report = parse_query_gpu_csv(text)
        source = "nvidia-smi-csv"
    recovered = (ProbeIssue(source, "recovered", report.recovered),) if report.recovered else ()
    return ProbeResult(
        driver_version=report.driver_version,
        cuda_version=report.cuda_version,
        gpus=report.gpus,
        attached_gpus=report.attached_gpus,
        gpu_source=source,
        complete=True,
        issues=recovered,
    )
