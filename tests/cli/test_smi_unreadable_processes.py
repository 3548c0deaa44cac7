"""A process name nvidia-smi wrote raw (a control byte, a `<`) must not hide a node's processes, and a node
whose processes could not be read never reads as `ok` (issue 36, item 6).

The XML is a real `nvidia-smi -q -x` fixture (tests/fixtures/probe/nvidia-smi/xml) with the hostile bytes put
into its first process name here, at test time: the fixture file itself is never edited. The runs go through
the whole path: the collector's output served as a debug pod's log by the simulated kubelet, read by a live
`kubectl gpu smi`."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kubectl_gpu.core.analyses.smi import SmiResult
from kubectl_gpu.core.probe import parse_collector_output, parse_saved_output
from kubectl_gpu.render.smi_view import smi_view
from tests.conftest import Result
from tests.hostile import unsafe_in
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import write_kubeconfig
from tests.kube.kubelet import (
    L4_CGROUPS,
    Block,
    SimulatedKubelet,
    collector_output,
    debug_pods,
    fixture,
    gpu_node,
    wait_for,
)

Cli = Callable[..., Result]
L4_XML = "nvidia-smi/xml/datarhei-core__2x-nvidia-l4__555.42.06__v12__ffmpeg-procs.xml"  # 2 GPUs, 3 processes
V100_XML = "nvidia-smi/xml/datakit__tesla-v100-pcie-32gb__460.39__4procs.xml"  # 1 GPU, 4 processes
H100_CSV = "nvidia-smi/csv/gpuexporter__h100-80gb-hbm3__590.48.01__query-gpu__load.csv"
#: SOH and a CSI (ESC [ 31 m): bytes XML 1.0 cannot hold, raw; nvidia-smi writes process names as they are.
CONTROL = "\x01\x1b[31m"
#: Closing tags in a name: the document's structure breaks, which no lenient read mends.
BEYOND_REPAIR = "\x01</process_name></process_info></processes>"


def _spoiled(text: str, inserted: str) -> str:
    start = text.index("<process_name>") + len("<process_name>")
    return text[:start] + inserted + text[start:]


def _output(xml: str, *, csv: str = "") -> str:
    """The collector's output for a node with this XML (and this `--query-gpu` CSV)."""
    return collector_output(
        [
            Block("nvidia-smi-xml", 0, xml),
            Block("nvidia-smi-csv", 0, csv),
            Block("nvidia-smi-list", 0, ""),
            Block("pid-cgroups", 0, fixture(L4_CGROUPS)),
        ]
    )


# --- the parser, and the status on its own ----------------------------------------------------------------------


@pytest.mark.parametrize("inserted", ["\x01", "\x1b[2J", "\x7f\x01\x02", "py -c '<x>' && true"])
def test_a_process_name_nvidia_smi_wrote_raw_keeps_every_process(inserted: str) -> None:
    original = parse_saved_output(fixture(V100_XML))
    result = parse_saved_output(_spoiled(fixture(V100_XML), inserted))
    assert result.gpu_source == "nvidia-smi-xml"
    assert [p.pid for p in result.gpus[0].processes] == [p.pid for p in original.gpus[0].processes]
    assert len(result.gpus[0].processes) == 4 and result.gpus[0].processes_known
    (issue,) = result.issues
    assert issue.kind == "recovered" and issue.section == "nvidia-smi-xml"
    name = result.gpus[0].processes[0].name or ""
    assert name.endswith(original.gpus[0].processes[0].name or "?")
    assert not any("\x00" <= c < " " for c in name)  # what XML cannot hold was replaced (U+FFFD)


