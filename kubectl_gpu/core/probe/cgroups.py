"""The collector's ``pid-cgroups`` section: the pod of each GPU process, read from its cgroup path.

::

    pid 21180
    0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod4f1e25a0_7c3b_4d2e_9a61_0b8c5d7e9f12.slice/cri-containerd-9c1d….scope
    pid 3127
    12:memory:/kubepods/besteffort/pod8d2c4a61-3b7e-4f0a-9e15-6c2d8b0a4f37/5b0e…
    11:pids:/kubepods/besteffort/pod8d2c4a61-3b7e-4f0a-9e15-6c2d8b0a4f37/5b0e…
    pid 977
    0::/system.slice/containerd.service

A ``pid <PID>`` line starts each process; the lines after it are that process's ``/proc/<PID>/cgroup``
(``hierarchy-ID:controller-list:cgroup-path``, one line for cgroup v2, one per hierarchy for v1). A ``pid``
line with nothing after it is a process that exited before its cgroup was read.

The pod UID comes from the path, in the forms the kubelet creates (QoS level ``burstable`` / ``besteffort``, or
none for Guaranteed pods):

- cgroupfs driver: ``/kubepods[/<qos>]/pod<uid>/<container>``
- systemd driver: ``/kubepods.slice[/kubepods-<qos>.slice]/kubepods[-<qos>]-pod<uid, - as _>.slice/<runtime>-<id>.scope``,
  also under another root (kind: ``kubelet.slice/kubelet-kubepods-…``)
- either, relative to the reader's cgroup namespace (``/../../besteffort/pod<uid>/…``)

Static pods have a 32-hex-digit UID (the hash of their manifest) instead of an RFC 4122 one.
"""

from __future__ import annotations

from kubectl_gpu.core.lazy_pattern import lazy_pattern

from .errors import ProbeParseError, snippet

__all__ = ["parse_pid_cgroups", "pod_uid_of_cgroup_path"]

FORMAT = "pid-cgroups"

_HEX = "[0-9a-fA-F]"
_UID = rf"{_HEX}{{8}}[-_]{_HEX}{{4}}[-_]{_HEX}{{4}}[-_]{_HEX}{{4}}[-_]{_HEX}{{12}}|{_HEX}{{32}}"
#: A systemd slice of a pod: ``kubepods-burstable-pod<uid>.slice``, ``kubelet-kubepods-pod<uid>.slice``.
_SYSTEMD_POD_RE = lazy_pattern(rf"(?:[^/]*-)?kubepods(?:-burstable|-besteffort)?-pod({_UID})\.slice")
#: A cgroupfs directory of a pod: ``pod<uid>`` under ``kubepods`` or its QoS directory.
_CGROUPFS_POD_RE = lazy_pattern(rf"pod({_UID})")
_QOS = frozenset({"burstable", "besteffort"})

_PID_RE = lazy_pattern(r"pid\s+([0-9]{1,10})")
_CGROUP_RE = lazy_pattern(r"([0-9]{1,10}):([^:]*):(/.*)")


def _under_kubepods(parents: list[str]) -> bool:
    """The directories above a ``pod<uid>`` one: ``…/kubepods[/<qos>]``, or ``..`` in a cgroup namespace."""
    if parents and parents[-1] in _QOS:
        parents = parents[:-1]
    return bool(parents) and parents[-1] in ("kubepods", "..")


def pod_uid_of_cgroup_path(path: str) -> str | None:
    """The pod UID a cgroup path belongs to (lower case, with dashes), or ``None`` outside ``kubepods``."""
    parts = [part for part in path.split("/") if part]
    for i, part in enumerate(parts):
        match = _SYSTEMD_POD_RE.fullmatch(part)
        if match is None:
            match = _CGROUPFS_POD_RE.fullmatch(part)
            if match is None or not _under_kubepods(parts[:i]):
                continue
        return match.group(1).replace("_", "-").lower()
    return None


def parse_pid_cgroups(text: str | bytes) -> dict[int, str]:
    """PID -> pod UID for the processes whose cgroup is a pod's; processes outside ``kubepods``, and those
    whose cgroup lines name different pods, are left out. Empty text means no GPU process: ``{}``."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    uids: dict[int, set[str]] = {}
    current: int | None = None
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line:
            continue
        pid = _PID_RE.fullmatch(line)
        if pid is not None:
            current = int(pid.group(1))
            if current < 1:
                raise ProbeParseError(FORMAT, f"line {number}: PID {current} is not a process")
            uids.setdefault(current, set())
            continue
        entry = _CGROUP_RE.fullmatch(line)
        if entry is None:
            raise ProbeParseError(
                FORMAT, f"line {number}: neither 'pid <PID>' nor a /proc/<pid>/cgroup line: {snippet(line)}"
            )
        if current is None:
            raise ProbeParseError(FORMAT, f"line {number}: a cgroup line before any 'pid <PID>' line")
        uid = pod_uid_of_cgroup_path(entry.group(3))
        if uid is not None:
            uids[current].add(uid)
    return {pid: next(iter(found)) for pid, found in uids.items() if len(found) == 1}
