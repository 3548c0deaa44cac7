"""Issue 21 items 5-6: nvidia-smi's own error texts are the answer, an XML document spoiled by one process
name is still read, and processes that could not be read are unknown, never "none".

The error texts are real (tests/fixtures/probe/nvidia-smi/errors, from public issue threads). The spoiled
XML is a real fixture with one raw ESC put into a process name here, at test time: the fixture file itself
is never edited."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from kubectl_gpu.core.analyses.smi import findings
from kubectl_gpu.core.probe import parse_collector_output, parse_saved_output
from tests.conftest import Result
from tests.kube.kubelet import Block, collector_output

from . import _fixtures as fx

Cli = Callable[..., Result]
ERRORS = "nvidia-smi/errors/"
V100 = "nvidia-smi/xml/datakit__tesla-v100-pcie-32gb__460.39__4procs.xml"  # 1 GPU, 4 processes
H100_CSV = "nvidia-smi/csv/gpuexporter__h100-80gb-hbm3__590.48.01__query-gpu__load.csv"

WHOLE = {
    "owod-issue-81__gpu-is-lost.txt": "Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost. "
    "Reboot the system to recover this GPU",
    "nvidia-docker-issue-1553__unknown-error.txt": "Unable to determine the device handle for GPU 0000:09:00.0: "
    "Unknown Error",
    "tinygrad-open-gpu-kernel-modules-issue-47__version-mismatch.txt": "Failed to initialize NVML: "
    "Driver/library version mismatch; NVML library version: 570.124",
    "docker-k8s__couldnt-communicate.txt": "NVIDIA-SMI has failed because it couldn't communicate with the "
    "NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
}


def test_every_error_fixture_is_covered() -> None:
    assert fx.names(ERRORS) == sorted(WHOLE)


@pytest.mark.parametrize("name", sorted(WHOLE))
def test_a_saved_error_text_is_nvidia_smi_failed_with_the_whole_message(name: str) -> None:
    result = parse_saved_output(fx.text(ERRORS + name))
    assert result.gpus == ()
    (finding,) = findings(result)
    assert finding.code == "NVIDIA_SMI_FAILED" and finding.severity == "error"
    assert finding.message == f"nvidia-smi fails on this node: {WHOLE[name]}"


def test_smi_from_file_on_an_error_text_exits_1_quoting_it(cli: Cli) -> None:
    path = fx.path(ERRORS + "tinygrad-open-gpu-kernel-modules-issue-47__version-mismatch.txt")
    result = cli("smi", "--from-file", str(path))
    assert result.code == 1, result.err
    assert "NVML library version: 570.124" in result.err + result.out, result.err


def test_a_failing_collector_section_keeps_every_line_of_the_error() -> None:
    mismatch = fx.text(ERRORS + "tinygrad-open-gpu-kernel-modules-issue-47__version-mismatch.txt")
    output = collector_output(
        [
            Block("driver-version", 0, fx.text("ours/driver-version/ours__proc-driver-nvidia-version__proprietary-535.txt")),
            Block("nvidia-smi-xml", 18, mismatch),
            Block("nvidia-smi-csv", 18, mismatch),
            Block("nvidia-smi-list", 18, mismatch),
        ]
    )  # fmt: skip
    (finding,) = findings(parse_collector_output(output))
    assert finding.code == "NVIDIA_SMI_FAILED"
    assert "Driver/library version mismatch; NVML library version: 570.124" in finding.message


# --- item 5: a process name XML cannot hold ------------------------------------------------------------


def _spoiled(text: str) -> str:
    start = text.index("<process_name>") + len("<process_name>")
    return text[:start] + "\x1b[31m" + text[start:]


def test_a_raw_escape_in_a_process_name_does_not_hide_the_processes() -> None:
    original = fx.text(V100)
    spoiled = _spoiled(original)
    assert spoiled != original
    result = parse_saved_output(spoiled)
    assert result.gpu_source == "nvidia-smi-xml"
    assert len(result.gpus[0].processes) == len(parse_saved_output(original).gpus[0].processes) == 4
    assert "\ufffd[31m" in (result.gpus[0].processes[0].name or "")
    (issue,) = result.issues
    assert issue.kind == "recovered" and "control characters" in issue.message
    # In the collector too: the XML section is read, not dropped for the CSV one.
    output = collector_output([Block("nvidia-smi-xml", 0, spoiled), Block("nvidia-smi-csv", 0, "")])
    probe = parse_collector_output(output)
    assert probe.gpu_source == "nvidia-smi-xml" and len(probe.gpus[0].processes) == 4
    assert any(i.kind == "recovered" for i in probe.issues)


def test_processes_from_csv_are_unknown_not_none(cli: Cli, tmp_path: Path) -> None:
    result = parse_saved_output(fx.text(H100_CSV))
    assert result.gpus and not any(g.processes_known for g in result.gpus)
    assert [f.code for f in findings(result)] == ["GPU_PROCESSES_UNKNOWN"]
    document = json.loads(cli("smi", "--from-file", str(fx.path(H100_CSV)), "-o", "json").out)
    assert all(gpu["processes"] is None for gpu in document["results"][0]["gpus"])
    table = cli("smi", "--from-file", str(fx.path(H100_CSV)))
    lines = table.out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[-1:] == ["PROCS"])
    procs = [line.split()[-1] for line in lines[header + 1 :] if line.startswith("-")]
    assert procs and set(procs) == {"?"}, table.out


# --- item 6: values and counts nvidia-smi gives -----------------------------------------------------------


def test_cuda_not_found_is_null() -> None:
    text = fx.text(V100)
    start, end = text.index("<cuda_version>"), text.index("</cuda_version>")
    assert parse_saved_output(text).cuda_version == "11.2"
    result = parse_saved_output(text[:start] + "<cuda_version>Not Found" + text[end:])
    assert result.cuda_version is None


def test_fewer_gpus_than_attached_are_said_to_be_missing() -> None:
    # A real file: attached_gpus 4, one <gpu> listed (a saved output: it may be `-i 0`, so a warning).
    saved = parse_saved_output(fx.text("nvidia-smi/xml/telegraf__a100-sxm4-80gb__535.54.03__mig.xml"))
    (missing,) = [f for f in findings(saved) if f.code == "GPU_MISSING"]
    assert missing.severity == "warning" and "counts 4 attached GPUs but lists 1" in missing.message
    # From our collector (it asks for every GPU) the same is an error.
    xml = fx.text("nvidia-smi/xml/telegraf__a100-sxm4-80gb__535.54.03__mig.xml")
    probe = parse_collector_output(collector_output([Block("nvidia-smi-xml", 0, xml)]))
    (missing,) = [f for f in findings(probe) if f.code == "GPU_MISSING"]
    assert missing.severity == "error"
    # As many listed as attached: nothing said.
    assert not [f for f in findings(parse_saved_output(fx.text(V100))) if f.code == "GPU_MISSING"]
