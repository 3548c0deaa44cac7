"""Synthetic `kubectl gpu snapshot --probe` outputs for the demo: the collector's text, section by section, in
the formats the real tools print.

What `snapshot --probe` stores per node is `{"output": <collector text>, "strategy", "image", "error",
"capturedAt"}` (kubectl_gpu.cli.debug.probe_for_snapshot); the text is what `kubectl_gpu/data/collector.sh`
prints (marker lines, then each command's stdout and stderr). The command outputs here are written from the
real formats, not captured on the demo's (fictional) nodes:

* `nvidia-smi -q -x`: the element layout of a real driver 570.124.04 document (DTD nvsmi_device_v12,
  tests/fixtures/probe/nvidia-smi/xml/telegraf__rtx-3060__570.124.04__v12.xml), with the values of
  datacenter boards as the real L40S (595.80) and H100 80GB HBM3 (590.48.01) `--query-gpu` captures under
  tests/fixtures/probe/nvidia-smi/csv report them (memory, PCI ids, VBIOS, power limits, clocks), ECC and
  row remapping as on the real L4 document, `Pass-Through` virtualization as on EC2;
* `--query-gpu` CSV with the collector's field list (header, no units), `-L`, `topo -m` (the real L40S
  capture's layout, ANSI underline included);
* `pid-cgroups`: cgroup v2 paths under the systemd driver, relative to the debug container's cgroup
  namespace (`/../../kubepods-burstable-pod<uid>.slice/...`), as a privileged pod reads them;
* storage as Bottlerocket lays it out: `apiclient ephemeral-storage` assembles the instance-store NVMe into
  md RAID0 `/dev/md/ephemeral` (256 KiB chunks, XFS), mounts it at `/mnt/.ephemeral` and bind-mounts
  `._var_lib_containerd`, `._var_lib_kubelet` and `._var_log_pods` from it; Bottlerocket's host has no shell,
  so the collector runs the debug image's own `lsblk` / `findmnt`, which see the host under `/host`;
* a GPU that fell off the bus (XID 79) makes every `nvidia-smi` call fail with NVML's "GPU is lost" (exit
  15); `/proc/driver/nvidia/version` still names the driver.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

Obj = dict[str, object]

COLLECTOR_VERSION = "v1"
# The collector's --query-gpu field list (collector.sh KG_FIELDS), as nvidia-smi titles them with units.
_CSV_HEADER = (
    "index, name, uuid, pci.bus_id, driver_version, memory.total [MiB], memory.used [MiB], memory.free [MiB], "
    "utilization.gpu [%], temperature.gpu, power.draw [W], power.limit [W], persistence_mode, compute_mode, "
    "mig.mode.current, mig.mode.pending, ecc.mode.current, ecc.mode.pending, "
    "ecc.errors.corrected.volatile.total, ecc.errors.uncorrected.volatile.total, "
    "ecc.errors.corrected.aggregate.total, ecc.errors.uncorrected.aggregate.total, "
    "retired_pages.single_bit_ecc.count, retired_pages.double_bit.count, retired_pages.pending, "
    "remapped_rows.correctable, remapped_rows.uncorrectable, remapped_rows.pending, remapped_rows.failure, "
    "clocks_throttle_reasons.active"
)
_TOPO_LEGEND = """Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
  PIX  = Connection traversing at most a single PCIe bridge
  NV#  = Connection traversing a bonded set of # NVLinks
"""
EBS_MODEL = "Amazon Elastic Block Store"
INSTANCE_STORE_MODEL = "Amazon EC2 NVMe Instance Storage"
MD_DATA_OFFSET = 134_746_112  # bytes of each member before md's data area (mdadm 1.2 superblock, large disks)
MD_CHUNK = 256 * 1024  # Bottlerocket creates the array with --chunk=256
GIB = 1024**3


# --------------------------------------------------------------------------------------------- GPUs


@dataclass(frozen=True, slots=True)
class GpuModel:
    """What nvidia-smi reports for one board model (values from the real captures named above)."""

    name: str
    architecture: str
    pci_device_id: str
    pci_sub_system_id: str
    pcie_gen: int
    memory_mib: int
    reserved_mib: int
    bar1_mib: int
    power_limit_w: float
    power_min_w: float
    clocks: tuple[int, int, int, int]  # graphics, sm, memory, video (max = current under load)
    vbios: str
    inforom: tuple[str, str, str]  # image, OEM object, ECC object
    board_part: str
    gpu_part: str
    remap_banks: int
    memory_temperature: bool
    mig_capable: bool
    fabric: bool


L40S = GpuModel(
    name="NVIDIA L40S",
    architecture="Ada Lovelace",
    pci_device_id="26B910DE",
    pci_sub_system_id="185110DE",
    pcie_gen=4,
    memory_mib=46068,
    reserved_mib=609,
    bar1_mib=65536,
    power_limit_w=350.0,
    power_min_w=100.0,
    clocks=(2520, 2520, 9001, 1965),
    vbios="95.02.66.00.02",
    inforom=("G133.0242.00.03", "2.1", "6.16"),
    board_part="900-2G133-0080-000",
    gpu_part="26B9-896-A1",
    remap_banks=192,
    memory_temperature=False,
    mig_capable=False,
    fabric=False,
)
H100 = GpuModel(
    name="NVIDIA H100 80GB HBM3",
    architecture="Hopper",
    pci_device_id="233010DE",
    pci_sub_system_id="16C110DE",
    pcie_gen=5,
    memory_mib=81559,
    reserved_mib=479,
    bar1_mib=131072,
    power_limit_w=700.0,
    power_min_w=200.0,
    clocks=(1980, 1980, 2619, 1545),
    vbios="96.00.A5.00.01",
    inforom=("G520.0200.00.05", "2.1", "7.16"),
    board_part="692-2G520-0200-000",
    gpu_part="2330-885-A1",
    remap_banks=2560,
    memory_temperature=True,
    mig_capable=True,
    fabric=True,
)


@dataclass(frozen=True, slots=True)
class GpuProcess:
    pid: int
    name: str
    used_mib: int


@dataclass(frozen=True, slots=True)
class GpuState:
    """One GPU as the probe saw it."""

    model: GpuModel
    index: int
    bus: str  # PCI bus number, two hex digits
    uuid: str
    serial: str
    utilization: int
    temperature: int
    power_w: float
    processes: tuple[GpuProcess, ...] = ()
    module_id: int = 1

    @property
    def bus_id(self) -> str:
        return f"00000000:{self.bus}:00.0"

    @property
    def used_mib(self) -> int:
        return sum(p.used_mib for p in self.processes) + (0 if self.processes else 1)

    @property
    def free_mib(self) -> int:
        return self.model.memory_mib - self.model.reserved_mib - self.used_mib


def _smi_time(when: datetime) -> str:
    """nvidia-smi's `<timestamp>`: C `ctime` without the newline, day not zero-padded."""
    return f"{when:%a %b} {when.day} {when:%H:%M:%S %Y}"


