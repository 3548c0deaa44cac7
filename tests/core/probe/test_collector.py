"""Splitting the collector's output and combining its sections, on outputs built from real fixtures."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from kubectl_gpu.core.probe import (
    SECTION_NAMES,
    ProbeParseError,
    parse_collector_output,
    parse_nvidia_driver_version,
    parse_os_release,
    split_sections,
)

from . import _fixtures as fx

RUN_ID = "3f9c0a7d5e1b2c4a"


@dataclass(frozen=True)
class Block:
    name: str
    rc: int
    body: str
    stderr: str = ""


def collector_output(blocks: list[Block], *, run_id: str = RUN_ID, done: bool = True) -> str:
    """Exactly what collector.sh prints for these command results."""
    out = [f"===KUBECTL-GPU:COLLECTOR v1 id={run_id}===\n"]
    for b in blocks:
        out.append(f"===KUBECTL-GPU:BEGIN {b.name} rc={b.rc} id={run_id}===\n{b.body}\n")
        if b.stderr:
            out.append(f"===KUBECTL-GPU:STDERR {b.name} id={run_id}===\n{b.stderr}\n")
        out.append(f"===KUBECTL-GPU:END {b.name} id={run_id}===\n")
    if done:
        out.append(f"===KUBECTL-GPU:DONE id={run_id}===\n")
    return "".join(out)


def h100_mig_node() -> list[Block]:
    """A node from the gpuexporter H100 MIG capture (no XML there: nvidia-smi -q -x fails) plus storage."""
    return [
        Block("nvidia-smi-xml", 2, "", "Unable to determine the device handle for GPU0000:00:09.0: Unknown Error"),
        Block("nvidia-smi-csv", 0, fx.text("nvidia-smi/csv/gpuexporter__h100-80gb-hbm3-mig__590.48.01__query-gpu__load.csv")),
        Block("nvidia-smi-list", 0, fx.text("nvidia-smi/list/gpuexporter__h100-80gb-hbm3-mig__590.48.01__L__capabilities.txt")),
        Block("nvidia-smi-topo", 0, fx.text("nvidia-smi/topo/gpuexporter__h100-80gb-hbm3-mig__590.48.01__topo-m__capabilities.txt")),
        Block("pid-cgroups", 0, ""),  # no GPU process in the CSV: nothing to read
        Block("driver-version", 0, fx.text("ours/driver-version/ours__proc-driver-nvidia-version__proprietary-535.txt")),
        Block("lsblk", 0, fx.text("storage/gpud__lsblk-J__8x-nvme-7T-md0-raid0.json")),
        Block("mdstat", 0, fx.text("ours/mdstat/ours__mdstat__raid0-2x-nvme.txt")),
        Block("findmnt", 0, fx.text("ours/findmnt/ours__findmnt-J__md127-mounted.json")),
        Block("uname", 0, "6.1.119-129.201.amzn2023.x86_64\n"),
        Block("os-release", 0, fx.text("ours/os-release/ours__os-release__al2023.txt")),
    ]  # fmt: skip


def l4_xml_node() -> list[Block]:
    """The datarhei 2x L4 XML, a failing CSV query, Bottlerocket, no md arrays, a Neuron section."""
    return [
        Block("nvidia-smi-xml", 0, fx.text("nvidia-smi/xml/datarhei-core__2x-nvidia-l4__555.42.06__v12__ffmpeg-procs.xml")),
        Block("nvidia-smi-csv", 2, fx.text("ours/garbled/ours__nvidia-smi-csv__invalid-field.txt")),
        Block("nvidia-smi-list", 0, ""),
        Block("nvidia-smi-topo", 0, fx.text("ours/topo/ours__topo-m__8x-a100-nv12-4-nic__p4d-like.txt")),
        Block("pid-cgroups", 0, fx.text("ours/cgroup/ours__pid-cgroups__v2-systemd-containerd__matches-l4-xml.txt")),
        Block("driver-version", 0, fx.text("ours/driver-version/ours__proc-driver-nvidia-version__open-570-aarch64.txt")),
        Block("lsblk", 0, fx.text("storage/gpud__lsblk-J__8x-nvme-intel-ssd.json")),
        Block("mdstat", 1, "", "cat: /proc/mdstat: No such file or directory"),
        Block("findmnt", 127, "", "sh: 1: findmnt: not found"),
        Block("uname", 0, "6.1.119\n"),
        Block("os-release", 0, fx.text("ours/os-release/ours__os-release__bottlerocket-nvidia.txt")),
        Block("neuron-ls", 0, fx.text("neuron/all-smi__neuron-ls-json-output__trn1.2xlarge__no-trailing-newline.json")),
    ]  # fmt: skip


def test_split_gives_every_section_byte_for_byte() -> None:
    blocks = l4_xml_node()
    sections = split_sections(collector_output(blocks))
    assert list(sections) == [b.name for b in blocks] == list(SECTION_NAMES)
    for b in blocks:
        sec = sections[b.name]
        assert (sec.name, sec.rc, sec.body, sec.stderr, sec.truncated) == (
            b.name,
            b.rc,
            b.body,
            b.stderr,
            False,
        )
    # neuron-ls prints no trailing newline; the body keeps that exactly
    assert not sections["neuron-ls"].body.endswith("\n")


def test_split_accepts_bytes_and_crlf() -> None:
    text = collector_output(h100_mig_node())
    assert split_sections(text.encode()) == split_sections(text)
    crlf = split_sections(text.replace("\n", "\r\n"))
    assert list(crlf) == list(split_sections(text))
    assert crlf["mdstat"].body == fx.text("ours/mdstat/ours__mdstat__raid0-2x-nvme.txt").replace("\n", "\r\n")
    assert parse_collector_output(text.replace("\n", "\r\n")).gpus == parse_collector_output(text).gpus


def test_csv_node_combines_list_topology_storage() -> None:
    result = parse_collector_output(collector_output(h100_mig_node()))
    assert result.complete and result.collector_version == "v1"
    assert result.gpu_source == "nvidia-smi-csv"
    assert (result.driver_version, result.cuda_version) == ("590.48.01", None)
    (gpu,) = result.gpus
    assert (gpu.name, gpu.memory_total_mib, gpu.mig_mode) == ("NVIDIA H100 80GB HBM3", 81559, "Enabled")
    assert [m.profile_name for m in gpu.mig_devices] == ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]
    assert result.kernel_driver is not None and result.kernel_driver.version == "535.161.08"
    assert result.topology is not None and result.topology.devices == ("GPU0",)
    assert result.block_devices is not None
    assert [r.name for r in result.block_devices.raid_devices()] == ["md0"]
    assert result.mdstat is not None and result.mdstat.arrays[0].active
    assert not result.mdstat.arrays[0].degraded
    assert result.mounts is not None and result.mounts[2].source == "/dev/md127"
    assert result.kernel_release == "6.1.119-129.201.amzn2023.x86_64"
    assert result.os_release is not None and dict(result.os_release.fields)["ID"] == "amzn"
    assert result.neuron is None
    assert [(i.section, i.kind) for i in result.issues] == [("nvidia-smi-xml", "failed")]
    assert "Unknown Error" in result.issues[0].message


def test_xml_node_with_failures() -> None:
    result = parse_collector_output(collector_output(l4_xml_node()))
    assert result.gpu_source == "nvidia-smi-xml"
    assert (result.driver_version, result.cuda_version) == ("555.42.06", "12.5")
    assert [len(g.processes) for g in result.gpus] == [2, 1]
    assert result.pid_pods == {
        10131: "4f1e25a0-7c3b-4d2e-9a61-0b8c5d7e9f12",
        13597: "8d2c4a61-3b7e-4f0a-9e15-6c2d8b0a4f37",
    }  # 16870 is a process of the node
    assert result.kernel_driver is not None and result.kernel_driver.open_kernel_module
    assert result.mdstat is None and result.mounts is None
    assert result.neuron is not None and result.neuron.devices[0].nc_count == 2
    assert (
        result.os_release is not None
        and dict(result.os_release.fields)["VARIANT_ID"] == "aws-k8s-1.29-nvidia"
    )
    kinds = {(i.section, i.kind) for i in result.issues}
    assert kinds == {
        ("nvidia-smi-csv", "failed"),
        ("nvidia-smi-csv", "parse"),
        ("nvidia-smi-list", "empty"),
        ("mdstat", "failed"),
        ("findmnt", "failed"),
    }
    assert (
        next(i.message for i in result.issues if i.section == "findmnt")
        == "exit code 127: sh: 1: findmnt: not found"
    )


def test_gpu_to_dict_contract() -> None:
    result = parse_collector_output(collector_output(l4_xml_node()))
    first = result.gpus[0].to_dict()
    assert list(first) == [
        "index",
        "name",
        "uuid",
        "memoryTotalMiB",
        "memoryUsedMiB",
        "utilizationPct",
        "temperatureC",
        "powerW",
        "migMode",
        "processes",
    ]
    assert first["processes"] == [
        {"pid": 10131, "name": "ffmpeg", "usedMemoryMiB": 389, "pod": None},
        {"pid": 13597, "name": "ffmpeg", "usedMemoryMiB": 1054, "pod": None},
    ]


def test_missing_section() -> None:
    blocks = [b for b in h100_mig_node() if b.name != "mdstat"]
    text = collector_output(blocks)
    assert "mdstat" not in split_sections(text)
    result = parse_collector_output(text)
    assert result.mdstat is None
    assert ("mdstat", "missing") in {(i.section, i.kind) for i in result.issues}
    # neuron-ls is optional: its absence is not an issue
    assert "neuron-ls" not in {i.section for i in result.issues}


def test_failing_command_keeps_rc_and_stderr() -> None:
    blocks = h100_mig_node()
    blocks[3] = Block("nvidia-smi-topo", 3, "", "NVML: topology not supported\n")
    sections = split_sections(collector_output(blocks))
    topo = sections["nvidia-smi-topo"]
    assert (topo.rc, topo.body, topo.stderr) == (3, "", "NVML: topology not supported\n")
    result = parse_collector_output(collector_output(blocks))
    assert result.topology is None
    assert any(
        i.section == "nvidia-smi-topo" and i.message == "exit code 3: NVML: topology not supported"
        for i in result.issues
    )


def test_unterminated_last_section() -> None:
    text = collector_output(h100_mig_node(), done=False)
    cut = text[: text.index("===KUBECTL-GPU:END os-release") - 30]
    sections = split_sections(cut)
    assert sections["os-release"].truncated
    assert not sections["uname"].truncated
    result = parse_collector_output(cut)
    assert not result.complete
    kinds = {(i.section, i.kind) for i in result.issues}
    assert ("os-release", "truncated") in kinds
    assert ("collector", "truncated") in kinds
    assert result.gpus  # everything before the cut still parsed


def test_unterminated_section_followed_by_another() -> None:
    text = collector_output(h100_mig_node())
    text = text.replace(f"===KUBECTL-GPU:END lsblk id={RUN_ID}===\n", "")
    sections = split_sections(text)
    assert sections["lsblk"].truncated
    assert not sections["mdstat"].truncated
    result = parse_collector_output(text)
    assert result.block_devices is not None  # the body is complete JSON; only the marker was lost
    assert result.mdstat is not None


def test_truncated_xml_section_falls_back_to_csv() -> None:
    blocks = h100_mig_node()
    xml = fx.text("nvidia-smi/xml/telegraf__a100-sxm4-80gb__535.54.03__mig.xml")
    blocks[0] = Block("nvidia-smi-xml", 0, xml[: len(xml) // 2])
    result = parse_collector_output(collector_output(blocks))
    assert result.gpu_source == "nvidia-smi-csv"
    assert any(i.section == "nvidia-smi-xml" and i.kind == "parse" for i in result.issues)


def test_list_is_the_last_resort() -> None:
    blocks = h100_mig_node()
    blocks[1] = Block("nvidia-smi-csv", 0, "garbage")
    result = parse_collector_output(collector_output(blocks))
    assert result.gpu_source == "nvidia-smi-list"
    assert [(g.index, g.name) for g in result.gpus] == [(0, "NVIDIA H100 80GB HBM3")]
    assert len(result.gpus[0].mig_devices) == 4
    assert result.driver_version == "535.161.08"  # from /proc/driver/nvidia/version


def test_xml_completed_from_csv_and_list() -> None:
    blocks = [
        Block(
            "nvidia-smi-xml",
            0,
            fx.text("ours/xml/ours__nvidia-smi-q-x__h100-mig-procs-errors-kmd__SYNTHETIC.xml"),
        ),
        Block("nvidia-smi-csv", 0, fx.text("ours/csv/ours__query-gpu__collector-fields__header-units.csv")),
        Block("nvidia-smi-list", 0, fx.text("ours/list/ours__L__2x-h100-mig__matches-synthetic-xml.txt")),
    ]
    result = parse_collector_output(collector_output(blocks))
    mig_gpu, broken = result.gpus
    assert [(m.gpu_instance_id, m.profile_name) for m in mig_gpu.mig_devices] == [
        (2, "3g.40gb"),
        (9, "1g.10gb"),
    ]
    assert mig_gpu.mig_devices[0].uuid == "MIG-aaaaaaaa-0000-5000-8000-000000000000"
    assert mig_gpu.clock_event_reasons == ("sw_power_cap", "hw_thermal_slowdown")  # from XML, not CSV
    # the broken GPU has no persistence / compute / MIG mode / ECC in the XML: they come from the CSV
    assert (broken.persistence_mode, broken.compute_mode, broken.mig_mode) == (
        "Enabled",
        "Default",
        "Disabled",
    )
    assert broken.ecc is not None and broken.ecc.mode_current == "Enabled"
    assert broken.memory_total_mib is None  # [Unknown Error] in both
    assert (result.driver_version, result.cuda_version) == ("610.57.04", "13.3")


def test_garbled_marker_lines() -> None:
    text = collector_output(h100_mig_node())
    text = text.replace(
        f"===KUBECTL-GPU:BEGIN mdstat rc=0 id={RUN_ID}===", "===KUBECTL-GPU:BEGN mdstat rc=0==="
    )
    text = text.replace(f"BEGIN uname rc=0 id={RUN_ID}", f"BEGIN uname rc=x1 id={RUN_ID}")
    sections = split_sections(text)
    assert "mdstat" not in sections
    assert sections["uname"].rc is None
    result = parse_collector_output(text)
    kinds = {(i.section, i.kind) for i in result.issues}
    assert ("mdstat", "missing") in kinds and ("uname", "failed") in kinds
    assert result.kernel_release == "6.1.119-129.201.amzn2023.x86_64"  # the body itself is intact


def test_markers_of_another_run_are_output() -> None:
    inner = collector_output([Block("uname", 0, "nested")], run_id="ffff0000")
    blocks = h100_mig_node()
    blocks[[b.name for b in blocks].index("os-release")] = Block("os-release", 0, inner)
    sections = split_sections(collector_output(blocks))
    assert sections["os-release"].body == inner
    assert sections["uname"].body == "6.1.119-129.201.amzn2023.x86_64\n"


def test_noise_before_the_header_and_duplicates() -> None:
    text = collector_output(h100_mig_node())
    dup = f"===KUBECTL-GPU:BEGIN uname rc=0 id={RUN_ID}===\nsecond\n===KUBECTL-GPU:END uname id={RUN_ID}===\n"
    text = 'Defaulted container "debugger" out of: debugger\n' + text.replace(
        "===KUBECTL-GPU:DONE", dup + "===KUBECTL-GPU:DONE"
    )
    sections = split_sections(text)
    assert sections["uname"].body == "6.1.119-129.201.amzn2023.x86_64\n"  # the first one wins
    assert parse_collector_output(text).collector_version == "v1"


def test_without_header() -> None:
    text = collector_output(h100_mig_node())
    text = text.split("\n", 1)[1]
    assert len(split_sections(text)) == 11
    result = parse_collector_output(text)
    assert ("collector", "missing") in {(i.section, i.kind) for i in result.issues}
    assert result.gpus


@pytest.mark.parametrize(
    "text", ["", "hello\n", "===KUBECTL-GPU:END lsblk===\n", "===KUBECTL-GPU:BEGIN ===\n"]
)
def test_nothing_usable(text: str) -> None:
    result = parse_collector_output(text)
    assert result.gpus == () and result.gpu_source is None
    assert len([i for i in result.issues if i.kind == "missing"]) == len(SECTION_NAMES)  # 11 + collector


def test_empty_section_with_rc_zero() -> None:
    result = parse_collector_output(collector_output([Block("uname", 0, "")]))
    assert ("uname", "empty") in {(i.section, i.kind) for i in result.issues}


DRIVER = "ours/driver-version/"


def test_driver_version_file() -> None:
    proprietary = parse_nvidia_driver_version(
        fx.data(DRIVER + "ours__proc-driver-nvidia-version__proprietary-535.txt")
    )
    assert (proprietary.version, proprietary.open_kernel_module, proprietary.arch) == (
        "535.161.08",
        False,
        "x86_64",
    )
    assert proprietary.gcc_version == "11.4.0"
    open_module = parse_nvidia_driver_version(
        fx.data(DRIVER + "ours__proc-driver-nvidia-version__open-570-aarch64.txt")
    )
    assert (open_module.version, open_module.open_kernel_module, open_module.arch) == (
        "570.133.20",
        True,
        "aarch64",
    )


@pytest.mark.parametrize(
    "text",
    [
        "",
        fx.text("ours/garbled/ours__proc-driver-nvidia-version__missing.txt"),
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  malformed\n",
    ],
)
def test_driver_version_rejects(text: str) -> None:
    with pytest.raises(ProbeParseError):
        parse_nvidia_driver_version(text)


def test_os_release() -> None:
    al = parse_os_release(fx.data("ours/os-release/ours__os-release__al2023.txt"))
    fields = dict(al.fields)
    assert (fields["ID"], fields["VERSION_ID"], fields["PRETTY_NAME"]) == (
        "amzn",
        "2023",
        "Amazon Linux 2023.6.20250107",
    )
    with pytest.raises(ProbeParseError):
        parse_os_release("this is not os-release")
