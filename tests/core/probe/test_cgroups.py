"""The pid-cgroups section: `pid <PID>` lines, each followed by that process's /proc/<PID>/cgroup."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_gpu.core.probe import (
    ProbeParseError,
    parse_collector_output,
    parse_pid_cgroups,
    pod_uid_of_cgroup_path,
)

from . import _fixtures as fx
from .test_collector import Block, collector_output, h100_mig_node

CGROUP = "ours/cgroup/"

A = "4f1e25a0-7c3b-4d2e-9a61-0b8c5d7e9f12"
B = "8d2c4a61-3b7e-4f0a-9e15-6c2d8b0a4f37"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "ours__pid-cgroups__v2-systemd-containerd__matches-l4-xml.txt",
            {10131: A, 13597: B},  # 16870 runs in system.slice
        ),
        (
            "ours__pid-cgroups__v1-cgroupfs-containerd__matches-h100-mig-xml.txt",
            {
                21180: "c3a9e0d4-52f1-4b86-8d07-1e6f2a9b5c48",  # burstable
                21198: "1b7f3e92-0c5a-4e1d-b6f8-93d2a4c7e015",  # besteffort
                21181: "e6d04b1f-8a27-4c39-95be-2f0d7c1a8e63",  # guaranteed: no QoS directory
            },
        ),
        (
            "ours__pid-cgroups__v1-hybrid-systemd-crio__exited-and-host.txt",
            {
                4410: "5a8c2e7d-94b1-4f3c-a60e-d7b2c1f9e384",
                5102: "9e4b7c10-2d6f-4a85-b3c9-0f1e8d5a7b26",
            },  # 4476 exited (no lines), 5230 is nvidia-persistenced
        ),
        (
            "ours__pid-cgroups__v2-cgroupfs-k3s__static-pod.txt",
            {
                3812: "2c6f9a13-7e48-4b0d-8f25-a1d3e6b9c704",
                3907: "7d1e4a8b-3c9f-4e26-b05a-6f2d8c1e3a97",
                4021: "a8a820fbada81c53d65a0c50e0f2a499",  # a static pod: the hash of its manifest
            },
        ),
        (
            "ours__pid-cgroups__kind-root-cgroupns-relative-docker-session.txt",
            {
                88412: "f0b3d8e1-6a25-4c7f-9d14-83e2b5a0c6f9",
                88530: "3e7a1c95-b8d2-4f60-a4e3-5c9f0d2b7e18",
                88577: "a4c8e2f6-1d3b-4a59-8e7c-0b6d9f3a1e25",
            },  # a plain docker container and a login session are no pods
        ),
    ],
)
def test_fixtures(name: str, expected: dict[int, str]) -> None:
    assert parse_pid_cgroups(fx.text(CGROUP + name)) == expected
    assert parse_pid_cgroups(fx.data(CGROUP + name)) == expected
    assert parse_pid_cgroups(fx.text(CGROUP + name).replace("\n", "\r\n")) == expected


UID = "0b3c9a1e-5d7f-4e28-9c64-a2f1d8e0b735"
SYS = UID.replace("-", "_")


@pytest.mark.parametrize(
    ("path", "uid"),
    [
        # cgroupfs driver (v1 and v2 alike): every QoS level
        (f"/kubepods/burstable/pod{UID}/abc123", UID),
        (f"/kubepods/besteffort/pod{UID}/abc123", UID),
        (f"/kubepods/pod{UID}/abc123", UID),
        (f"/kubepods/pod{UID}", UID),  # the pod's own cgroup (the sandbox)
        # systemd driver
        (f"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{SYS}.slice/cri-containerd-ab.scope", UID),
        (f"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod{SYS}.slice/crio-ab.scope", UID),
        (f"/kubepods.slice/kubepods-pod{SYS}.slice/docker-ab.scope", UID),
        (f"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{SYS}.slice/crio-conmon-ab.scope", UID),
        # another root, nesting, a cgroup namespace, a removed cgroup
        (f"/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod{SYS}.slice/cri-containerd-ab.scope", UID),
        (f"/docker/0123abcd/kubepods/burstable/pod{UID}/abc123", UID),
        (f"/../../pod{UID}/abc123", UID),
        (f"/../besteffort/pod{UID}/abc123", UID),
        (f"/kubepods/burstable/pod{UID}/abc123 (deleted)", UID),
        (f"/kubepods/burstable/pod{UID.upper()}/abc123", UID),
        # no pod
        ("/", None),
        ("/system.slice/containerd.service", None),
        ("/user.slice/user-1000.slice/session-3.scope", None),
        ("/kubepods/burstable", None),
        ("/kubepods.slice/kubepods-burstable.slice", None),
        (f"/system.slice/pod{UID}/abc123", None),  # pod<uid> outside kubepods
        (f"/kubepods/burstable/pod{UID[:-1]}/abc123", None),  # not a UID
        (f"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{SYS}.scope", None),
    ],
)  # fmt: skip
def test_cgroup_path_forms(path: str, uid: str | None) -> None:
    assert pod_uid_of_cgroup_path(path) == uid


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", {}),
        ("\n", {}),  # no GPU process
        ("pid 7\n", {}),  # exited before its cgroup was read
        (f"pid 7\n0::/kubepods/pod{UID}/c\npid 7\n0::/kubepods/pod{UID}/c\n", {7: UID}),  # repeated
        (f"pid  7\n0::/kubepods/pod{UID}/c\n\n", {7: UID}),
        # v1 lines disagreeing about the pod: no guess
        (f"pid 7\n4:memory:/kubepods/pod{UID}/c\n3:pids:/kubepods/pod{A}/c\n", {}),
        # v1 controllers in the root or elsewhere do not disagree
        (f"pid 7\n4:memory:/kubepods/pod{UID}/c\n3:rdma:/\n1:name=systemd:/system.slice/x\n", {7: UID}),
    ],
)
def test_section_bodies(text: str, expected: dict[int, str]) -> None:
    assert parse_pid_cgroups(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (fx.text("ours/garbled/ours__nvidia-smi__no-devices.txt"), "neither 'pid <PID>' nor"),
        (fx.text("ours/garbled/ours__nvidia-smi__driver-not-loaded.txt"), "neither 'pid <PID>' nor"),
        ("0::/kubepods/pod1\npid 3\n", "before any 'pid <PID>' line"),
        ("pid 0\n", "PID 0 is not a process"),
        ("pid x12\n", "neither"),
        ("pid 12\n0:/kubepods\n", "neither"),
        ("pid 12\n0::kubepods/pod\n", "neither"),  # a path starts with /
        ("pid 12345678901\n", "neither"),
    ],
)
def test_garbage_raises(text: str, message: str) -> None:
    with pytest.raises(ProbeParseError, match=r"^pid-cgroups: ") as info:
        parse_pid_cgroups(text)
    assert message in str(info.value) and "\n" not in str(info.value)


# --- in the collector's output ------------------------------------------------------------------------------


def _with_section(block: Block | None) -> str:
    """The H100 node's output with this pid-cgroups block (None: without one, as older collectors print)."""
    blocks = [b for b in h100_mig_node() if b.name != "pid-cgroups"]
    if block is not None:
        blocks.insert(4, block)  # after the nvidia-smi sections, as collector.sh prints it
    return collector_output(blocks)


