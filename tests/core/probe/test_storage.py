"""lsblk (-J, -P), findmnt -J and /proc/mdstat."""

from __future__ import annotations

import pytest

from kubectl_gpu.core.probe import (
    ProbeParseError,
    parse_findmnt_json,
    parse_lsblk_json,
    parse_lsblk_pairs,
    parse_mdstat,
)

from . import _fixtures as fx

RAID0 = "storage/gpud__lsblk-J__8x-nvme-7T-md0-raid0.json"
INTEL = "storage/gpud__lsblk-J__8x-nvme-intel-ssd.json"
PAIRS = "storage/gpud__lsblk-P__2x-nvme-xfs.txt"
OURS_COLLECTOR = "ours/lsblk/ours__lsblk-J-b-o-collector-columns__2-of-3-instance-store-in-md127.json"
OURS_OLD = "ours/lsblk/ours__lsblk-J-b__old-util-linux-string-values.json"


def test_every_storage_fixture_is_used() -> None:
    assert sorted(p.rsplit("/", 1)[1] for p in (RAID0, INTEL, PAIRS)) == fx.names("storage")


def test_lsblk_human_sizes_md0_raid0_over_8_nvme() -> None:
    report = parse_lsblk_json(fx.data(RAID0))
    assert len(report.devices) == 26
    nvme = report.nvme_disks()
    assert [d.name for d in nvme] == [f"nvme{i}n1" for i in range(8)]
    assert {(d.size_bytes, d.size_text) for d in nvme} == {(None, "7T")}
    assert nvme[0].approx_size_bytes == 7 * 1024**4
    (raid,) = report.raid_devices()
    assert (raid.name, raid.level, raid.size_text, raid.size_bytes) == ("md0", "raid0", "55.9T", None)
    assert raid.members == tuple(f"nvme{i}n1p1" for i in range(8))
    assert raid.mountpoints == ("/raid",)
    loop7 = next(d for d in report.devices if d.name == "loop7")
    assert loop7.mountpoints == ()  # "mountpoints": [null]
    sda = next(d for d in report.devices if d.name == "sda")
    assert [c.name for c in sda.children] == ["sda1", "sda2", "sda3"]
    assert sda.children[2].children[0].mountpoints == ("/",)


def test_lsblk_byte_sizes_eight_nvme_no_raid() -> None:
    report = parse_lsblk_json(fx.data(INTEL))
    assert len(report.devices) == 14
    nvme = report.nvme_disks()
    assert len(nvme) == 8
    assert nvme[0].name == "/dev/nvme0n1" and nvme[0].kernel_name == "nvme0n1"
    assert (nvme[0].size_bytes, nvme[0].model) == (960197124096, "Dell DC NVMe ISE 7450 RI U.2 960GB")
    assert sum(d.model == "INTEL SSDPF2KX076T1O" for d in nvme) == 6
    assert {d.size_bytes for d in nvme if d.model == "INTEL SSDPF2KX076T1O"} == {7681501126656}
    assert report.raid_devices() == ()
    mounts = sorted(m for dev, _ in report.walk() for m in dev.mountpoints)
    assert mounts == ["/mnt/local-volume/vol-0"] + [f"/mnt/test-cache/vol-{i}" for i in range(5)]


def test_lsblk_collector_columns() -> None:
    report = parse_lsblk_json(fx.data(OURS_COLLECTOR))
    assert [d.name for d in report.nvme_disks()] == ["nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1"]
    (raid,) = report.raid_devices()
    assert (raid.name, raid.level, raid.size_bytes) == ("md127", "raid0", 7599730507776)
    assert (raid.members, raid.mountpoints, raid.fstype) == (
        ("nvme1n1", "nvme2n1"),
        ("/mnt/k8s-disks/0",),
        "xfs",
    )
    assert report.devices[0].model == "Amazon Elastic Block Store"


def test_lsblk_old_util_linux_string_values() -> None:
    report = parse_lsblk_json(fx.data(OURS_OLD))
    disk = report.devices[1]
    assert (disk.size_bytes, disk.model, disk.mountpoints) == (
        900000000000,
        "Amazon EC2 NVMe Instance Storage",
        ("/mnt/nvme",),
    )


def test_lsblk_pairs() -> None:
    report = parse_lsblk_pairs(fx.data(PAIRS))
    assert [d.name for d in report.devices] == ["/dev/sda", "/dev/nvme0n1", "/dev/nvme1n1"]
    sda = report.devices[0]
    assert (sda.size_bytes, sda.model) == (959656755200, "INSPUR")
    assert [c.name for c in sda.children] == ["/dev/sda1", "/dev/sda2", "/dev/sda3"]
    assert [c.name for c in sda.children[2].children] == [
        "/dev/mapper/centos-root",
        "/dev/mapper/centos-swap",
    ]
    assert sda.children[2].children[0].mountpoints == ("/",)
    nvme = report.nvme_disks()
    assert [(d.size_bytes, d.model, d.mountpoints, d.fstype) for d in nvme] == [
        (3200631791616, "INTEL SSDPE2KE032T8", ("/data1",), "xfs"),
        (3200631791616, "INTEL SSDPE2KE032T8", ("/data2",), "xfs"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json",
        "[]",
        '{"blockdevices": {}}',
        '{"blockdevices": [{"type": "disk"}]}',
        '{"blockdevices": [{"name": "sda", "size": true}]}',
        '{"blockdevices": [{"name": "sda", "children": {}}]}',
        '{"blockdevices": [{"name": "sda", "mountpoints": "/"}]}',
        "[" * 100000,
    ],
)
def test_lsblk_json_rejects(text: str) -> None:
    with pytest.raises(ProbeParseError):
        parse_lsblk_json(text)


