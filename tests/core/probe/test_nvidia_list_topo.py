"""nvidia-smi -L and nvidia-smi topo -m."""

from __future__ import annotations

import pytest

from kubectl_gpu.core.probe import ProbeParseError, Topology, parse_nvidia_smi_list, parse_nvidia_smi_topo

from . import _fixtures as fx

LIST = "nvidia-smi/list/"
TOPO = "nvidia-smi/topo/"

MASKED = "GPU-00000000-0000-0000-0000-000000000000"

#: -L fixtures: [(GPU index, name, UUID, [MIG profiles])]
LISTS: dict[str, list[tuple[int, str, str, list[str]]]] = {
    "cloud-native-docs__a100-40gb-mig-7x1g.5gb__L__old-uuid-format.txt": [
        (0, "A100-SXM4-40GB", "GPU-4200ccc0-2667-d4cb-9137-f932c716232a", ["1g.5gb"] * 7)
    ],
    "cloud-native-docs__h100-mig-7x1g.10gb__L.txt": [
        (0, "NVIDIA H100 80GB HBM3", "GPU-b4895dbf-9350-2524-a89b-98161ddd9fe4", ["1g.10gb"] * 7)
    ],
    "cloud-native-docs__h100-mig-mixed__L.txt": [
        (
            0,
            "NVIDIA H100 80GB HBM3",
            "GPU-b4895dbf-9350-2524-a89b-98161ddd9fe4",
            ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"],
        )
    ],
    "gpuexporter__h100-80gb-hbm3-mig__590.48.01__L__capabilities.txt": [
        (0, "NVIDIA H100 80GB HBM3", MASKED, ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"])
    ],
    "gpuexporter__h100-80gb-hbm3__590.48.01__L__capabilities.txt": [(0, "NVIDIA H100 80GB HBM3", MASKED, [])],
    "gpuexporter__h200-mig__590.48.01__L__capabilities.txt": [
        (0, "NVIDIA H200", MASKED, ["1c.3g.71gb", "2c.3g.71gb", "2g.35gb", "1g.18gb", "1g.18gb"])
    ],
    "gpuexporter__h200__590.48.01__L__capabilities.txt": [(0, "NVIDIA H200", MASKED, [])],
    "gpuexporter__l40s__595.80__L__capabilities.txt": [(0, "NVIDIA L40S", MASKED, [])],
    "gpuexporter__rtx-2080-super__610.57.04__L__capabilities.txt": [
        (0, "NVIDIA GeForce RTX 2080 SUPER", MASKED, [])
    ],
}


def test_every_list_fixture_is_in_the_table() -> None:
    assert sorted(LISTS) == fx.names("nvidia-smi/list")


@pytest.mark.parametrize("name", sorted(LISTS))
def test_real_list(name: str) -> None:
    gpus = parse_nvidia_smi_list(fx.data(LIST + name))
    got = [(g.index, g.name, g.uuid, [m.profile for m in g.mig_devices]) for g in gpus]
    assert got == LISTS[name]
    for gpu in gpus:
        assert [m.index for m in gpu.mig_devices] == list(range(len(gpu.mig_devices)))
        assert all(m.uuid.startswith("MIG-") for m in gpu.mig_devices)


def test_old_mig_uuid_format_carries_instance_ids() -> None:
    gpu = parse_nvidia_smi_list(
        fx.data(LIST + "cloud-native-docs__a100-40gb-mig-7x1g.5gb__L__old-uuid-format.txt")
    )[0]
    assert [(m.gpu_instance_id, m.compute_instance_id) for m in gpu.mig_devices] == [
        (gi, 0) for gi in range(7, 14)
    ]
    assert gpu.mig_devices[0].uuid == "MIG-GPU-4200ccc0-2667-d4cb-9137-f932c716232a/7/0"


def test_new_mig_uuid_format_has_no_instance_ids() -> None:
    gpu = parse_nvidia_smi_list(fx.data(LIST + "cloud-native-docs__h100-mig-mixed__L.txt"))[0]
    assert gpu.mig_devices[1].uuid == "MIG-56c30729-347f-5dd6-8da0-c3cc59e969e0"
    assert gpu.mig_devices[1].gpu_instance_id is None


def test_several_gpus_and_warning_lines() -> None:
    text = (
        "WARNING: infoROM is corrupted at gpu 0000:00:1E.0\n"
        "GPU 0: Tesla T4 (UUID: GPU-d37e67a5-91dd-3774-a5cb-99096249601a)\n"
        "GPU 1: Tesla T4 (UUID: GPU-304a277d-3545-63b8-3a36-dfde3c992989)\n"
    )
    assert [g.index for g in parse_nvidia_smi_list(text)] == [0, 1]


@pytest.mark.parametrize(
    "rel",
    [
        "ours/garbled/ours__nvidia-smi__driver-not-loaded.txt",
        "ours/garbled/ours__nvidia-smi__no-devices.txt",
        "ours/garbled/ours__nvidia-smi__nvml-version-mismatch.txt",
        "nvidia-smi/topo/gpuexporter__l40s__595.80__topo-m__capabilities.txt",
    ],
)
def test_list_rejects(rel: str) -> None:
    with pytest.raises(ProbeParseError) as info:
        parse_nvidia_smi_list(fx.data(rel))
    assert str(info.value).startswith("nvidia-smi -L: ")


@pytest.mark.parametrize("name", sorted(LISTS))
def test_list_cut_mid_line_raises(name: str) -> None:
    text = fx.text(LIST + name).rstrip()
    with pytest.raises(ProbeParseError):
        parse_nvidia_smi_list(text[: len(text) - 10])


def test_list_mig_line_first_raises() -> None:
    with pytest.raises(ProbeParseError, match="before"):
        parse_nvidia_smi_list(
            "  MIG 1g.10gb     Device  0: (UUID: MIG-3f6f389f-b0cc-5e5c-8e32-eaa8fd067902)\n"
        )


#: topo fixtures: (devices, CPU affinity of GPU0, NUMA affinity of GPU0)
TOPOS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "gpuexporter__h100-80gb-hbm3-mig__590.48.01__topo-m__capabilities.txt": (("GPU0",), "0-19", "0"),
    "gpuexporter__h100-80gb-hbm3__590.48.01__topo-m__capabilities.txt": (("GPU0",), "0-19", "0"),
    "gpuexporter__h200-mig__590.48.01__topo-m__capabilities.txt": (("GPU0",), "0-23", "0"),
    "gpuexporter__h200__590.48.01__topo-m__capabilities.txt": (("GPU0",), "0-23", "0"),
    "gpuexporter__l40s__595.80__topo-m__capabilities.txt": (("GPU0",), "0-7", "0"),
    "gpuexporter__rtx-2080-super__610.57.04__topo-m__capabilities.txt": (("GPU0",), "0-23", "0"),
}