def _ecc_block(indent: str, aggregate: bool) -> str:
    lines = [
        "<sram_correctable>0</sram_correctable>",
        "<sram_uncorrectable_parity>0</sram_uncorrectable_parity>",
        "<sram_uncorrectable_secded>0</sram_uncorrectable_secded>",
        "<dram_correctable>0</dram_correctable>",
        "<dram_uncorrectable>0</dram_uncorrectable>",
    ]
    if aggregate:
        lines.append("<sram_threshold_exceeded>No</sram_threshold_exceeded>")
    return "".join(f"{indent}{line}\n" for line in lines)


def _gpu_xml(g: GpuState, driver: str) -> str:
    m = g.model
    t = "\t"
    mig = "Disabled" if m.mig_capable else "N/A"
    gr, sm, mem, video = m.clocks
    busy = bool(g.processes)
    idle = "Not Active" if busy else "Active"
    mem_temp = f"{g.temperature - 5} C" if m.memory_temperature else "N/A"
    fabric_state, fabric_status = ("Completed", "Success") if m.fabric else ("N/A", "N/A")
    clique, cluster = ("0", "00000000-0000-0000-0000-000000000000") if m.fabric else ("N/A", "N/A")
    procs = "".join(
        f"{t * 3}<process_info>\n"
        f"{t * 4}<gpu_instance_id>N/A</gpu_instance_id>\n"
        f"{t * 4}<compute_instance_id>N/A</compute_instance_id>\n"
        f"{t * 4}<pid>{p.pid}</pid>\n"
        f"{t * 4}<type>C</type>\n"
        f"{t * 4}<process_name>{p.name}</process_name>\n"
        f"{t * 4}<used_memory>{p.used_mib} MiB</used_memory>\n"
        f"{t * 3}</process_info>\n"
        for p in g.processes
    )
    supported = "".join(
        f"{t * 4}<supported_graphics_clock>{c} MHz</supported_graphics_clock>\n"
        for c in range(gr, gr - 8 * 15 - 1, -15)
    )
    return f"""{t}<gpu id="{g.bus_id}">
{t * 2}<product_name>{m.name}</product_name>
{t * 2}<product_brand>NVIDIA</product_brand>
{t * 2}<product_architecture>{m.architecture}</product_architecture>
{t * 2}<display_mode>Disabled</display_mode>
{t * 2}<display_active>Disabled</display_active>
{t * 2}<persistence_mode>Enabled</persistence_mode>
{t * 2}<addressing_mode>None</addressing_mode>
{t * 2}<mig_mode>
{t * 3}<current_mig>{mig}</current_mig>
{t * 3}<pending_mig>{mig}</pending_mig>
{t * 2}</mig_mode>
{t * 2}<mig_devices>
{t * 3}None
{t * 2}</mig_devices>
{t * 2}<accounting_mode>Disabled</accounting_mode>
{t * 2}<accounting_mode_buffer_size>4000</accounting_mode_buffer_size>
{t * 2}<driver_model>
{t * 3}<current_dm>N/A</current_dm>
{t * 3}<pending_dm>N/A</pending_dm>
{t * 2}</driver_model>
{t * 2}<serial>{g.serial}</serial>
{t * 2}<uuid>{g.uuid}</uuid>
{t * 2}<minor_number>{g.index}</minor_number>
{t * 2}<vbios_version>{m.vbios}</vbios_version>
{t * 2}<multigpu_board>No</multigpu_board>
{t * 2}<board_id>0x{g.bus.lower()}00</board_id>
{t * 2}<board_part_number>{m.board_part}</board_part_number>
{t * 2}<gpu_part_number>{m.gpu_part}</gpu_part_number>
{t * 2}<gpu_fru_part_number>N/A</gpu_fru_part_number>
{t * 2}<platformInfo>
{t * 3}<chassis_serial_number>N/A</chassis_serial_number>
{t * 3}<slot_number>N/A</slot_number>
{t * 3}<tray_index>N/A</tray_index>
{t * 3}<host_id>N/A</host_id>
{t * 3}<peer_type>N/A</peer_type>
{t * 3}<module_id>{g.module_id}</module_id>
{t * 3}<gpu_fabric_guid>N/A</gpu_fabric_guid>
{t * 2}</platformInfo>
{t * 2}<inforom_version>
{t * 3}<img_version>{m.inforom[0]}</img_version>
{t * 3}<oem_object>{m.inforom[1]}</oem_object>
{t * 3}<ecc_object>{m.inforom[2]}</ecc_object>
{t * 3}<pwr_object>N/A</pwr_object>
{t * 2}</inforom_version>
{t * 2}<inforom_bbx_flush>
{t * 3}<latest_timestamp>N/A</latest_timestamp>
{t * 3}<latest_duration>N/A</latest_duration>
{t * 2}</inforom_bbx_flush>
{t * 2}<gpu_operation_mode>
{t * 3}<current_gom>N/A</current_gom>
{t * 3}<pending_gom>N/A</pending_gom>
{t * 2}</gpu_operation_mode>
{t * 2}<c2c_mode>{"Disabled" if m.fabric else "N/A"}</c2c_mode>
{t * 2}<gpu_virtualization_mode>
{t * 3}<virtualization_mode>Pass-Through</virtualization_mode>
{t * 3}<host_vgpu_mode>N/A</host_vgpu_mode>
{t * 3}<vgpu_heterogeneous_mode>N/A</vgpu_heterogeneous_mode>
{t * 2}</gpu_virtualization_mode>
{t * 2}<gpu_reset_status>
{t * 3}<reset_required>Requested functionality has been deprecated</reset_required>
{t * 3}<drain_and_reset_recommended>Requested functionality has been deprecated</drain_and_reset_recommended>
{t * 2}</gpu_reset_status>
{t * 2}<gpu_recovery_action>None</gpu_recovery_action>
{t * 2}<gsp_firmware_version>{driver}</gsp_firmware_version>
{t * 2}<ibmnpu>
{t * 3}<relaxed_ordering_mode>N/A</relaxed_ordering_mode>
{t * 2}</ibmnpu>
{t * 2}<pci>
{t * 3}<pci_bus>{g.bus}</pci_bus>
{t * 3}<pci_device>00</pci_device>
{t * 3}<pci_domain>0000</pci_domain>
{t * 3}<pci_base_class>3</pci_base_class>
{t * 3}<pci_sub_class>2</pci_sub_class>
{t * 3}<pci_device_id>{m.pci_device_id}</pci_device_id>
{t * 3}<pci_bus_id>{g.bus_id}</pci_bus_id>
{t * 3}<pci_sub_system_id>{m.pci_sub_system_id}</pci_sub_system_id>
{t * 3}<pci_gpu_link_info>
{t * 4}<pcie_gen>
{t * 5}<max_link_gen>{m.pcie_gen}</max_link_gen>
{t * 5}<current_link_gen>{m.pcie_gen}</current_link_gen>
{t * 5}<device_current_link_gen>{m.pcie_gen}</device_current_link_gen>
{t * 5}<max_device_link_gen>{m.pcie_gen}</max_device_link_gen>
{t * 5}<max_host_link_gen>{m.pcie_gen}</max_host_link_gen>
{t * 4}</pcie_gen>
{t * 4}<link_widths>
{t * 5}<max_link_width>16x</max_link_width>
{t * 5}<current_link_width>16x</current_link_width>
{t * 4}</link_widths>
{t * 3}</pci_gpu_link_info>
{t * 3}<pci_bridge_chip>
{t * 4}<bridge_chip_type>N/A</bridge_chip_type>
{t * 4}<bridge_chip_fw>N/A</bridge_chip_fw>
{t * 3}</pci_bridge_chip>
{t * 3}<replay_counter>0</replay_counter>
{t * 3}<replay_rollover_counter>0</replay_rollover_counter>
{t * 3}<tx_util>{1200 if busy else 0} KB/s</tx_util>
{t * 3}<rx_util>{950 if busy else 0} KB/s</rx_util>
{t * 3}<atomic_caps_outbound>N/A</atomic_caps_outbound>
{t * 3}<atomic_caps_inbound>N/A</atomic_caps_inbound>
{t * 2}</pci>
{t * 2}<fan_speed>N/A</fan_speed>
{t * 2}<performance_state>P0</performance_state>
{t * 2}<clocks_event_reasons>
{t * 3}<clocks_event_reason_gpu_idle>{idle}</clocks_event_reason_gpu_idle>
{t * 3}<clocks_event_reason_applications_clocks_setting>Not Active</clocks_event_reason_applications_clocks_setting>
{t * 3}<clocks_event_reason_sw_power_cap>Not Active</clocks_event_reason_sw_power_cap>
{t * 3}<clocks_event_reason_hw_slowdown>Not Active</clocks_event_reason_hw_slowdown>
{t * 3}<clocks_event_reason_hw_thermal_slowdown>Not Active</clocks_event_reason_hw_thermal_slowdown>
{t * 3}<clocks_event_reason_hw_power_brake_slowdown>Not Active</clocks_event_reason_hw_power_brake_slowdown>
{t * 3}<clocks_event_reason_sync_boost>Not Active</clocks_event_reason_sync_boost>
{t * 3}<clocks_event_reason_sw_thermal_slowdown>Not Active</clocks_event_reason_sw_thermal_slowdown>
{t * 3}<clocks_event_reason_display_clocks_setting>Not Active</clocks_event_reason_display_clocks_setting>
{t * 2}</clocks_event_reasons>
{t * 2}<sparse_operation_mode>N/A</sparse_operation_mode>
{t * 2}<fb_memory_usage>
{t * 3}<total>{m.memory_mib} MiB</total>
{t * 3}<reserved>{m.reserved_mib} MiB</reserved>
{t * 3}<used>{g.used_mib} MiB</used>
{t * 3}<free>{g.free_mib} MiB</free>
{t * 2}</fb_memory_usage>
{t * 2}<bar1_memory_usage>
{t * 3}<total>{m.bar1_mib} MiB</total>
{t * 3}<used>{4 if busy else 1} MiB</used>
{t * 3}<free>{m.bar1_mib - (4 if busy else 1)} MiB</free>
{t * 2}</bar1_memory_usage>
{t * 2}<cc_protected_memory_usage>
{t * 3}<total>0 MiB</total>
{t * 3}<used>0 MiB</used>
{t * 3}<free>0 MiB</free>
{t * 2}</cc_protected_memory_usage>
{t * 2}<compute_mode>Default</compute_mode>
{t * 2}<utilization>
{t * 3}<gpu_util>{g.utilization} %</gpu_util>
{t * 3}<memory_util>{g.utilization // 3} %</memory_util>
{t * 3}<encoder_util>0 %</encoder_util>
{t * 3}<decoder_util>0 %</decoder_util>
{t * 3}<jpeg_util>0 %</jpeg_util>
{t * 3}<ofa_util>0 %</ofa_util>
{t * 2}</utilization>
{t * 2}<encoder_stats>
{t * 3}<session_count>0</session_count>
{t * 3}<average_fps>0</average_fps>
{t * 3}<average_latency>0</average_latency>
{t * 2}</encoder_stats>
{t * 2}<fbc_stats>
{t * 3}<session_count>0</session_count>
{t * 3}<average_fps>0</average_fps>
{t * 3}<average_latency>0</average_latency>
{t * 2}</fbc_stats>
{t * 2}<dram_encryption_mode>
{t * 3}<current_dram_encryption>N/A</current_dram_encryption>
{t * 3}<pending_dram_encryption>N/A</pending_dram_encryption>
{t * 2}</dram_encryption_mode>
{t * 2}<ecc_mode>
{t * 3}<current_ecc>Enabled</current_ecc>
{t * 3}<pending_ecc>Enabled</pending_ecc>
{t * 2}</ecc_mode>
{t * 2}<ecc_errors>
{t * 3}<volatile>
{_ecc_block(t * 4, False)}{t * 3}</volatile>
{t * 3}<aggregate>
{_ecc_block(t * 4, True)}{t * 3}</aggregate>
{t * 3}<aggregate_uncorrectable_sram_sources>
{t * 4}<sram_l2>0</sram_l2>
{t * 4}<sram_sm>0</sram_sm>
{t * 4}<sram_microcontroller>0</sram_microcontroller>
{t * 4}<sram_pcie>0</sram_pcie>
{t * 4}<sram_other>0</sram_other>
{t * 3}</aggregate_uncorrectable_sram_sources>
{t * 2}</ecc_errors>
{t * 2}<retired_pages>
{t * 3}<multiple_single_bit_retirement>
{t * 4}<retired_count>N/A</retired_count>
{t * 4}<retired_pagelist>N/A</retired_pagelist>
{t * 3}</multiple_single_bit_retirement>
{t * 3}<double_bit_retirement>
{t * 4}<retired_count>N/A</retired_count>
{t * 4}<retired_pagelist>N/A</retired_pagelist>
{t * 3}</double_bit_retirement>
{t * 3}<pending_blacklist>N/A</pending_blacklist>
{t * 3}<pending_retirement>N/A</pending_retirement>
{t * 2}</retired_pages>
{t * 2}<remapped_rows>
{t * 3}<remapped_row_corr>0</remapped_row_corr>
{t * 3}<remapped_row_unc>0</remapped_row_unc>
{t * 3}<remapped_row_pending>No</remapped_row_pending>
{t * 3}<remapped_row_failure>No</remapped_row_failure>
{t * 3}<row_remapper_histogram>
{t * 4}<row_remapper_histogram_max>{m.remap_banks} bank(s)</row_remapper_histogram_max>
{t * 4}<row_remapper_histogram_high>0 bank(s)</row_remapper_histogram_high>
{t * 4}<row_remapper_histogram_partial>0 bank(s)</row_remapper_histogram_partial>
{t * 4}<row_remapper_histogram_low>0 bank(s)</row_remapper_histogram_low>
{t * 4}<row_remapper_histogram_none>0 bank(s)</row_remapper_histogram_none>
{t * 3}</row_remapper_histogram>
{t * 2}</remapped_rows>
{t * 2}<temperature>
{t * 3}<gpu_temp>{g.temperature} C</gpu_temp>
{t * 3}<gpu_temp_tlimit>{87 - g.temperature} C</gpu_temp_tlimit>
{t * 3}<gpu_temp_max_threshold>N/A</gpu_temp_max_threshold>
{t * 3}<gpu_temp_slow_threshold>N/A</gpu_temp_slow_threshold>
{t * 3}<gpu_temp_max_gpu_threshold>N/A</gpu_temp_max_gpu_threshold>
{t * 3}<gpu_target_temperature>N/A</gpu_target_temperature>
{t * 3}<memory_temp>{mem_temp}</memory_temp>
{t * 3}<gpu_temp_max_mem_threshold>{"95 C" if m.memory_temperature else "N/A"}</gpu_temp_max_mem_threshold>
{t * 2}</temperature>
{t * 2}<supported_gpu_target_temp>
{t * 3}<gpu_target_temp_min>N/A</gpu_target_temp_min>
{t * 3}<gpu_target_temp_max>N/A</gpu_target_temp_max>
{t * 2}</supported_gpu_target_temp>
{t * 2}<gpu_power_readings>
{t * 3}<power_state>P0</power_state>
{t * 3}<average_power_draw>{g.power_w:.2f} W</average_power_draw>
{t * 3}<instant_power_draw>{g.power_w + 1.37:.2f} W</instant_power_draw>
{t * 3}<current_power_limit>{m.power_limit_w:.2f} W</current_power_limit>
{t * 3}<requested_power_limit>{m.power_limit_w:.2f} W</requested_power_limit>
{t * 3}<default_power_limit>{m.power_limit_w:.2f} W</default_power_limit>
{t * 3}<min_power_limit>{m.power_min_w:.2f} W</min_power_limit>
{t * 3}<max_power_limit>{m.power_limit_w:.2f} W</max_power_limit>
{t * 2}</gpu_power_readings>
{t * 2}<gpu_memory_power_readings>
{t * 3}<average_power_draw>N/A</average_power_draw>
{t * 3}<instant_power_draw>N/A</instant_power_draw>
{t * 2}</gpu_memory_power_readings>
{t * 2}<module_power_readings>
{t * 3}<power_state>P0</power_state>
{t * 3}<average_power_draw>N/A</average_power_draw>
{t * 3}<instant_power_draw>N/A</instant_power_draw>
{t * 3}<current_power_limit>N/A</current_power_limit>
{t * 3}<requested_power_limit>N/A</requested_power_limit>
{t * 3}<default_power_limit>N/A</default_power_limit>
{t * 3}<min_power_limit>N/A</min_power_limit>
{t * 3}<max_power_limit>N/A</max_power_limit>
{t * 2}</module_power_readings>
{t * 2}<power_smoothing>N/A</power_smoothing>
{t * 2}<power_profiles>
{t * 3}<power_profile_requested_profiles>N/A</power_profile_requested_profiles>
{t * 3}<power_profile_enforced_profiles>N/A</power_profile_enforced_profiles>
{t * 2}</power_profiles>
{t * 2}<clocks>
{t * 3}<graphics_clock>{gr} MHz</graphics_clock>
{t * 3}<sm_clock>{sm} MHz</sm_clock>
{t * 3}<mem_clock>{mem} MHz</mem_clock>
{t * 3}<video_clock>{video} MHz</video_clock>
{t * 2}</clocks>
{t * 2}<applications_clocks>
{t * 3}<graphics_clock>Requested functionality has been deprecated</graphics_clock>
{t * 3}<mem_clock>Requested functionality has been deprecated</mem_clock>
{t * 2}</applications_clocks>
{t * 2}<default_applications_clocks>
{t * 3}<graphics_clock>Requested functionality has been deprecated</graphics_clock>
{t * 3}<mem_clock>Requested functionality has been deprecated</mem_clock>
{t * 2}</default_applications_clocks>
{t * 2}<deferred_clocks>
{t * 3}<mem_clock>N/A</mem_clock>
{t * 2}</deferred_clocks>
{t * 2}<max_clocks>
{t * 3}<graphics_clock>{gr} MHz</graphics_clock>
{t * 3}<sm_clock>{sm} MHz</sm_clock>
{t * 3}<mem_clock>{mem} MHz</mem_clock>
{t * 3}<video_clock>{video} MHz</video_clock>
{t * 2}</max_clocks>
{t * 2}<max_customer_boost_clocks>
{t * 3}<graphics_clock>{gr} MHz</graphics_clock>
{t * 2}</max_customer_boost_clocks>
{t * 2}<clock_policy>
{t * 3}<auto_boost>N/A</auto_boost>
{t * 3}<auto_boost_default>N/A</auto_boost_default>
{t * 2}</clock_policy>
{t * 2}<voltage>
{t * 3}<graphics_volt>{890.625 if busy else 675.0:.3f} mV</graphics_volt>
{t * 2}</voltage>
{t * 2}<fabric>
{t * 3}<state>{fabric_state}</state>
{t * 3}<status>{fabric_status}</status>
{t * 3}<cliqueId>{clique}</cliqueId>
{t * 3}<clusterUuid>{cluster}</clusterUuid>
{t * 3}<health>
{t * 4}<bandwidth>N/A</bandwidth>
{t * 4}<route_recovery_in_progress>N/A</route_recovery_in_progress>
{t * 4}<route_unhealthy>N/A</route_unhealthy>
{t * 4}<access_timeout_recovery>N/A</access_timeout_recovery>
{t * 3}</health>
{t * 2}</fabric>
{t * 2}<supported_clocks>
{t * 3}<supported_mem_clock>
{t * 4}<value>{mem} MHz</value>
{supported}{t * 3}</supported_mem_clock>
{t * 2}</supported_clocks>
{t * 2}<processes>
{procs}{t * 2}</processes>
{t * 2}<accounted_processes>
{t * 2}</accounted_processes>
{t * 2}<capabilities>
{t * 3}<egm>disabled</egm>
{t * 2}</capabilities>
{t}</gpu>
"""