def test_lsblk_truncated() -> None:
    with pytest.raises(ProbeParseError, match="invalid JSON"):
        parse_lsblk_json(fx.data("ours/garbled/ours__lsblk-J__TRUNCATED.json"))
    real = fx.text(RAID0)
    with pytest.raises(ProbeParseError):
        parse_lsblk_json(real[: len(real) // 2])


@pytest.mark.parametrize("text", ["", "NAME=sda", 'NAME="sda" TYPE="disk" junk', 'TYPE="disk"'])
def test_lsblk_pairs_rejects(text: str) -> None:
    with pytest.raises(ProbeParseError):
        parse_lsblk_pairs(text)


def test_findmnt() -> None:
    mounts = parse_findmnt_json(fx.data("ours/findmnt/ours__findmnt-J__md127-mounted.json"))
    assert [m.target for m in mounts] == ["/", "/boot/efi", "/mnt/k8s-disks/0", "/var/lib/kubelet"]
    assert (mounts[2].source, mounts[2].fstype) == ("/dev/md127", "xfs")
    with pytest.raises(ProbeParseError):
        parse_findmnt_json('{"filesystems": [{"source": "x"}]}')


MDSTAT = "ours/mdstat/"


def test_mdstat_raid0_clean() -> None:
    md = parse_mdstat(fx.data(MDSTAT + "ours__mdstat__raid0-2x-nvme.txt"))
    assert md.personalities == ("raid0",)
    (arr,) = md.arrays
    assert (arr.name, arr.active, arr.level, arr.blocks, arr.super_version, arr.chunk_kib) == (
        "md0",
        True,
        "raid0",
        3710937088,
        "1.2",
        512,
    )
    assert [(m.name, m.slot) for m in arr.members] == [("nvme2n1", 1), ("nvme1n1", 0)]
    assert (arr.degraded, arr.sync, arr.sync_waiting) == (False, None, None)
    assert md.unused_devices == ()


def test_mdstat_raid1_degraded_with_faulty_member() -> None:
    arr = parse_mdstat(fx.data(MDSTAT + "ours__mdstat__raid1-degraded-faulty.txt")).arrays[0]
    assert (arr.level, arr.raid_disks, arr.working_disks, arr.member_status) == ("raid1", 2, 1, "U_")
    assert arr.failed_members == ("sdb1",)
    assert (arr.degraded, arr.sync, arr.sync_waiting) == (True, None, None)


def test_mdstat_raid5_recovery() -> None:
    arr = parse_mdstat(fx.data(MDSTAT + "ours__mdstat__raid5-recovery.txt")).arrays[0]
    assert (arr.level, arr.chunk_kib, arr.member_status, arr.degraded) == ("raid5", 512, "UU_", True)
    assert arr.sync is not None
    assert (arr.sync.action, arr.sync.percent, arr.sync.done_blocks, arr.sync.total_blocks) == (
        "recovery",
        27.4,
        287744,
        1046528,
    )
    assert (arr.sync.finish_minutes, arr.sync.speed_kib_per_sec) == (0.1, 143872)


def test_mdstat_raid10_resync_with_bitmap_and_pending_raid1() -> None:
    md = parse_mdstat(fx.data(MDSTAT + "ours__mdstat__raid10-resync-bitmap__raid1-pending.txt"))
    pending = md.array("md2")
    raid10 = md.array("md1")
    assert pending is not None and raid10 is not None
    assert (pending.read_only, pending.sync, pending.sync_waiting) == ("auto-read-only", None, "PENDING")
    assert pending.degraded is False
    assert raid10.sync is not None
    assert (raid10.sync.action, raid10.sync.percent, raid10.sync.finish_minutes) == ("resync", 0.6, 318.4)
    assert raid10.bitmap == "30/30 pages [120KB], 65536KB chunk"
    assert (raid10.chunk_kib, raid10.raid_disks, raid10.working_disks) == (512, 4, 4)
    assert md.array("md9") is None


def test_mdstat_inactive_spare_and_empty() -> None:
    arr = parse_mdstat(fx.data(MDSTAT + "ours__mdstat__inactive-spare.txt")).arrays[0]
    assert (arr.active, arr.level, arr.blocks) == (False, None, 1953382488)
    assert arr.members[0].spare
    assert parse_mdstat(fx.data(MDSTAT + "ours__mdstat__no-arrays.txt")).arrays == ()


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Personalities : [raid1]\n",  # no 'unused devices'
        "md0 : active raid1 sda1[0]\n      1 blocks [1/1] [U]\nunused devices: <none>\n",  # no Personalities
        "Personalities : [raid1]\nmd0 : active raid1 sda1[0]\nunused devices: <none>\n",  # no blocks line
        "Personalities : [raid1]\nmd0 : active raid1 sda1[0]\n      1 blocks\n      what\nunused devices: <none>\n",
        "Personalities : [raid1]\nmd0 : active\nunused devices: <none>\n",
        "Personalities : \nunused devices: <none>\nmd0 : active raid0 a[0]\n",
    ],
)
def test_mdstat_rejects(text: str) -> None:
    with pytest.raises(ProbeParseError) as info:
        parse_mdstat(text)
    assert str(info.value).startswith("mdstat: ")


def test_mdstat_truncated_file() -> None:
    with pytest.raises(ProbeParseError):
        parse_mdstat(fx.data(MDSTAT + "ours__mdstat__TRUNCATED.txt"))