def test_a_node_whose_processes_could_not_be_read_is_partial_never_ok() -> None:
    probe = parse_collector_output(_output(_spoiled(fixture(L4_XML), BEYOND_REPAIR), csv=fixture(H100_CSV)))
    assert probe.gpu_source == "nvidia-smi-csv" and probe.gpus
    result = SmiResult("i-0aaa", "privileged-all", probe)
    assert result.processes_unknown
    view = smi_view([result])
    summary = view.out.tables()[0]
    assert summary.cell(summary.rows[0], "status").text == "partial"
    note = next(n for n in result.all_notes() if n.startswith("processes of every GPU unknown"))
    assert "the nvidia-smi XML could not be read (nvidia-smi XML: malformed XML" in note
    assert "GPU facts from nvidia-smi-csv, which lists no processes" in note
    # Read in full, the same node is ok.
    read = SmiResult("i-0aaa", "privileged-all", parse_collector_output(_output(fixture(L4_XML))))
    assert not read.processes_unknown
    summary = smi_view([read]).out.tables()[0]
    assert summary.cell(summary.rows[0], "status").text == "ok"


# --- live, end to end -------------------------------------------------------------------------------------------


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[SimulatedKubelet, Path]]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    with FakeKubeAPI() as api, SimulatedKubelet(api, delay=0.02) as kubelet:
        api.add(gpu_node("i-0aaa"), gpu_node("i-0bbb"))
        kubelet.outputs["i-0aaa"] = _output(_spoiled(fixture(L4_XML), CONTROL))
        kubelet.outputs["i-0bbb"] = _output(_spoiled(fixture(L4_XML), BEYOND_REPAIR), csv=fixture(H100_CSV))
        yield kubelet, write_kubeconfig(tmp_path / "kubeconfig", api.url)
        assert wait_for(lambda: not debug_pods(api), timeout=3.0), debug_pods(api)


def test_smi_keeps_the_processes_and_says_what_it_could_not_read(
    cli: Cli, cluster: tuple[SimulatedKubelet, Path]
) -> None:
    _, kubeconfig = cluster
    result = cli("smi", "i-0aaa", "i-0bbb", "--kubeconfig", str(kubeconfig))
    assert result.code == 0, result.err
    assert unsafe_in(result.out + result.err) == []
    lines = result.out.splitlines()
    status = {line.split()[0]: line.split()[-1] for line in lines[1:3]}
    assert status == {"i-0aaa": "ok", "i-0bbb": "partial"}, result.out
    processes = [line for line in lines if line.startswith("i-0aaa ") and line.split()[2].isdigit()]
    assert [line.split()[2] for line in processes] == ["10131", "13597", "16870"], result.out
    assert "\ufffd\ufffd[31mffmpeg" in processes[0]  # the control bytes replaced, the name kept
    gpu_rows = [line for line in lines if line.startswith("i-0bbb ") and "NVIDIA H100" in line]
    assert gpu_rows and all(line.split()[-1] == "?" for line in gpu_rows), result.out
    assert "note: nvidia-smi's XML was not well-formed, recovered: 2 character(s)" in result.err
    assert (
        "note: processes of every GPU unknown (PROCS ?), not none: the nvidia-smi XML could not be read"
        in (result.err)
    )


def test_smi_json_has_the_processes_and_null_where_unknown(
    cli: Cli, cluster: tuple[SimulatedKubelet, Path]
) -> None:
    _, kubeconfig = cluster
    result = cli("smi", "i-0aaa", "i-0bbb", "--kubeconfig", str(kubeconfig), "-o", "json")
    assert result.code == 0, result.err
    by_node = {r["node"]: r for r in json.loads(result.out)["results"]}
    kept = by_node["i-0aaa"]
    assert [p["pid"] for gpu in kept["gpus"] for p in gpu["processes"]] == [10131, 13597, 16870]
    assert [i["kind"] for i in kept["issues"] if i["section"] == "nvidia-smi-xml"] == ["recovered"]
    unknown = by_node["i-0bbb"]
    assert unknown["gpus"] and all(gpu["processes"] is None for gpu in unknown["gpus"])
    assert any(n.startswith("processes of every GPU unknown") for n in unknown["notes"])
    assert [i["kind"] for i in unknown["issues"] if i["section"] == "nvidia-smi-xml"] == ["parse"]