def link(topo: Topology, a: str, b: str) -> str | None:
    """The link type the matrix gives between devices ``a`` and ``b`` (``None`` if either is unknown)."""
    row = next((r for r in topo.rows if r.name == a), None)
    return None if row is None else next((x.link for x in row.links if x.peer == b), None)


def test_every_topo_fixture_is_in_the_table() -> None:
    assert sorted(TOPOS) == fx.names("nvidia-smi/topo")


@pytest.mark.parametrize("name", sorted(TOPOS))
def test_real_topo(name: str) -> None:
    devices, cpu, numa = TOPOS[name]
    topo = parse_nvidia_smi_topo(fx.data(TOPO + name))
    assert topo.devices == devices
    assert topo.rows[0].cpu_affinity == cpu
    assert topo.rows[0].numa_affinity == numa
    assert topo.rows[0].gpu_numa_id is None  # N/A, after the doubled tab
    assert link(topo, "GPU0", "GPU0") == "X"
    assert topo.nics == ()


def test_eight_gpus_four_nics() -> None:
    topo = parse_nvidia_smi_topo(fx.data("ours/topo/ours__topo-m__8x-a100-nv12-4-nic__p4d-like.txt"))
    assert topo.devices[:8] == tuple(f"GPU{i}" for i in range(8))
    assert topo.devices[8:] == ("NIC0", "NIC1", "NIC2", "NIC3")
    assert link(topo, "GPU0", "GPU7") == "NV12"
    assert topo.rows[0].links[7].link == "NV12"
    assert link(topo, "GPU0", "NIC0") == "PXB"
    assert link(topo, "GPU2", "NIC0") == "NODE"
    assert link(topo, "GPU4", "NIC0") == "SYS"
    assert link(topo, "NIC3", "NIC3") == "X"
    assert link(topo, "GPU0", "GPU9") is None
    assert [(r.cpu_affinity, r.numa_affinity) for r in topo.rows[3:5]] == [
        ("0-23,48-71", "0"),
        ("24-47,72-95", "1"),
    ]
    assert topo.rows[8].cpu_affinity is None  # NIC rows have no affinity cells
    assert [(n.name, n.device) for n in topo.nics] == [
        ("NIC0", "rdmap16s27"),
        ("NIC1", "rdmap32s27"),
        ("NIC2", "rdmap144s27"),
        ("NIC3", "rdmap160s27"),
    ]


@pytest.mark.parametrize(
    "rel",
    [
        "ours/garbled/ours__topo-m__TRUNCATED.txt",
        "ours/garbled/ours__nvidia-smi__driver-not-loaded.txt",
        "ours/garbled/ours__nvidia-smi__nvml-version-mismatch.txt",
        "nvidia-smi/list/gpuexporter__h200__590.48.01__L__capabilities.txt",
    ],
)
def test_topo_rejects(rel: str) -> None:
    with pytest.raises(ProbeParseError) as info:
        parse_nvidia_smi_topo(fx.data(rel))
    assert str(info.value).startswith("nvidia-smi topo -m: ")


def test_topo_missing_rows_raise() -> None:
    text = fx.text("ours/topo/ours__topo-m__8x-a100-nv12-4-nic__p4d-like.txt")
    lines = text.split("\n")
    with pytest.raises(ProbeParseError, match="do not match"):
        parse_nvidia_smi_topo("\n".join(lines[:5]))
