"""The interactive half of a shell pod: which kubectl, its `exec` command line, the greeting, and running it
with the terminal. Shared by `kubectl gpu shell` and the TUI's `x` (which suspends itself around it)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kubectl_gpu.core.debugpod import Accelerator
from kubectl_gpu.core.debugpod.commands import SHELL_EXEC
from kubectl_gpu.core.errors import InvalidInput

if TYPE_CHECKING:  # the runner imports the kubernetes client; `--help` must not
    from kubectl_gpu.kube.debug.runner import NodeTarget, ShellPod

__all__ = ["exec_argv", "greeting", "kubectl_binary", "kubectl_flags", "run_in_foreground"]


def kubectl_binary() -> str:
    """`KUBECTL_GPU_KUBECTL`, else `kubectl` on PATH; InvalidInput when there is none."""
    found = os.environ.get("KUBECTL_GPU_KUBECTL") or shutil.which("kubectl")
    if not found:
        raise InvalidInput(
            "kubectl not found on PATH", "the shell hands the terminal to kubectl exec; install kubectl"
        )
    return found


def kubectl_flags(kubeconfig: str | None, context: str | None) -> list[str]:
    """Pin the kubeconfig and context we used, so a context switch meanwhile cannot retarget anything."""
    flags: list[str] = []
    if kubeconfig:
        flags += ["--kubeconfig", kubeconfig]
    if context:
        flags += ["--context", context]
    return flags


def exec_argv(
    kubectl: str, flags: Sequence[str], pod: ShellPod, *, tty: bool, command: Sequence[str] = ()
) -> list[str]:
    """`kubectl exec -i[t] -n NS POD -c debugger -- sh -c ...` with our kubeconfig and context pinned; with
    `command`, `-- COMMAND...` instead of the interactive shell (one command, as `kubectl exec` runs it)."""
    interactive = ["-i", "-t"] if tty else ["-i"]
    return [
        kubectl,
        *flags,
        "exec",
        *interactive,
        "-n",
        pod.namespace,
        pod.name,
        "-c",
        "debugger",
        "--",
        *(command or SHELL_EXEC),
    ]


def greeting(target: NodeTarget, pod: ShellPod) -> list[str]:
    """What is where in the shell; printed before kubectl takes the terminal."""
    if target.accelerator is Accelerator.NEURON:
        tools = "neuron-ls, neuron-top     the node's Neuron devices (/dev/neuron*)"
    else:
        tools = "nvidia-smi                GPUs, driver, processes (from the node's NVIDIA container runtime)"
    seen = f"{pod.probe.devices} visible" if pod.probe.devices else "none visible"
    return [
        f"kubectl-gpu: shell on node {target.name}, pod {pod.namespace}/{pod.name}, strategy {pod.strategy.value} "
        f"(devices: {seen})",
        f"  {tools}",
        "  /host                     the node's root filesystem",
        "  nsenter -t 1 -m -u -i -n -p -- sh    a shell in the node's own namespaces (hostPID + privileged)",
        "  nsenter -t 1 -m -- journalctl -u kubelet --no-pager -n 200    kubelet logs",
        "  dmesg | grep -i xid       GPU XID errors in the kernel log",
        "  note: `chroot /host` may be denied by SELinux on Bottlerocket / EKS Auto Mode; use nsenter",
        "The pod is deleted when you leave the shell (exit, Ctrl-D) or press Ctrl-C.",
        *(f"note: {n}" for n in pod.notes),
    ]


def run_in_foreground(argv: Sequence[str]) -> int:
    """Run kubectl with the terminal; Ctrl-C goes to it (a no-op handler here, reset to default in the child).
    Its exit status, as a shell gives it: 128 + N when a signal N killed it (never a negative number).

    Call it on the main thread (signal handlers can only be set there)."""
    previous = signal.signal(signal.SIGINT, lambda signum, frame: None)
    try:
        rc = subprocess.call(list(argv))
        return 128 - rc if rc < 0 else rc
    except OSError as exc:
        raise InvalidInput(f"cannot run {argv[0]}: {exc.strerror or exc}") from None
    finally:
        signal.signal(signal.SIGINT, previous)