def nvidia_smi_xml(driver: str, cuda: str, gpus: Sequence[GpuState], when: datetime) -> str:
    """`nvidia-smi -q -x` (DTD v12 layout of the 570 branch)."""
    body = "\n".join(_gpu_xml(g, driver) for g in gpus)
    return (
        '<?xml version="1.0"?>\n'
        '<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">\n'
        "<nvidia_smi_log>\n"
        f"\t<timestamp>{_smi_time(when)}</timestamp>\n"
        f"\t<driver_version>{driver}</driver_version>\n"
        f"\t<cuda_version>{cuda}</cuda_version>\n"
        f"\t<attached_gpus>{len(gpus)}</attached_gpus>\n"
        f"{body}\n"
        "</nvidia_smi_log>\n"
    )


def query_gpu_csv(driver: str, gpus: Sequence[GpuState]) -> str:
    """`nvidia-smi --query-gpu=<the collector's fields> --format=csv,nounits`."""
    rows = [_CSV_HEADER]
    for g in gpus:
        m = g.model
        mig = "Disabled" if m.mig_capable else "[N/A]"
        reasons = "0x0000000000000000" if g.processes else "0x0000000000000001"
        rows.append(
            ", ".join(
                [
                    str(g.index),
                    m.name,
                    g.uuid,
                    g.bus_id,
                    driver,
                    str(m.memory_mib),
                    str(g.used_mib),
                    str(g.free_mib),
                    str(g.utilization),
                    str(g.temperature),
                    f"{g.power_w:.2f}",
                    f"{m.power_limit_w:.2f}",
                    "Enabled",
                    "Default",
                    mig,
                    mig,
                    "Enabled",
                    "Enabled",
                    "0",
                    "0",
                    "0",
                    "0",
                    "[N/A]",
                    "[N/A]",
                    "[N/A]",
                    "0",
                    "0",
                    "No",
                    "No",
                    reasons,
                ]
            )
        )
    return "\n".join(rows) + "\n"


