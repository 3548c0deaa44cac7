"""Which process creates a debug pod, and whether that process still runs: what lets `cleanup` tell a pod
left behind by a run that died from one a run is still using (`core.debugpod.leftover`)."""

from __future__ import annotations

import functools
import os
import socket

from kubectl_gpu.core.debugpod.leftover import Creator

__all__ = ["creator_alive", "this_creator"]


def _started(pid: int) -> str:
    """The process's start time in clock ticks since boot (Linux `/proc/PID/stat`, field 22); "" elsewhere.
    With the pid it names one process: a pid reused later has another start time."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return ""
    fields = text.rpartition(")")[2].split()  # the command name, in parentheses, may hold spaces
    return fields[19] if len(fields) > 19 and fields[19].isdigit() else ""


@functools.cache
def this_creator() -> Creator:
    pid = os.getpid()
    return Creator(socket.gethostname(), pid, _started(pid))


def creator_alive(creator: Creator) -> bool | None:
    """True while the creator runs, False when it provably does not, None when this host cannot tell."""
    if creator.host != socket.gethostname():
        return None
    try:
        os.kill(creator.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, another user's
    except (OverflowError, ValueError):
        return None
    if creator.started and os.path.exists("/proc/self/stat"):
        return _started(creator.pid) == creator.started  # "" now: it ended meanwhile
    return True
