"""What the debug container runs: the collector script, or a shell pod that reports the devices it sees
and then sleeps for `kubectl exec`; and how to read that report from the pod's log."""

from __future__ import annotations

import re

import msgspec

from kubectl_gpu.core.debugpod.kinds import Accelerator
from kubectl_gpu.core.probe import parse_nvidia_smi_list
from kubectl_gpu.core.probe.errors import ProbeParseError

__all__ = [
    "SHELL_EXEC",
    "SHELL_READY",
    "ShellProbe",
    "collector_command",
    "parse_shell_probe",
    "shell_command",
]


def collector_command(script: str) -> tuple[str, ...]:
    """Run the collector from its text, so any image with a POSIX sh works (no copy of the script needed)."""
    return ("sh", "-c", script)


#: Printed by the shell pod before it sleeps: whether the container sees a device (read from its log).
SHELL_READY = "===KUBECTL-GPU:SHELL-READY"
_SHELL_PROBES = {
    Accelerator.NVIDIA: "nvidia-smi -L",
    Accelerator.NEURON: "ls -1 /dev/neuron[0-9]*",
}


def shell_command(accelerator: Accelerator, seconds: int) -> tuple[str, ...]:
    """Keep the pod alive for `kubectl exec`, after saying (in the log) which devices it sees."""
    probe = _SHELL_PROBES[accelerator]
    script = (
        f"{probe} 2>&1; echo \"{SHELL_READY} rc=$?===\"; trap 'exit 0' TERM INT; sleep {int(seconds)} & wait"
    )
    return ("sh", "-c", script)


#: What `kubectl gpu shell` runs through `kubectl exec` (bash where the image has it).
SHELL_EXEC = ("sh", "-c", "command -v bash >/dev/null 2>&1 && exec bash || exec sh")


class ShellProbe(msgspec.Struct, frozen=True):
    """What the shell pod printed before going to sleep."""

    ready: bool
    devices: int
    detail: str


def parse_shell_probe(log: str, accelerator: Accelerator) -> ShellProbe:
    """Read the shell pod's device check (see `shell_command`); `ready` once its marker line is there."""
    head, marker, tail = log.partition(SHELL_READY)
    if not marker:
        return ShellProbe(False, 0, "")
    rc_match = re.match(r" rc=(\d+)===", tail)
    rc = int(rc_match.group(1)) if rc_match else None
    text = head.strip()
    first = text.splitlines()[0] if text else ""
    if accelerator is Accelerator.NEURON:
        devices = len(re.findall(r"^/dev/neuron\d+$", text, re.MULTILINE))
    else:
        try:
            devices = len(parse_nvidia_smi_list(text)) if rc == 0 else 0
        except ProbeParseError:
            devices = 0
    return ShellProbe(True, devices, first[:200])