def gpu_list(gpus: Sequence[GpuState]) -> str:
    """`nvidia-smi -L`."""
    return "".join(f"GPU {g.index}: {g.model.name} (UUID: {g.uuid})\n" for g in gpus)


@dataclass(frozen=True, slots=True)
class Topology:
    """`nvidia-smi topo -m` inputs: GPU-GPU link, CPU/NUMA affinity per GPU, RDMA NICs (EFA) per GPU."""

    gpu_link: str  # "NV18", "SYS", ...
    affinity: tuple[tuple[str, str], ...]  # per GPU: (CPU affinity, NUMA affinity)
    nics_per_gpu: int = 0
    nic_names: tuple[str, ...] = ()


def topo_matrix(gpus: int, topo: Topology) -> str:
    gpu_names = [f"GPU{i}" for i in range(gpus)]
    nics = [f"NIC{i}" for i in range(gpus * topo.nics_per_gpu)]
    head = (
        "\t\x1b[4m"
        + "\t".join([*gpu_names, *nics, "CPU Affinity", "NUMA Affinity", "GPU NUMA ID"])
        + "\x1b[0m"
    )
    numa = [a[1] for a in topo.affinity]

    def nic_gpu(n: int) -> int:
        return n // topo.nics_per_gpu

    def pcie(a_gpu: int, b_gpu: int, same: str) -> str:
        if a_gpu == b_gpu:
            return same
        return "NODE" if numa[a_gpu] == numa[b_gpu] else "SYS"

    lines = [head]
    for i, name in enumerate(gpu_names):
        cells = [" X " if j == i else topo.gpu_link for j in range(gpus)]
        cells += [pcie(i, nic_gpu(n), "PXB") for n in range(len(nics))]
        cpu, node = topo.affinity[i]
        lines.append("\t".join([name, *cells, cpu, node, "", "N/A"]))
    for n, name in enumerate(nics):
        cells = [pcie(nic_gpu(n), j, "PXB") for j in range(gpus)]
        cells += [" X " if k == n else pcie(nic_gpu(n), nic_gpu(k), "PIX") for k in range(len(nics))]
        lines.append("\t".join([name, *cells]))
    text = "\n".join(lines) + "\n\n" + _TOPO_LEGEND
    if nics:
        text += "\nNIC Legend:\n\n" + "".join(f"  {n}: {topo.nic_names[i]}\n" for i, n in enumerate(nics))
    return text


