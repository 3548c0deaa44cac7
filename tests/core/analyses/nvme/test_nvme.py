"""`kubectl gpu nvme` on the scenario snapshot tests/scenarios/nvme/ (ours), NodeClass sizes in every unit
form, and the probe path driven by the real lsblk fixtures in tests/fixtures/probe/storage."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.analyses.nvme.analysis import (
    NvmeReport,
    NvmeState,
    build_nvme_report,
    capacity_matches,
    format_bytes,
    probe_storage,
)
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.k8s.parse import parse_objects
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.probe import parse_collector_output
from kubectl_gpu.core.report import Severity
from kubectl_gpu.kube.snapshot import load_snapshot
from tests.core.analyses.drivers.test_drivers import collector
from tests.helpers import FIXTURES, REPO, node
from tests.helpers import SCENARIOS as ALL_SCENARIOS

SCENARIOS = ALL_SCENARIOS / "nvme"
SCENARIO = SCENARIOS / "ours__nvme-states.yaml"
STORAGE = FIXTURES / "probe" / "storage"  # real lsblk output (leptonai/gpud testdata, see PROVENANCE.jsonl)
OURS = FIXTURES / "probe" / "ours"
NOW = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)

GPUD_MD0 = STORAGE / "gpud__lsblk-J__8x-nvme-7T-md0-raid0.json"
GPUD_INTEL = STORAGE / "gpud__lsblk-J__8x-nvme-intel-ssd.json"
OURS_2_OF_3 = OURS / "lsblk" / "ours__lsblk-J-b-o-collector-columns__2-of-3-instance-store-in-md127.json"
OURS_SINGLE = OURS / "lsblk" / "ours__lsblk-J-b__old-util-linux-string-values.json"
OURS_FINDMNT_MD127 = OURS / "findmnt" / "ours__findmnt-J__md127-mounted.json"
OURS_MDSTAT_RAID0 = OURS / "mdstat" / "ours__mdstat__raid0-2x-nvme.txt"
MINE_FINDMNT_MD0 = SCENARIOS / "ours__findmnt-J__kubelet-containerd-on-md0.txt"
MINE_FINDMNT_BR = SCENARIOS / "ours__findmnt-J__bottlerocket-ephemeral-on-nvme1n1.txt"
MINE_MDSTAT_MD0 = SCENARIOS / "ours__mdstat__md0-raid0-8x-nvme-partitions.txt"
MINE_MDSTAT_MD0_INACTIVE = SCENARIOS / "ours__mdstat__md0-inactive-7-of-8-nvme-partitions.txt"
MINE_MDSTAT_MD127_INACTIVE = SCENARIOS / "ours__mdstat__md127-inactive-nvme1n1.txt"


def probe_text(lsblk: Path | None = None, mdstat: Path | None = None, findmnt: Path | None = None) -> str:
    sections = {}
    if lsblk:
        sections["lsblk"] = lsblk.read_text()
    if mdstat:
        sections["mdstat"] = mdstat.read_text()
    if findmnt:
        sections["findmnt"] = findmnt.read_text()
    return collector(sections)


PROBED = {
    "i-probed-active": probe_text(GPUD_MD0, MINE_MDSTAT_MD0, MINE_FINDMNT_MD0),
    "i-probed-degraded": probe_text(OURS_2_OF_3, OURS_MDSTAT_RAID0, OURS_FINDMNT_MD127),
}


@pytest.fixture(scope="module")
def report() -> NvmeReport:
    state = load_snapshot([SCENARIO])
    for name, text in PROBED.items():
        state.probes[name] = {"output": text, "strategy": "privileged", "error": None}
    return build_nvme_report(state, load_catalog(), NOW)


def _rows(report: NvmeReport) -> dict[str, Any]:
    return {r.name: r for r in report.rows}


def _findings(report: NvmeReport) -> dict[tuple[str, str], Any]:
    return {(f.code, f.object.name): f for f in report.findings}


# ----------------------------------------------------------------------------------------------- states


def test_every_state_on_the_scenario(report: NvmeReport) -> None:
    states = {name: r.state for name, r in _rows(report).items()}
    assert states == {
        "i-likely": NvmeState.LIKELY_ACTIVE,
        "i-notused": NvmeState.NOT_USED,
        "i-mismatch": NvmeState.UNKNOWN,
        "i-nonvme": NvmeState.NO_NVME,
        "i-probed-active": NvmeState.ACTIVE,
        "i-probed-degraded": NvmeState.DEGRADED,
        "i-default": NvmeState.LIKELY_ACTIVE,
        "i-k-raid0": NvmeState.LIKELY_ACTIVE,
        "i-k-plain": NvmeState.NOT_USED,
        "i-other": NvmeState.UNKNOWN,
    }  # i-cpu is not a GPU node


def test_active_through_the_probe_real_lsblk(report: NvmeReport) -> None:
    row = _rows(report)["i-probed-active"]
    assert row.probed and row.devices == tuple(f"nvme{i}n1" for i in range(8))
    assert row.total_bytes is not None and row.total_bytes > 55 * 2**40  # "55.9T" from the real lsblk
    assert any("md0 (raid0" in e and "/var/lib/kubelet" in e for e in row.evidence)


def test_degraded_through_the_probe(report: NvmeReport) -> None:
    row = _rows(report)["i-probed-degraded"]
    assert row.devices == ("nvme1n1", "nvme2n1")
    assert "md127 (raid0) holds 2 of the 3 instance-store NVMe disks; not in it: nvme3n1" in (
        row.reason or ""
    )
    finding = _findings(report)[("NVME_DEGRADED", "i-probed-degraded")]
    assert finding.severity is Severity.ERROR and "`kubectl delete node i-probed-degraded`" in (finding.fix or "")
    assert report.exit_code() == 1


def test_not_used_auto_mode_size_at_least_the_nvme(report: NvmeReport) -> None:
    row = _rows(report)["i-notused"]
    assert (row.requested, row.spec.total_gb, row.cause) == ("300Gi", 250, "size")
    f = _findings(report)[("NVME_NOT_USED", "gpu-big")]
    assert f.object.kind == "NodeClass" and f.severity is Severity.WARNING
    assert "i-notused (g6e.xlarge, 1x250 GB)" in f.message
    assert '"size":"80Gi"' in (f.fix or "") and "below 250.0 GB" in (f.fix or "")


def test_not_used_ec2nodeclass_without_raid0(report: NvmeReport) -> None:
    row = _rows(report)["i-k-plain"]
    assert (row.instance_store_policy, row.cause) == (None, "policy")
    f = _findings(report)[("NVME_NOT_USED", "plain")]
    assert f.object.kind == "EC2NodeClass" and "instanceStorePolicy" in (f.fix or "")


def test_likely_active_and_default_size(report: NvmeReport) -> None:
    rows = _rows(report)
    assert rows["i-default"].requested == "80Gi" and rows["i-default"].requested_default
    assert rows["i-likely"].total_bytes == 3800 * 10**9
    assert rows["i-k-raid0"].instance_store_policy == "RAID0"
    assert not any(k[1] in ("i-likely", "i-default", "i-k-raid0") for k in _findings(report))


def test_capacity_mismatch_and_unknown(report: NvmeReport) -> None:
    found = _findings(report)
    mismatch = found[("NVME_CAPACITY_MISMATCH", "i-mismatch")]
    assert mismatch.severity is Severity.WARNING and "matches the NodeClass size" in mismatch.message
    unknown = found[("NVME_STATE_UNKNOWN", "i-other")]
    assert unknown.severity is Severity.INFO and "snapshot --probe" in (unknown.fix or "")
    assert {f.code for f in report.findings} == {
        "NVME_NOT_USED",
        "NVME_DEGRADED",
        "NVME_CAPACITY_MISMATCH",
        "NVME_STATE_UNKNOWN",
    }
    codes_page = (REPO / "docs" / "codes.md").read_text()
    for code in {f.code for f in report.findings}:
        assert f"`{code}`" in codes_page, code


def test_json_shape(report: NvmeReport) -> None:
    data = report.to_dict()
    assert data["apiVersion"] == "kubectl-gpu/v1" and data["kind"] == "NvmeReport"
    node_data = next(n for n in data["nodes"] if n["name"] == "i-notused")
    assert node_data["instanceType"] == "g6e.xlarge"
    nvme = node_data["nvme"]
    for key in (
        "state",
        "devices",
        "totalGB",
        "ephemeralStorageRequested",
        "nodeEphemeralCapacity",
        "evidence",
    ):
        assert key in nvme
    assert (nvme["state"], nvme["totalGB"], nvme["ephemeralStorageRequested"]) == ("NOT_USED", 250, "300Gi")
    assert nvme["ephemeralStorageRequestedBytes"] == 300 * 2**30
    assert nvme["nodeEphemeralCapacity"] == "314572800Ki"
    assert all(f["source"] == "nvme" for f in data["findings"])


# ----------------------------------------------------------------------------------------------- sizes


def _auto_state(size: str | None, itype: str, capacity: str | None) -> ClusterState:
    labels = {
        "node.kubernetes.io/instance-type": itype,
        "eks.amazonaws.com/compute-type": "auto",
        "eks.amazonaws.com/nodeclass": "nc",
        "karpenter.sh/nodepool": "gpu",
    }
    cap = {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"}
    if capacity:
        cap["ephemeral-storage"] = capacity
    spec: dict[str, Any] = {"role": "r"}
    if size is not None:
        spec["ephemeralStorage"] = {"size": size}
    nodeclass = {
        "apiVersion": "eks.amazonaws.com/v1",
        "kind": "NodeClass",
        "metadata": {"name": "nc"},
        "spec": spec,
    }
    models, _ = parse_objects([node("n", labels=labels, capacity=cap), nodeclass])
    state = ClusterState.of(models)
    return state


# g6e.xlarge: 1x250 GB = 250e9 bytes = 232.83 GiB (decimal GB, as the instance-local-nvme label).
@pytest.mark.parametrize(
    ("size", "state"),
    [
        ("80Gi", NvmeState.LIKELY_ACTIVE),
        ("200G", NvmeState.LIKELY_ACTIVE),
        ("232Gi", NvmeState.LIKELY_ACTIVE),  # 249.1e9 < 250e9
        ("233Gi", NvmeState.NOT_USED),  # 250.2e9: GiB vs GB matters
        ("249G", NvmeState.LIKELY_ACTIVE),
        ("250G", NvmeState.NOT_USED),  # equal: "equals or exceeds" -> EBS
        ("250000000000", NvmeState.NOT_USED),  # plain bytes
        ("249999999999", NvmeState.LIKELY_ACTIVE),
        ("0.25T", NvmeState.NOT_USED),
        ("244140625Ki", NvmeState.NOT_USED),  # exactly 250e9 bytes in Ki
        ("1Ti", NvmeState.NOT_USED),
        ("64T", NvmeState.NOT_USED),  # the NodeClass maximum
        ("58Ti", NvmeState.NOT_USED),
        ("59000Gi", NvmeState.NOT_USED),
        (None, NvmeState.LIKELY_ACTIVE),  # default 80Gi
    ],
)
def test_nodeclass_size_units_against_250_gb(size: str | None, state: NvmeState) -> None:
    # Capacity of an xfs filesystem on the 250 GB NVMe (98%): LIKELY_ACTIVE whenever NVMe is expected.
    report = build_nvme_report(_auto_state(size, "g6e.xlarge", "239257812Ki"), load_catalog(), NOW)
    assert report.rows[0].state is state


@pytest.mark.parametrize(
    ("size", "itype", "state"),
    [
        ("1Ti", "g6e.12xlarge", NvmeState.LIKELY_ACTIVE),  # 1.1e12 < 3.8e12
        ("4Ti", "g6e.12xlarge", NvmeState.NOT_USED),  # 4.4e12 > 3.8e12
        ("3800G", "g6e.12xlarge", NvmeState.NOT_USED),
        ("3799G", "g6e.12xlarge", NvmeState.LIKELY_ACTIVE),
        ("30T", "p5.48xlarge", NvmeState.LIKELY_ACTIVE),  # 30e12 < 30.4e12
        ("28Ti", "p5.48xlarge", NvmeState.NOT_USED),  # 30.8e12 > 30.4e12
        ("64T", "p5.48xlarge", NvmeState.NOT_USED),
    ],
)
def test_nodeclass_size_units_against_multi_disk_nvme(size: str, itype: str, state: NvmeState) -> None:
    nvme_gb = load_catalog().by_name(itype).local_nvme_total_gb  # type: ignore[union-attr]
    capacity = f"{int(nvme_gb * 10**9 * 0.98) // 1024}Ki"
    report = build_nvme_report(_auto_state(size, itype, capacity), load_catalog(), NOW)
    assert report.rows[0].state is state


def test_unknown_without_capacity_and_no_nvme_instance() -> None:
    assert build_nvme_report(_auto_state("80Gi", "g6e.xlarge", None), load_catalog(), NOW).rows[0].state is (
        NvmeState.UNKNOWN
    )
    assert build_nvme_report(_auto_state("80Gi", "p3.2xlarge", None), load_catalog(), NOW).rows[0].state is (
        NvmeState.NO_NVME
    )


def test_capacity_match_and_formatting() -> None:
    assert capacity_matches(Decimal(245 * 10**9), Decimal(250 * 10**9))
    assert not capacity_matches(Decimal(210 * 10**9), Decimal(250 * 10**9))
    assert format_bytes(200 * 2**30) == "214.7 GB (200 GiB)"
    assert format_bytes(3800 * 10**9) == "3.80 TB (3539 GiB)"
    assert format_bytes(None) == "-"


# ----------------------------------------------------------------------------------------------- probe path


def _storage(
    lsblk: Path | None, mdstat: Path | None = None, findmnt: Path | None = None, expected: int | None = None
) -> Any:
    probe = parse_collector_output(probe_text(lsblk, mdstat, findmnt))
    return probe_storage(probe, expected)


def test_real_md0_mounted_elsewhere_is_not_kubelet_storage() -> None:
    seen = _storage(GPUD_MD0)
    assert seen.state is NvmeState.NOT_USED and seen.array == "md0" and seen.level == "raid0"
    assert "mounted at /raid, which is not kubelet/containerd storage" in seen.problems[0]


def test_real_md0_with_kubelet_on_it_is_active() -> None:
    seen = _storage(GPUD_MD0, MINE_MDSTAT_MD0, MINE_FINDMNT_MD0, expected=8)
    assert seen.state is NvmeState.ACTIVE
    assert seen.targets == ("/var/lib/containerd", "/var/lib/kubelet")
    assert len(seen.devices) == 8


def test_real_md0_inactive_in_mdstat_is_degraded() -> None:
    seen = _storage(GPUD_MD0, MINE_MDSTAT_MD0_INACTIVE, MINE_FINDMNT_MD0)
    assert seen.state is NvmeState.DEGRADED
    assert seen.problems == ("/proc/mdstat: md0 is inactive",)


def test_array_with_fewer_members_than_the_instance_has_is_degraded() -> None:
    seen = _storage(GPUD_MD0, MINE_MDSTAT_MD0, MINE_FINDMNT_MD0, expected=10)
    assert seen.state is NvmeState.DEGRADED and "the instance type has 10" in seen.problems[0]
    seen = _storage(OURS_2_OF_3, OURS_MDSTAT_RAID0, OURS_FINDMNT_MD127)
    assert seen.state is NvmeState.DEGRADED and seen.array == "md127"


def test_real_nvme_disks_mounted_elsewhere_are_not_used() -> None:
    seen = _storage(GPUD_INTEL)
    assert seen.state is NvmeState.NOT_USED and len(seen.devices) == 8
    assert "/mnt/test-cache" in seen.problems[0]


def test_single_nvme_bottlerocket_ephemeral_is_active() -> None:
    assert _storage(OURS_SINGLE).state is NvmeState.NOT_USED  # mounted at /mnt/nvme only
    seen = _storage(OURS_SINGLE, findmnt=MINE_FINDMNT_BR)
    assert seen.state is NvmeState.ACTIVE and seen.devices == ("nvme1n1",) and seen.array is None
    assert seen.targets == ("/mnt/.ephemeral", "/var/lib/containerd", "/var/lib/kubelet")
    assert seen.total_bytes == 900_000_000_000


def test_inactive_array_without_assembled_device_is_degraded() -> None:
    seen = _storage(OURS_SINGLE, MINE_MDSTAT_MD127_INACTIVE)
    assert seen.state is NvmeState.DEGRADED and seen.array == "md127"


def test_only_ebs_disks_means_no_nvme(tmp_path: Path) -> None:
    ebs = tmp_path / "lsblk.json"
    ebs.write_text(
        '{"blockdevices": [{"name": "nvme0n1", "type": "disk", "size": 107374182400, '
        '"model": "Amazon Elastic Block Store", "mountpoint": null, "fstype": null, "children": [{"name": '
        '"nvme0n1p1", "type": "part", "size": 107372085248, "model": null, "mountpoint": "/", "fstype": "xfs"}]}]}'
    )
    assert _storage(ebs).state is NvmeState.NO_NVME


def test_probe_without_lsblk_falls_back_to_configuration() -> None:
    probe = parse_collector_output(collector({"mdstat": MINE_MDSTAT_MD0.read_text()}))
    assert probe_storage(probe) is None
    state = _auto_state("80Gi", "g6e.xlarge", "239257812Ki")
    state.probes["n"] = {"output": collector({"mdstat": MINE_MDSTAT_MD0.read_text()})}
    row = build_nvme_report(state, load_catalog(), NOW).rows[0]
    assert row.state is NvmeState.LIKELY_ACTIVE and not row.probed
    assert any("no usable lsblk" in e for e in row.evidence)


def test_probe_overrides_the_configuration_rule() -> None:
    # NodeClass asks for more than the NVMe (-> NOT_USED by rule), but the node shows kubelet on the NVMe.
    state = _auto_state("300Gi", "g6e.xlarge", "239257812Ki")
    state.probes["n"] = {"output": probe_text(OURS_SINGLE, None, MINE_FINDMNT_BR)}
    row = build_nvme_report(state, load_catalog(), NOW).rows[0]
    assert row.state is NvmeState.ACTIVE and row.probed
