"""nvidia-smi --query-gpu / --query-compute-apps CSV: the real ~200-field captures and our collector's list."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kubectl_gpu.core.probe import (
    QUERY_GPU_FIELDS,
    QUERY_GPU_FIELDS_BASIC,
    ProbeParseError,
    decode_clock_event_reasons,
    parse_compute_apps_csv,
    parse_query_gpu_csv,
)

from . import _fixtures as fx

CSV = "nvidia-smi/csv/"

#: query-gpu captures: (driver, name, memory.total MiB, memory.used MiB, utilization %, temp C, power W, MIG)
QUERY_GPU: dict[str, tuple[str, str, int, int, int | None, int, float, str | None]] = {
    "gpuexporter__h100-80gb-hbm3-mig__590.48.01__query-gpu__load.csv": (
        "590.48.01", "NVIDIA H100 80GB HBM3", 81559, 11125, None, 53, 433.78, "Enabled"
    ),
    "gpuexporter__h100-80gb-hbm3__590.48.01__query-gpu__load.csv": (
        "590.48.01", "NVIDIA H100 80GB HBM3", 81559, 19818, 100, 59, 631.95, "Disabled"
    ),
    "gpuexporter__h200-mig__590.48.01__query-gpu__load.csv": (
        "590.48.01", "NVIDIA H200", 143771, 16959, None, 36, 295.01, "Enabled"
    ),
    "gpuexporter__h200__590.48.01__query-gpu__load.csv": (
        "590.48.01", "NVIDIA H200", 143771, 32362, 100, 52, 627.40, "Disabled"
    ),
    "gpuexporter__l40s__595.80__query-gpu__load.csv": ("595.80", "NVIDIA L40S", 46068, 1235, 9, 54, 110.23, None),
    "gpuexporter__rtx-2080-super__610.57.04__query-gpu__load.csv": (
        "610.57.04", "NVIDIA GeForce RTX 2080 SUPER", 8192, 815, 8, 38, 98.14, None
    ),
}  # fmt: skip

#: compute-apps captures: [(pid, process name, used MiB)]
COMPUTE_APPS: dict[str, list[tuple[int, str, int]]] = {
    "gpuexporter__h100-80gb-hbm3-mig__590.48.01__compute-apps__load.csv": [
        (21180, "/root/tools/memhog", 2296),
        (21181, "/root/tools/memhog", 1272),
        (21198, "./gpu_burn", 7484),
    ],
    "gpuexporter__h100-80gb-hbm3__590.48.01__compute-apps__load.csv": [
        (11327, "/root/tools/memhog", 2566),
        (11328, "/root/tools/memhog", 1542),
        (11345, "./gpu_burn", 15690),
    ],
    "gpuexporter__h200-mig__590.48.01__compute-apps__load.csv": [
        (12249, "/root/tools/memhog", 2194),
        (12250, "/root/tools/memhog", 1170),
        (12267, "./gpu_burn", 13526),
    ],
    "gpuexporter__h200__590.48.01__compute-apps__load.csv": [
        (10291, "/root/tools/memhog", 2566),
        (10293, "/root/tools/memhog", 1542),
        (10309, "./gpu_burn", 28234),
    ],
    "gpuexporter__l40s__595.80__compute-apps__load.csv": [(20037, "ffmpeg", 538), (20038, "ffmpeg", 681)],
    "gpuexporter__rtx-2080-super__610.57.04__compute-apps__load.csv": [
        (28512, "ffmpeg", 370),
        (28511, "ffmpeg", 230),
    ],
}


def test_every_real_csv_fixture_is_in_a_table() -> None:
    assert sorted([*QUERY_GPU, *COMPUTE_APPS]) == fx.names("nvidia-smi/csv")


@pytest.mark.parametrize("name", sorted(QUERY_GPU))
def test_real_query_gpu(name: str) -> None:
    driver, gpu_name, total, used, util, temp, power, mig = QUERY_GPU[name]
    report = parse_query_gpu_csv(fx.data(CSV + name))
    assert report.driver_version == driver
    assert report.cuda_version is None
    assert len(report.gpus) == 1
    gpu = report.gpus[0]
    assert (gpu.index, gpu.name, gpu.uuid) == (0, gpu_name, "GPU-00000000-0000-0000-0000-000000000000")
    assert (gpu.memory_total_mib, gpu.memory_used_mib, gpu.utilization_pct) == (total, used, util)
    assert (gpu.temperature_c, gpu.power_w, gpu.mig_mode) == (temp, power, mig)
    assert gpu.processes == ()
    assert gpu.clock_event_reasons == ()  # 0x0000000000000000


def test_real_query_gpu_ecc_and_remapped_rows() -> None:
    gpu = parse_query_gpu_csv(
        fx.data(CSV + "gpuexporter__h100-80gb-hbm3__590.48.01__query-gpu__load.csv")
    ).gpus[0]
    assert gpu.pci_bus_id == "00000000:00:09.0"
    assert gpu.power_limit_w == 700.0
    assert gpu.persistence_mode == "Enabled"
    assert gpu.ecc is not None
    assert (gpu.ecc.mode_current, gpu.ecc.volatile_uncorrectable, gpu.ecc.aggregate_correctable) == (
        "Enabled",
        0,
        0,
    )
    assert gpu.retired_pages is None  # all [N/A] on Hopper
    assert gpu.remapped_rows is not None
    assert (gpu.remapped_rows.correctable, gpu.remapped_rows.pending, gpu.remapped_rows.failure) == (
        0,
        False,
        False,
    )


@pytest.mark.parametrize("name", sorted(COMPUTE_APPS))
def test_real_compute_apps(name: str) -> None:
    apps = parse_compute_apps_csv(fx.data(CSV + name))
    assert [(a.pid, a.process_name, a.used_memory_mib) for a in apps] == COMPUTE_APPS[name]
    assert {a.gpu_uuid for a in apps} == {"GPU-00000000-0000-0000-0000-000000000000"}


OURS = "ours/csv/"
COLLECTOR_VARIANTS = [
    "ours__query-gpu__collector-fields__header-units.csv",
    "ours__query-gpu__collector-fields__header-nounits.csv",
    "ours__query-gpu__collector-fields__noheader-nounits.csv",
    "ours__query-gpu__collector-fields__noheader-units.csv",
]


@pytest.mark.parametrize("name", COLLECTOR_VARIANTS)
def test_collector_field_list_with_and_without_header_and_units(name: str) -> None:
    report = parse_query_gpu_csv(fx.data(OURS + name))
    assert report.driver_version == "610.57.04"
    ok, broken = report.gpus
    assert (ok.index, ok.name, ok.memory_total_mib, ok.memory_used_mib) == (
        0,
        "NVIDIA H100 80GB HBM3",
        81559,
        11125,
    )
    assert (ok.utilization_pct, ok.temperature_c, ok.power_w, ok.power_limit_w) == (None, 53, 433.78, 700.0)
    assert (ok.mig_mode, ok.mig_mode_pending) == ("Enabled", "Disabled")
    assert ok.ecc is not None
    assert (ok.ecc.volatile_correctable, ok.ecc.volatile_uncorrectable) == (8, 3)
    assert (ok.ecc.aggregate_correctable, ok.ecc.aggregate_uncorrectable) == (30, 5)
    assert ok.retired_pages is None
    assert ok.remapped_rows is not None
    assert (ok.remapped_rows.correctable, ok.remapped_rows.uncorrectable) == (1, 2)
    assert (ok.remapped_rows.pending, ok.remapped_rows.failure) == (True, False)
    assert ok.clock_event_reasons == ("sw_power_cap", "hw_thermal_slowdown")  # 0x44
    assert broken.memory_total_mib is None and broken.temperature_c is None and broken.power_w is None
    assert broken.errors == ("Unknown Error", "GPU requires reset")


def test_all_collector_variants_agree() -> None:
    reports = {parse_query_gpu_csv(fx.data(OURS + name)) for name in COLLECTOR_VARIANTS}
    assert len(reports) == 1


def test_our_header_is_the_collector_field_list() -> None:
    header = fx.text(OURS + COLLECTOR_VARIANTS[0]).splitlines()[0]
    assert tuple(re.sub(r" \[.*\]$", "", cell.strip()) for cell in header.split(",")) == QUERY_GPU_FIELDS


def test_collector_script_asks_for_the_same_fields() -> None:
    script = (Path(__file__).resolve().parents[3] / "kubectl_gpu/data/collector.sh").read_text()
    full = re.search(r"^KG_FIELDS=(\S+)$", script, re.MULTILINE)
    basic = re.search(r"^KG_FIELDS_BASIC=(\S+)$", script, re.MULTILINE)
    assert full is not None and basic is not None
    assert tuple(full.group(1).split(",")) == QUERY_GPU_FIELDS
    assert tuple(basic.group(1).split(",")) == QUERY_GPU_FIELDS_BASIC


def test_basic_field_list_without_header() -> None:
    report = parse_query_gpu_csv(
        fx.data(OURS + "ours__query-gpu__basic-fields__noheader-nounits__old-driver.csv")
    )
    gpu = report.gpus[0]
    assert (report.driver_version, gpu.name, gpu.memory_total_mib, gpu.power_w) == (
        "418.87.01",
        "Tesla T4",
        15079,
        26.78,
    )
    assert gpu.mig_mode is None and gpu.ecc is None


def test_explicit_field_list() -> None:
    report = parse_query_gpu_csv(
        "0, Tesla T4, 15360\n1, Tesla T4, 15360\n", fields=["index", "name", "memory.total"]
    )
    assert [(g.index, g.name, g.memory_total_mib) for g in report.gpus] == [
        (0, "Tesla T4", 15360),
        (1, "Tesla T4", 15360),
    ]


@pytest.mark.parametrize(
    ("mask", "names"),
    [
        ("0x0000000000000000", ()),
        ("0x0000000000000001", ("gpu_idle",)),
        ("0x0000000000000044", ("sw_power_cap", "hw_thermal_slowdown")),
        ("0x00000000000000A8", ("hw_slowdown", "sw_thermal_slowdown", "hw_power_brake_slowdown")),
        ("0x0000000000001000", ("unknown_0x1000",)),
        ("[N/A]", ()),
        ("garbage", ()),
    ],
)
def test_clock_event_reason_mask(mask: str, names: tuple[str, ...]) -> None:
    assert decode_clock_event_reasons(mask) == names


@pytest.mark.parametrize(
    "rel",
    [
        "ours/garbled/ours__nvidia-smi-csv__invalid-field.txt",
        "ours/garbled/ours__nvidia-smi__no-devices.txt",
        "ours/garbled/ours__nvidia-smi__nvml-version-mismatch.txt",
        "ours/garbled/ours__nvidia-smi__driver-not-loaded.txt",
        "nvidia-smi/xml/telegraf__tesla-t4__515.105.01.xml",
    ],
)
def test_rejected_inputs(rel: str) -> None:
    with pytest.raises(ProbeParseError) as info:
        parse_query_gpu_csv(fx.data(rel))
    assert str(info.value).startswith("nvidia-smi CSV: ")


def test_empty_and_header_only_raise() -> None:
    with pytest.raises(ProbeParseError):
        parse_query_gpu_csv("")
    with pytest.raises(ProbeParseError):
        parse_query_gpu_csv("index, name, memory.total [MiB]\n")


@pytest.mark.parametrize("name", sorted(QUERY_GPU))
def test_truncated_row_raises(name: str) -> None:
    text = fx.text(CSV + name)
    second_line = text.index("\n") + 1
    with pytest.raises(ProbeParseError, match="columns"):
        parse_query_gpu_csv(text[: second_line + (len(text) - second_line) // 2])


def test_compute_apps_empty_means_no_processes() -> None:
    assert parse_compute_apps_csv("") == ()
    assert parse_compute_apps_csv("pid, process_name, used_gpu_memory [MiB]\n") == ()
    with pytest.raises(ProbeParseError):
        parse_compute_apps_csv("index, name\n0, Tesla T4\n")
