"""`kubectl gpu shell`: an interactive shell in a debug pod on a node, through `kubectl exec`.

The exec command line, the greeting and the hand-over of the terminal live in `kube.debug.shell` (the TUI's
`x` uses them too)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from kubectl_gpu.cli.debug.common import (
    NEURON_HELP,
    NVIDIA_HELP,
    connect,
    find_targets,
    image_chooser,
    kubectl_flags,
    namespace_of,
    pods_left_error,
    preflight,
    print_warnings,
)
from kubectl_gpu.cli.durations import parse_seconds
from kubectl_gpu.cli.options import GlobalOptions, with_global_options
from kubectl_gpu.cli.readonly import refuse_pods_when_readonly
from kubectl_gpu.core.debugpod import Mode, Strategy
from kubectl_gpu.core.errors import ClusterError, ExitCode, Interrupted

__all__ = ["register", "shell"]

#: What the first signal and every later one say (a second Ctrl-C or CI's SIGTERM cannot stop the delete).
_CLEANING = "interrupted: cleaning up, deleting the debug pod...\n"
_STILL_CLEANING = (
    "interrupted again: still deleting the debug pod (at most a minute); SIGKILL would leave it on the node\n"
)


def shell(
    ctx: typer.Context,
    node: Annotated[str, typer.Argument(help="Node name.", show_default=False)],
    command: Annotated[
        list[str] | None,
        typer.Argument(
            help="After --: one command to run on the node instead of a shell; exits with its exit code.",
            metavar="[-- COMMAND [ARGS]...]",
            show_default=False,
        ),
    ] = None,
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
    tools), through kubectl exec; with -- COMMAND, runs that one command there and exits with its exit code.
    The pod is deleted when the shell or command exits, or on Ctrl-C."""
    from kubectl_gpu.cli.debug.dry_run import print_dry_run
    from kubectl_gpu.cli.say import say as say_line
    from kubectl_gpu.kube.debug.runner import DebugRunner, RunnerSettings, interrupts_on_sigterm, say
    from kubectl_gpu.kube.debug.shell import exec_argv, greeting, kubectl_binary, run_in_foreground

    seconds = parse_seconds(timeout, "--timeout")
    if not dry_run:
        refuse_pods_when_readonly("shell")
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
    kubectl = kubectl_binary()
    print_warnings(preflight(api, namespace, Mode.SHELL), opts.no_color)
    runner = DebugRunner(api, RunnerSettings(namespace=namespace, timeout=seconds))
    try:
        with (
            interrupts_on_sigterm(on_first=say(_CLEANING), on_again=say(_STILL_CLEANING)),
            runner.shell_pod(target, strategy) as pod,
        ):
            # One command: only the pod's notes (stderr), so that its stdout is the command's alone.
            said = [f"note: {n}" for n in pod.notes] if command else greeting(target, pod)
            for line in said:
                say_line(line, no_color=opts.no_color)
            # A command gets a terminal only when both ends are one (a pipe must get its bytes, no CRs).
            tty = sys.stdin.isatty() and (not command or sys.stdout.isatty())
            flags = kubectl_flags(opts, api.context, token=True)
            rc = run_in_foreground(exec_argv(kubectl, flags, pod, tty=tty, command=command or ()))
    except KeyboardInterrupt:
        left = runner.left_behind()
        if left:
            raise Interrupted(pods_left_error(left, opts, api.context).line()) from None
        raise
    left = runner.left_behind()
    if left:  # the pod may still be on the node: that outranks the shell's own status
        if command:
            say_line(f"note: the command exited {rc}", no_color=opts.no_color)
        raise pods_left_error(left, opts, api.context)
    return rc


def register(app: typer.Typer) -> None:
    app.command("shell")(with_global_options(shell))
