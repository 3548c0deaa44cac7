"""`kubectl gpu shell`: an interactive shell in a debug pod on a node, through `kubectl exec`."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import typer

from kubectl_gpu.cli.debug.common import (
    NEURON_HELP,
    NVIDIA_HELP,
    connect,
    find_targets,
    image_chooser,
    kubectl_flags,
    namespace_of,
    parse_seconds,
    pods_left_error,
    preflight,
    print_warnings,
)
from kubectl_gpu.cli.debug.dry_run import print_dry_run
from kubectl_gpu.cli.options import GlobalOptions, with_global_options
from kubectl_gpu.core.debugpod import Accelerator, Mode, Strategy
from kubectl_gpu.core.debugpod.commands import SHELL_EXEC
from kubectl_gpu.core.errors import ClusterError, ExitCode, Interrupted, InvalidInput

if TYPE_CHECKING:
    from kubectl_gpu.kube.debug_runner import NodeTarget, ShellPod

__all__ = ["exec_argv", "greeting", "register", "shell"]


def _kubectl_binary() -> str:
    found = os.environ.get("KUBECTL_GPU_KUBECTL") or shutil.which("kubectl")
    if not found:
        raise InvalidInput(
            "kubectl not found on PATH", "the shell hands the terminal to kubectl exec; install kubectl"
        )
    return found


def exec_argv(kubectl: str, flags: Sequence[str], pod: ShellPod, *, tty: bool) -> list[str]:
    """`kubectl exec -i[t] -n NS POD -c debugger -- sh -c ...` with our kubeconfig and context pinned."""
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
        *SHELL_EXEC,
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


def _run_in_foreground(argv: Sequence[str]) -> int:
    """Run kubectl with the terminal; Ctrl-C goes to it (a no-op handler here, reset to default in the child)."""
    previous = signal.signal(signal.SIGINT, lambda signum, frame: None)
    try:
        return subprocess.call(list(argv))
    except OSError as exc:
        raise InvalidInput(f"cannot run {argv[0]}: {exc.strerror or exc}") from None
    finally:
        signal.signal(signal.SIGINT, previous)


def shell(
    ctx: typer.Context,
    node: Annotated[str, typer.Argument(help="Node name.", show_default=False)],
    strategy: Annotated[
        Strategy, typer.Option("--strategy", help="How the container gets the GPUs (see README).")
    ] = Strategy.AUTO,
    timeout: Annotated[str, typer.Option("--timeout", help="How long the pod may take to start.")] = "2m",
    image: Annotated[str | None, typer.Option("--image", help=NVIDIA_HELP)] = None,
    neuron_image: Annotated[str | None, typer.Option("--neuron-image", help=NEURON_HELP)] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Print the pod and the equivalent kubectl debug; create nothing."),
    ] = False,
    *,
    opts: GlobalOptions,
) -> int:
    """An interactive debug shell on the node (privileged, host namespaces, the node's / at /host, GPU
    tools), through kubectl exec. The pod is deleted when the shell exits or on Ctrl-C."""
    from kubectl_gpu.kube.debug_runner import DebugRunner, RunnerSettings, interrupts_on_sigterm
    from kubectl_gpu.render.output import make_console

    seconds = parse_seconds(timeout, "--timeout")
    chooser = image_chooser(image, neuron_image)
    api = connect(opts)
    targets = find_targets(api, opts, [node], False, chooser)
    print_warnings(targets.warnings, opts.no_color)
    if targets.errors:
        raise ClusterError(targets.errors[0][1])
    target = targets.ready[0]
    namespace = namespace_of(opts)
    if dry_run:
        print_dry_run([target], opts, api.context, strategy, Mode.SHELL, chooser, seconds)
        return ExitCode.OK
    kubectl = _kubectl_binary()
    print_warnings(preflight(api, namespace, Mode.SHELL), opts.no_color)
    runner = DebugRunner(api, RunnerSettings(namespace=namespace, timeout=seconds))
    err = make_console(stderr=True, no_color=opts.no_color)
    try:
        with interrupts_on_sigterm(), runner.shell_pod(target, strategy) as pod:
            for line in greeting(target, pod):
                err.print(line, markup=False, highlight=False, soft_wrap=True)
            argv = exec_argv(kubectl, kubectl_flags(opts, api.context), pod, tty=sys.stdin.isatty())
            rc = _run_in_foreground(argv)
    except KeyboardInterrupt:
        left = runner.left_behind()
        if left:
            raise Interrupted(pods_left_error(left, opts, api.context).line()) from None
        raise
    left = runner.left_behind()
    if left:  # the pod may still be on the node: that outranks the shell's own status
        raise pods_left_error(left, opts, api.context)
    return rc


def register(app: typer.Typer) -> None:
    app.command("shell")(with_global_options(shell))