def test_collector_output_fills_pid_pods() -> None:
    body = fx.text(CGROUP + "ours__pid-cgroups__v2-systemd-containerd__matches-l4-xml.txt")
    result = parse_collector_output(_with_section(Block("pid-cgroups", 0, body)))
    assert result.pid_pods == {10131: A, 13597: B}
    assert result.section("pid-cgroups") is not None
    assert [(i.section, i.kind) for i in result.issues] == [("nvidia-smi-xml", "failed")]


def test_empty_section_is_no_gpu_process_not_an_issue() -> None:
    result = parse_collector_output(_with_section(Block("pid-cgroups", 0, "")))
    assert result.pid_pods == {}
    assert "pid-cgroups" not in {i.section for i in result.issues}


@pytest.mark.parametrize(
    ("block", "kinds"),
    [
        (Block("pid-cgroups", 127, "", "nvidia-smi: command not found"), {"failed"}),
        (Block("pid-cgroups", 6, "", "No devices were found"), {"failed"}),
        (Block("pid-cgroups", 0, "Failed to initialize NVML: Driver/library version mismatch"), {"parse"}),
    ],
)
def test_failing_section_is_an_issue_not_an_exception(block: Block, kinds: set[str]) -> None:
    result = parse_collector_output(_with_section(block))
    assert result.pid_pods == {}
    assert {i.kind for i in result.issues if i.section == "pid-cgroups"} == kinds
    assert result.gpus  # the rest is parsed as before


