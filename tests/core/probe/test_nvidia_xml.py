"""nvidia-smi -q -x against every real XML fixture (expected values read from the files by hand)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from kubectl_gpu.core.probe import ProbeParseError, parse_nvidia_smi_xml

from . import _fixtures as fx

XML = "nvidia-smi/xml/"


@dataclass(frozen=True)
class Expected:
    driver: str | None
    cuda: str | None
    attached: int | None
    #: per GPU: (product name, fb memory total MiB, number of process_info entries)
    gpus: tuple[tuple[str, int, int], ...]


EXPECTED: dict[str, Expected] = {
    "datakit__tesla-v100-pcie-32gb__460.39__4procs.xml": Expected(
        "460.39", "11.2", 1, (("Tesla V100-PCIE-32GB", 32510, 4),)
    ),
    "datarhei-core__2x-nvidia-l4__555.42.06__v12__ffmpeg-procs.xml": Expected(
        "555.42.06", "12.5", 2, (("NVIDIA L4", 23034, 2), ("NVIDIA L4", 23034, 1))
    ),
    "datarhei-core__gtx-1080__440.33.01__v10__EDITED-procs.xml": Expected(
        "440.33.01", "10.2", 1, (("GeForce GTX 1080", 8119, 3),)
    ),
    "telegraf__2x-rtx-a5000__590.44.01__v13.xml": Expected(
        "590.44.01", "13.1", 2, (("NVIDIA RTX A5000", 24564, 1), ("NVIDIA RTX A5000", 24564, 1))
    ),
    "telegraf__a100-sxm4-80gb__535.54.03__mig.xml": Expected(
        "535.54.03", "12.2", 4, (("NVIDIA A100-SXM4-80GB", 81920, 0),)
    ),
    # A trimmed but complete, well-formed document (telegraf's edge case): it parses, with no versions.
    "telegraf__gtx-1070-ti__partial.xml": Expected(None, None, None, (("GeForce GTX 1070 Ti", 4096, 0),)),
    "telegraf__gtx-1660-ti__418.43.xml": Expected("418.43", "10.1", 1, (("Graphics Device", 5912, 0),)),
    "telegraf__quadro-p2000__525.125.06__v12.xml": Expected(
        "525.125.06", "12.0", 1, (("Quadro P2000", 5120, 0),)
    ),
    "telegraf__quadro-p400__418.43.xml": Expected("418.43", "10.1", 1, (("Quadro P400", 1998, 0),)),
    "telegraf__rtx-3060__570.124.04__v12.xml": Expected(
        "570.124.04", "12.8", 1, (("NVIDIA GeForce RTX 3060", 12288, 0),)
    ),
    "telegraf__rtx-3080__536.40__v12_windows.xml": Expected(
        "536.40", "12.2", 1, (("NVIDIA GeForce RTX 3080", 10240, 5),)
    ),
    "telegraf__rtx-3090__525.147.05__v12.xml": Expected(
        "525.147.05", "12.0", 1, (("NVIDIA GeForce RTX 3090", 24576, 0),)
    ),
    "telegraf__rtx-4000-sff-ada__595.84__v13.xml": Expected(
        "595.84", "13.2", 1, (("NVIDIA RTX 4000 SFF Ada Generation", 20475, 4),)
    ),
    "telegraf__tesla-t4__515.105.01.xml": Expected("515.105.01", "11.7", 1, (("Tesla T4", 15360, 2),)),
}


def test_every_real_xml_fixture_is_in_the_table() -> None:
    assert sorted(EXPECTED) == fx.names("nvidia-smi/xml")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_xml(name: str) -> None:
    expected = EXPECTED[name]
    report = parse_nvidia_smi_xml(fx.data(XML + name))
    assert report.driver_version == expected.driver
    assert report.cuda_version == expected.cuda
    assert report.attached_gpus == expected.attached
    got = tuple((g.name, g.memory_total_mib, len(g.processes)) for g in report.gpus)
    assert got == expected.gpus
    assert [g.index for g in report.gpus] == list(range(len(report.gpus)))
    for gpu in report.gpus:
        assert gpu.uuid is not None and gpu.uuid.startswith("GPU-")
        assert gpu.pci_bus_id is not None
        assert gpu.memory_used_mib is not None
        assert set(gpu.to_dict()) == {
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
        }


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_xml_str_and_bytes_agree(name: str) -> None:
    assert parse_nvidia_smi_xml(fx.text(XML + name)) == parse_nvidia_smi_xml(fx.data(XML + name))


def test_v11_tesla_v100_details() -> None:
    gpu = parse_nvidia_smi_xml(fx.data(XML + "datakit__tesla-v100-pcie-32gb__460.39__4procs.xml")).gpus[0]
    assert gpu.uuid == "GPU-e77ce5d8-8b63-c936-3c1b-839d45bcd0f2"
    assert gpu.pci_bus_id == "00000000:21:01.0"
    assert (gpu.memory_used_mib, gpu.memory_free_mib) == (12311, 20199)
    assert (gpu.utilization_pct, gpu.temperature_c, gpu.power_w, gpu.power_limit_w) == (91, 66, 170.16, 250.0)
    assert gpu.ecc is not None
    assert (gpu.ecc.mode_current, gpu.ecc.volatile_correctable, gpu.ecc.volatile_uncorrectable) == (
        "Enabled",
        0,
        0,
    )
    assert gpu.retired_pages is not None
    assert (gpu.retired_pages.single_bit_count, gpu.retired_pages.double_bit_count) == (0, 0)
    assert gpu.retired_pages.pending is False
    assert gpu.remapped_rows is None  # "N/A" on Volta
    assert gpu.mig_mode is None  # "N/A"
    assert gpu.persistence_mode == "Disabled"
    assert gpu.compute_mode == "Default"
    assert gpu.clock_event_reasons == ()
    assert gpu.processes[0].pid == 4027538
    assert gpu.processes[0].name == "mtopen-plugin:worker"
    assert gpu.processes[0].used_memory_mib == 3214
    assert gpu.processes[0].type == "C"
    assert gpu.processes[0].gpu_instance_id is None  # "N/A"


def test_v12_l4_remapped_rows_and_event_reasons() -> None:
    report = parse_nvidia_smi_xml(
        fx.data(XML + "datarhei-core__2x-nvidia-l4__555.42.06__v12__ffmpeg-procs.xml")
    )
    first = report.gpus[0]
    assert first.power_w == 27.22  # gpu_power_readings/power_draw
    assert first.power_limit_w == 72.0  # current_power_limit
    assert first.remapped_rows is not None
    assert (first.remapped_rows.correctable, first.remapped_rows.uncorrectable) == (0, 0)
    assert (first.remapped_rows.pending, first.remapped_rows.failure) == (False, False)
    assert first.retired_pages is None  # every retired_pages value is N/A
    assert first.clock_event_reasons == ("gpu_idle",)
    assert first.minor_number == 1  # minor number differs from the index
    assert report.gpus[1].processes[0].pid == 16870


def test_v13_average_power_draw() -> None:
    report = parse_nvidia_smi_xml(fx.data(XML + "telegraf__2x-rtx-a5000__590.44.01__v13.xml"))
    assert [g.power_w for g in report.gpus] == [6.41, 13.6]
    assert report.gpus[0].ecc is not None
    assert report.gpus[0].ecc.mode_current == "Disabled"
    assert report.gpus[0].ecc.volatile_uncorrectable is None


def test_old_dtd_throttle_reasons_and_missing_power() -> None:
    p400 = parse_nvidia_smi_xml(fx.data(XML + "telegraf__quadro-p400__418.43.xml")).gpus[0]
    assert p400.power_w is None and p400.power_limit_w is None  # N/A
    assert p400.clock_event_reasons == ("gpu_idle",)  # clocks_throttle_reasons (old name)
    assert p400.mig_mode is None  # no mig_mode element before R450


def test_mig_a100() -> None:
    gpu = parse_nvidia_smi_xml(fx.data(XML + "telegraf__a100-sxm4-80gb__535.54.03__mig.xml")).gpus[0]
    assert (gpu.mig_mode, gpu.mig_mode_pending) == ("Enabled", "Enabled")
    assert gpu.utilization_pct is None  # N/A under MIG
    assert [(m.index, m.gpu_instance_id, m.compute_instance_id) for m in gpu.mig_devices] == [
        (0, 3, 0),
        (1, 4, 0),
        (2, 5, 0),
        (3, 6, 0),
    ]
    assert {m.memory_total_mib for m in gpu.mig_devices} == {19968}
    assert {m.memory_used_mib for m in gpu.mig_devices} == {12}
    assert all(m.profile_name is None for m in gpu.mig_devices)  # not in the XML; -L has it
    assert gpu.ecc is not None
    assert (gpu.ecc.volatile_correctable, gpu.ecc.aggregate_uncorrectable) == (0, 0)


def test_windows_driver_minor_number_na() -> None:
    gpu = parse_nvidia_smi_xml(fx.data(XML + "telegraf__rtx-3080__536.40__v12_windows.xml")).gpus[0]
    assert gpu.minor_number is None
    assert gpu.index == 0
    assert gpu.persistence_mode is None  # N/A on Windows
    assert [p.type for p in gpu.processes] == ["G"] * 5


def test_partial_fixture_pci_from_gpu_id_attribute() -> None:
    gpu = parse_nvidia_smi_xml(fx.data(XML + "telegraf__gtx-1070-ti__partial.xml")).gpus[0]
    assert gpu.pci_bus_id == "00000000:01:00.0"
    assert (gpu.temperature_c, gpu.utilization_pct, gpu.power_w) == (39, 0, None)
    assert gpu.ecc is None and gpu.retired_pages is None and gpu.remapped_rows is None


def test_redacted_values_are_not_errors() -> None:
    gpu = parse_nvidia_smi_xml(fx.data(XML + "telegraf__rtx-3090__525.147.05__v12.xml")).gpus[0]
    assert gpu.errors == ()


SYNTHETIC = "ours/xml/ours__nvidia-smi-q-x__h100-mig-procs-errors-kmd__SYNTHETIC.xml"


def test_synthetic_kmd_version_mig_processes_and_error_values() -> None:
    report = parse_nvidia_smi_xml(fx.data(SYNTHETIC))
    assert (report.driver_version, report.cuda_version, report.attached_gpus) == ("610.57.04", "13.3", 2)
    mig_gpu, broken = report.gpus
    assert mig_gpu.power_w == 433.78  # average_power_draw
    assert mig_gpu.clock_event_reasons == ("sw_power_cap", "hw_thermal_slowdown")
    assert mig_gpu.ecc is not None
    assert (mig_gpu.ecc.volatile_correctable, mig_gpu.ecc.volatile_uncorrectable) == (8, 3)
    assert (mig_gpu.ecc.aggregate_correctable, mig_gpu.ecc.aggregate_uncorrectable) == (30, 5)
    assert mig_gpu.remapped_rows is not None
    assert (mig_gpu.remapped_rows.uncorrectable, mig_gpu.remapped_rows.pending) == (2, True)
    assert [[p.pid for p in m.processes] for m in mig_gpu.mig_devices] == [[21180, 21198], [21181]]
    assert [p.pid for p in mig_gpu.processes] == [21180, 21198, 21181]
    assert broken.memory_total_mib is None and broken.temperature_c is None
    assert broken.errors == ("Unknown Error", "GPU requires reset")


def test_deprecated_driver_version_without_kmd_version() -> None:
    doc = (
        "<nvidia_smi_log><driver_version>610.57.04 [Deprecated; will be removed in CUDA 14.0. Use KMD Version"
        " instead]</driver_version><cuda_version>13.3 [Deprecated]</cuda_version></nvidia_smi_log>"
    )
    report = parse_nvidia_smi_xml(doc)
    assert (report.driver_version, report.cuda_version, report.gpus) == ("610.57.04", "13.3", ())


def test_warning_line_before_document_is_skipped() -> None:
    real = fx.text(XML + "telegraf__tesla-t4__515.105.01.xml")
    noisy = "WARNING: infoROM is corrupted at gpu 0000:00:1E.0\n" + real
    assert parse_nvidia_smi_xml(noisy) == parse_nvidia_smi_xml(real)


@pytest.mark.parametrize(
    "rel",
    [
        "ours/xml/ours__nvidia-smi-q-x__entity-expansion.xml",
        "ours/garbled/ours__nvidia-smi-q-x__mismatched-tag.xml",
        "ours/garbled/ours__nvidia-smi__driver-not-loaded.txt",
        "ours/garbled/ours__nvidia-smi__no-devices.txt",
        "ours/garbled/ours__nvidia-smi__nvml-version-mismatch.txt",
        "nvidia-smi/csv/gpuexporter__h200__590.48.01__query-gpu__load.csv",
    ],
)
def test_rejected_inputs(rel: str) -> None:
    with pytest.raises(ProbeParseError) as info:
        parse_nvidia_smi_xml(fx.data(rel))
    assert str(info.value).startswith("nvidia-smi XML: ")
    assert "\n" not in str(info.value)


def test_entity_declaration_is_refused_by_name() -> None:
    with pytest.raises(ProbeParseError, match="entity"):
        parse_nvidia_smi_xml(fx.data("ours/xml/ours__nvidia-smi-q-x__entity-expansion.xml"))


@pytest.mark.parametrize(
    "doc",
    [
        "<?xml version='1.0'?><nvidia_smi_log_x/>",
        "<?xml version='1.0'?><gpu></gpu>",
        "",
        "<nvidia_smi_log><gpu></nvidia_smi_log>",
    ],
)
def test_not_an_nvidia_smi_document(doc: str) -> None:
    with pytest.raises(ProbeParseError):
        parse_nvidia_smi_xml(doc)


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("fraction", [0.02, 0.25, 0.5, 0.75, 0.98])
def test_truncated_real_xml_raises(name: str, fraction: float) -> None:
    text = fx.text(XML + name)
    end = text.rfind("</nvidia_smi_log>")
    with pytest.raises(ProbeParseError):
        parse_nvidia_smi_xml(text[: int(end * fraction)])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_cut_inside_the_closing_tag_raises(name: str) -> None:
    text = fx.text(XML + name)
    with pytest.raises(ProbeParseError):
        parse_nvidia_smi_xml(text[: text.rfind("</nvidia_smi_log>") + 5])
