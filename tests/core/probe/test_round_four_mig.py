"""Issue 37, cause 10: what a capture cannot say is unknown, and nothing more.

Real captures (tests/fixtures/probe, PROVENANCE.jsonl; utkuozdemir/nvidia_gpu_exporter, commit
e656cd81a180e7e0e7862b53c9acd4c2fb0f590b, driver 590.48.01):
- `--query-gpu` CSV of an H100 80GB HBM3 and an H200 with MIG enabled: the CSV has MIG mode but no field for
  MIG devices, so they are unknown (null), not none; the H100 and H200 with MIG disabled: none, known;
- `nvidia-smi -q` of the same MIG-enabled boards at idle: whole-GPU "FB Memory Usage / Used" 59 MiB (H100,
  4 instances) and 55 MiB (H200, 5 instances) with "Processes: None", against 0 MiB for the same boards
  with MIG disabled: MIG's own reservation, not a process.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import msgspec
import pytest

from kubectl_gpu.core.analyses.smi import findings
from kubectl_gpu.core.analyses.smi.analysis import MIG_RESERVED_MAX_MIB
from kubectl_gpu.core.probe import parse_saved_output
from tests.conftest import Result

from . import _fixtures as fx

Cli = Callable[..., Result]
MIG_CSV = {
    "h100": "nvidia-smi/csv/gpuexporter__h100-80gb-hbm3-mig__590.48.01__query-gpu__load.csv",
    "h200": "nvidia-smi/csv/gpuexporter__h200-mig__590.48.01__query-gpu__load.csv",
}
MIG_IDLE_Q = {
    "h100": "nvidia-smi/q-text/gpuexporter__h100-80gb-hbm3-mig__590.48.01__q__idle.txt",
    "h200": "nvidia-smi/q-text/gpuexporter__h200-mig__590.48.01__q__idle.txt",
}
NO_MIG_CSV = "nvidia-smi/csv/gpuexporter__h100-80gb-hbm3__590.48.01__query-gpu__load.csv"


def _idle_used_mib(q_text: str) -> int:
    """The whole GPU's "FB Memory Usage / Used" of a `nvidia-smi -q` text (not a MIG device's "Shared FB")."""
    block = re.search(r"^    FB Memory Usage\n(?:\s+.*\n)*?\s+Used\s+:\s+(\d+) MiB", q_text, flags=re.M)
    assert block is not None
    return int(block.group(1))


@pytest.mark.parametrize("board", sorted(MIG_CSV))
def test_mig_devices_from_a_csv_are_unknown_not_none(board: str, cli: Cli) -> None:
    result = parse_saved_output(fx.text(MIG_CSV[board]))
    (gpu,) = result.gpus
    assert gpu.mig_mode == "Enabled" and not gpu.mig_devices_known
    assert gpu.to_dict(detail=True)["migDevices"] is None
    document = json.loads(cli("smi", "--from-file", str(fx.path(MIG_CSV[board])), "-o", "json").out)
    assert document["results"][0]["gpus"][0]["migMode"] == "Enabled"


def test_a_csv_with_mig_disabled_knows_there_are_none() -> None:
    (gpu,) = parse_saved_output(fx.text(NO_MIG_CSV)).gpus
    assert gpu.mig_mode == "Disabled" and gpu.mig_devices_known
    assert gpu.to_dict(detail=True)["migDevices"] == []


@pytest.mark.parametrize("board", sorted(MIG_CSV))
def test_mig_reservation_at_idle_is_no_sign_of_processes(board: str) -> None:
    idle = _idle_used_mib(fx.text(MIG_IDLE_Q[board]))
    assert idle == {"h100": 59, "h200": 55}[board]  # the real captures
    assert "Processes                                          : None" in fx.text(MIG_IDLE_Q[board])
    assert idle <= MIG_RESERVED_MAX_MIB
    # The same board's CSV at that memory (the CSV captures were taken under load): no process finding.
    result = parse_saved_output(fx.text(MIG_CSV[board]))
    at_idle = msgspec.structs.replace(
        result, gpus=tuple(msgspec.structs.replace(g, memory_used_mib=idle) for g in result.gpus)
    )
    assert "GPU_PROCESSES_UNKNOWN" not in [f.code for f in findings(at_idle)]
    # Under load (the real CSV as captured: 11125 / 16959 MiB) its processes are still unknown: said.
    assert "GPU_PROCESSES_UNKNOWN" in [f.code for f in findings(result)]


def test_the_same_memory_on_a_gpu_without_mig_is_still_a_sign_of_processes() -> None:
    result = parse_saved_output(fx.text(NO_MIG_CSV))
    small = msgspec.structs.replace(
        result, gpus=tuple(msgspec.structs.replace(g, memory_used_mib=55) for g in result.gpus)
    )
    assert "GPU_PROCESSES_UNKNOWN" in [f.code for f in findings(small)]


@pytest.mark.parametrize("board", sorted(MIG_CSV))
def test_the_table_says_the_instances_are_unknown(board: str, cli: Cli) -> None:
    table = cli("smi", "--from-file", str(fx.path(MIG_CSV[board]))).out
    assert "Enabled (instances ?)" in table, table