def pid_cgroups(processes: Sequence[tuple[int, str, str]]) -> str:
    """The collector's pid-cgroups section for (pid, pod uid, container id) of Burstable pods, as read from a
    privileged Burstable debug pod in its own cgroup namespace (cgroup v2, systemd driver, containerd)."""
    return "".join(
        f"pid {pid}\n0::/../../kubepods-burstable-pod{uid.replace('-', '_')}.slice/cri-containerd-{cid}.scope\n"
        for pid, uid, cid in processes
    )


def driver_version(driver: str, built: str) -> str:
    """/proc/driver/nvidia/version of the open kernel module (what Bottlerocket loads for Ada and Hopper)."""
    return (
        f"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  {driver}  Release Build  "
        f"(dvs-builder@U22-I3-AF03-09-1)  {built}\n"
        "GCC version:  gcc version 13.3.0 (Buildroot 2024.02.9) \n"
    )


def os_release(os_image: str, version: str, variant: str, build_id: str) -> str:
    """/etc/os-release of an Auto Mode node: PRETTY_NAME is what the kubelet reports as osImage."""
    return (
        "NAME=Bottlerocket\n"
        "ID=bottlerocket\n"
        f'VERSION="{version} ({variant})"\n'
        f'PRETTY_NAME="{os_image}"\n'
        f"VARIANT_ID={variant}\n"
        f"VERSION_ID={version}\n"
        f"BUILD_ID={build_id}\n"
        'HOME_URL="https://github.com/bottlerocket-os/bottlerocket"\n'
        'SUPPORT_URL="https://github.com/bottlerocket-os/bottlerocket/discussions"\n'
        'BUG_REPORT_URL="https://github.com/bottlerocket-os/bottlerocket/issues"\n'
    )