def test_older_output_without_the_section() -> None:
    result = parse_collector_output(_with_section(None))
    assert result.pid_pods == {}
    assert ("pid-cgroups", "missing") in {(i.section, i.kind) for i in result.issues}


# --- properties ---------------------------------------------------------------------------------------------

FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

uids = st.uuids().map(str)
pids = st.integers(1, 4_194_304)
container = st.text("0123456789abcdef", min_size=12, max_size=64)


@st.composite
def pod_path(draw: st.DrawFn, uid: str) -> str:
    """A cgroup path of a container of pod `uid`, in any of the forms the kubelet creates."""
    qos = draw(st.sampled_from(["", "burstable", "besteffort"]))
    cid = draw(container)
    root = draw(st.sampled_from(["", "/kubelet.slice", "/docker/abc"]))
    if draw(st.booleans()):  # systemd driver
        prefix = "kubelet-" if root == "/kubelet.slice" else ""
        parent = f"{prefix}kubepods" + (f"-{qos}" if qos else "")
        qos_slice = f"/{parent}.slice" if qos else ""
        runtime = draw(st.sampled_from(["cri-containerd", "crio", "docker"]))
        return f"{root}/{prefix}kubepods.slice{qos_slice}/{parent}-pod{uid.replace('-', '_')}.slice/{runtime}-{cid}.scope"
    return f"{root}/kubepods" + (f"/{qos}" if qos else "") + f"/pod{uid}/{cid}"


@st.composite
def section(draw: st.DrawFn) -> tuple[str, dict[int, str]]:
    """A pid-cgroups body (v1 or v2 lines) and the PID -> pod UID map it must give."""
    lines: list[str] = []
    expected: dict[int, str] = {}
    for pid in draw(st.lists(pids, unique=True, max_size=6)):
        lines.append(f"pid {pid}")
        kind = draw(st.sampled_from(["pod", "host", "exited"]))
        if kind == "exited":
            continue
        if kind == "pod":
            uid = draw(uids)
            path = draw(pod_path(uid))
            expected[pid] = uid
        else:
            path = draw(
                st.sampled_from(["/", "/system.slice/containerd.service", "/user.slice/session-1.scope"])
            )
        if draw(st.booleans()):
            lines.append(f"0::{path}")
        else:
            lines += [f"7:memory:{path}", f"3:cpu,cpuacct:{path}", "2:rdma:/", f"1:name=systemd:{path}"]
    return "\n".join(lines) + "\n", expected


@FUZZ
@given(case=section())
def test_generated_sections_round_trip(case: tuple[str, dict[int, str]]) -> None:
    text, expected = case
    assert parse_pid_cgroups(text) == expected


@FUZZ
@given(text=st.text(max_size=400))
def test_arbitrary_text_parses_or_raises_probe_parse_error(text: str) -> None:
    try:
        parse_pid_cgroups(text)
    except ProbeParseError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 400


@FUZZ
@given(data=st.data())
def test_mutated_fixtures_parse_or_raise_probe_parse_error(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(fx.names("ours/cgroup")))
    blob = bytearray(fx.data(CGROUP + name))
    blob = blob[: data.draw(st.integers(0, len(blob)))]
    for _ in range(data.draw(st.integers(0, 6))):
        if blob:
            blob[data.draw(st.integers(0, len(blob) - 1))] = data.draw(st.integers(0, 255))
    try:
        result = parse_pid_cgroups(bytes(blob))
    except ProbeParseError:
        return
    assert all(isinstance(k, int) and k > 0 and isinstance(v, str) for k, v in result.items())