# --------------------------------------------------------------------------------------------- storage


@dataclass(frozen=True, slots=True)
class Storage:
    """The block devices of an Auto Mode node: OS volume, data volume, instance-store NVMe (md RAID0 over
    them when Auto Mode uses them for ephemeral storage)."""

    data_volume_bytes: int
    nvme_bytes: tuple[int, ...]  # instance-store disks, in device order
    raid: bool  # kubelet/containerd storage on a RAID0 of the instance store
    pod_uid: str  # the debug pod (its /etc/hosts and termination log live in kubelet's directory)
    container_id: str
    sandbox_id: str
    nvme_dirs: tuple[str, ...] = field(default=("/var/lib/containerd", "/var/lib/kubelet", "/var/log/pods"))

    @property
    def md_bytes(self) -> int:
        per_disk = (min(self.nvme_bytes) - MD_DATA_OFFSET) // MD_CHUNK * MD_CHUNK
        return per_disk * len(self.nvme_bytes)


def _disk(name: str, size: int, model: str | None, mountpoint: str | None, fstype: str | None) -> Obj:
    return {
        "name": name,
        "type": "disk",
        "size": size,
        "model": model,
        "mountpoint": mountpoint,
        "fstype": fstype,
    }


def _part(name: str, kind: str, size: int, mountpoint: str | None, fstype: str | None) -> Obj:
    return {
        "name": name,
        "type": kind,
        "size": size,
        "model": None,
        "mountpoint": mountpoint,
        "fstype": fstype,
    }


def _smartcols_json(value: object, indent: int = 0) -> str:
    """JSON as util-linux (libsmartcols) prints it: 3-space indent, `},{` between array objects."""
    pad = " " * indent
    if isinstance(value, dict):
        items = [f'{pad}   "{k}": {_smartcols_json(v, indent + 3).lstrip()}' for k, v in value.items()]
        return pad + "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list):
        inner = ",".join(_smartcols_json(v, indent + 3).lstrip() for v in value)
        return pad + "[\n" + pad + "   " + inner + "\n" + pad + "]"
    return json.dumps(value)


def lsblk(storage: Storage) -> str:
    """`lsblk -J -b -o NAME,TYPE,SIZE,MODEL,MOUNTPOINT,FSTYPE` from the debug container (host at /host)."""
    os_parts = [
        _part("nvme0n1p1", "part", 1 * 1024**2, None, None),
        _part("nvme0n1p2", "part", 5 * 1024**2, None, "vfat"),
        _part("nvme0n1p3", "part", 40 * 1024**2, "/host/boot", "ext4"),
        {
            **_part("nvme0n1p4", "part", 920 * 1024**2, None, "ext4"),
            "children": [_part("dm-0", "dm", 920 * 1024**2 - 8 * 1024**2, "/host", "ext4")],
        },
        _part("nvme0n1p5", "part", 10 * 1024**2, None, None),
        _part("nvme0n1p6", "part", 33 * 1024**2, None, None),
    ]
    devices = [
        {**_disk("nvme0n1", 4 * GIB, EBS_MODEL, None, None), "children": os_parts},
        {
            **_disk("nvme1n1", storage.data_volume_bytes, EBS_MODEL, None, None),
            "children": [
                _part("nvme1n1p1", "part", storage.data_volume_bytes - 2 * 1024**2, "/host/local", "ext4")
            ],
        },
    ]
    for i, size in enumerate(storage.nvme_bytes):
        name = f"nvme{i + 2}n1"
        if storage.raid:
            md = _part("md127", "raid0", storage.md_bytes, "/host/mnt/.ephemeral", "xfs")
            devices.append(
                {**_disk(name, size, INSTANCE_STORE_MODEL, None, "linux_raid_member"), "children": [md]}
            )
        else:
            devices.append(_disk(name, size, INSTANCE_STORE_MODEL, None, None))
    return _smartcols_json({"blockdevices": devices}) + "\n"


def mdstat(storage: Storage) -> str:
    if not storage.raid:
        return "Personalities : \nunused devices: <none>\n"
    members = " ".join(f"nvme{i + 2}n1[{i}]" for i in reversed(range(len(storage.nvme_bytes))))
    return (
        "Personalities : [raid0] \n"
        f"md127 : active raid0 {members}\n"
        f"      {storage.md_bytes // 1024} blocks super 1.2 256k chunks\n"
        "      \n"
        "unused devices: <none>\n"
    )


def _mount(target: str, source: str, fstype: str, options: str, children: Sequence[Obj] = ()) -> Obj:
    out: Obj = {"target": target, "source": source, "fstype": fstype, "options": options}
    if children:
        out["children"] = list(children)
    return out


def findmnt(storage: Storage) -> str:
    """`findmnt -J` in the debug container: its own mounts, the host's tree under /host."""
    xfs = "rw,nosuid,nodev,noatime,attr2,inode64,logbufs=8,logbsize=256k,sunit=512,swidth={},noquota"
    ext4 = "rw,nosuid,nodev,noatime"
    if storage.raid:
        eph = "/dev/md127"
        eph_opts = xfs.format(512 * len(storage.nvme_bytes))
        kubelet_src = f"{eph}[/._var_lib_kubelet]"
        containerd_src = f"{eph}[/._var_lib_containerd]"
    else:
        eph, eph_opts = "/dev/nvme1n1p1", ext4
        kubelet_src = f"{eph}[/var/lib/kubelet]"
        containerd_src = f"{eph}[/var/lib/containerd]"
    pod_dir = f"/pods/{storage.pod_uid}"
    kubelet_files = f"{kubelet_src[:-1]}{pod_dir}"
    sandbox = f"{containerd_src[:-1]}/io.containerd.grpc.v1.cri/sandboxes/{storage.sandbox_id}"
    host_children = [
        _mount("/host/boot", "/dev/nvme0n1p3", "ext4", "ro,nosuid,nodev,noexec,noatime"),
        _mount("/host/dev", "devtmpfs", "devtmpfs", "rw,nosuid,noexec,size=4096k,nr_inodes=1048576,mode=755"),
        _mount("/host/proc", "proc", "proc", "rw,nosuid,nodev,noexec,relatime"),
        _mount("/host/sys", "sysfs", "sysfs", "rw,nosuid,nodev,noexec,noatime"),
        _mount("/host/local", "/dev/nvme1n1p1", "ext4", ext4),
        _mount(
            "/host/mnt",
            "/dev/nvme1n1p1[/mnt]",
            "ext4",
            ext4,
            [_mount("/host/mnt/.ephemeral", eph, "xfs", eph_opts)] if storage.raid else [],
        ),
        _mount("/host/opt", "/dev/nvme1n1p1[/opt]", "ext4", ext4),
        _mount(
            "/host/var",
            "/dev/nvme1n1p1[/var]",
            "ext4",
            ext4,
            [
                _mount(
                    "/host/var/lib/containerd", containerd_src, "xfs" if storage.raid else "ext4", eph_opts
                ),
                _mount("/host/var/lib/kubelet", kubelet_src, "xfs" if storage.raid else "ext4", eph_opts),
                *(
                    [_mount("/host/var/log/pods", f"{eph}[/._var_log_pods]", "xfs", eph_opts)]
                    if storage.raid
                    else []
                ),
            ],
        ),
    ]
    kind = "xfs" if storage.raid else "ext4"
    tree = _mount(
        "/",
        "overlay",
        "overlay",
        "rw,relatime,lowerdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/412/fs,"
        "upperdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/433/fs,"
        "workdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/433/work",
        [
            _mount("/proc", "proc", "proc", "rw,nosuid,nodev,noexec,relatime"),
            _mount(
                "/dev",
                "tmpfs",
                "tmpfs",
                "rw,nosuid,size=65536k,mode=755",
                [
                    _mount(
                        "/dev/pts",
                        "devpts",
                        "devpts",
                        "rw,nosuid,noexec,relatime,gid=5,mode=620,ptmxmode=666",
                    ),
                    _mount("/dev/mqueue", "mqueue", "mqueue", "rw,nosuid,nodev,noexec,relatime"),
                    _mount(
                        "/dev/termination-log",
                        f"{kubelet_files}/containers/debugger/{storage.container_id[:8]}]",
                        kind,
                        eph_opts,
                    ),
                    _mount("/dev/shm", "shm", "tmpfs", "rw,nosuid,nodev,noexec,relatime,size=65536k"),
                ],
            ),
            _mount(
                "/sys",
                "sysfs",
                "sysfs",
                "rw,nosuid,nodev,noexec,relatime",
                [_mount("/sys/fs/cgroup", "cgroup", "cgroup2", "rw,nosuid,nodev,noexec,relatime,nsdelegate")],
            ),
            _mount("/host", "/dev/dm-0", "ext4", "ro,nosuid,nodev,noatime", host_children),
            _mount("/etc/hosts", f"{kubelet_files}/etc-hosts]", kind, eph_opts),
            _mount("/etc/hostname", f"{sandbox}/hostname]", kind, eph_opts),
            _mount("/etc/resolv.conf", f"{sandbox}/resolv.conf]", kind, eph_opts),
        ],
    )
    return _smartcols_json({"filesystems": [tree]}) + "\n"


# --------------------------------------------------------------------------------------------- collector


@dataclass(frozen=True, slots=True)
class Section:
    name: str
    rc: int
    stdout: str
    stderr: str = ""


def collector_output(run_id: str, sections: Sequence[Section]) -> str:
    """What collector.sh prints: a marker line per section, the command's stdout and stderr, each followed
    by one newline."""
    out = [f"===KUBECTL-GPU:COLLECTOR {COLLECTOR_VERSION} id={run_id}===\n"]
    for s in sections:
        out.append(f"===KUBECTL-GPU:BEGIN {s.name} rc={s.rc} id={run_id}===\n{s.stdout}\n")
        if s.stderr:
            out.append(f"===KUBECTL-GPU:STDERR {s.name} id={run_id}===\n{s.stderr}\n")
        out.append(f"===KUBECTL-GPU:END {s.name} id={run_id}===\n")
    out.append(f"===KUBECTL-GPU:DONE id={run_id}===\n")
    return "".join(out)


def smi_sections(
    driver: str, cuda: str, gpus: Sequence[GpuState], topo: Topology, when: datetime, cgroups: str
) -> list[Section]:
    """The four nvidia-smi sections and pid-cgroups of a healthy node."""
    return [
        Section("nvidia-smi-xml", 0, nvidia_smi_xml(driver, cuda, gpus, when)),
        Section("nvidia-smi-csv", 0, query_gpu_csv(driver, gpus)),
        Section("nvidia-smi-list", 0, gpu_list(gpus)),
        Section("nvidia-smi-topo", 0, topo_matrix(len(gpus), topo)),
        Section("pid-cgroups", 0, cgroups),
    ]


def lost_gpu_sections(bus_id: str) -> list[Section]:
    """nvidia-smi on a node with a GPU that fell off the bus: every query stops at that GPU (NVML
    GPU_IS_LOST, exit 15); the collector's CSV retry and PID listing fail the same way."""
    error = f"Unable to determine the device handle for GPU {bus_id}: GPU is lost.  Reboot the system to recover this GPU"
    return [
        Section("nvidia-smi-xml", 15, "", error),
        Section("nvidia-smi-csv", 15, "", f"full query failed, using basic fields: {error}\n{error}"),
        Section("nvidia-smi-list", 15, "", error),
        Section("nvidia-smi-topo", 15, "", error),
        Section("pid-cgroups", 15, "", error),
    ]


def system_sections(
    driver: str, built: str, storage: Storage, kernel: str, os_release_text: str
) -> list[Section]:
    """driver-version, the storage sections, uname and os-release."""
    return [
        Section("driver-version", 0, driver_version(driver, built)),
        Section("lsblk", 0, lsblk(storage)),
        Section("mdstat", 0, mdstat(storage)),
        Section("findmnt", 0, findmnt(storage)),
        Section("uname", 0, kernel + "\n"),
        Section("os-release", 0, os_release_text),
    ]
