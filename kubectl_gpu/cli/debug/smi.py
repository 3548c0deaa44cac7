"""`kubectl gpu smi`: nvidia-smi (Neuron: neuron-ls) in a debug pod on each node, or read back from a saved
output or a snapshot bundle."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from kubectl_gpu.cli.debug.common import (
    NEURON_HELP,
    NVIDIA_HELP,
    connect,
    find_targets,
    image_chooser,
    namespace_of,
    pods_left_error,
    preflight,
    print_warnings,
)
from kubectl_gpu.cli.durations import parse_seconds
from kubectl_gpu.cli.global_options import GlobalOptions, OutputFormat
from kubectl_gpu.cli.readonly import refuse_pods_when_readonly
from kubectl_gpu.core.debugpod import Mode, Strategy
from kubectl_gpu.core.errors import ExitCode, InvalidInput

if TYPE_CHECKING:
    import typer

    from kubectl_gpu.core.analyses.smi import SmiResult
    from kubectl_gpu.core.k8s.state import ClusterState
    from kubectl_gpu.kube.debug.runner import Leftover

__all__ = ["register", "smi"]


def _exit_code(results: Sequence[SmiResult]) -> int:
    """3 when a node failed, 1 for an error finding, 4 when a node has no data (a snapshot that did not probe
    it: could not look), else 0."""
    if any(r.error and not r.missing for r in results):
        return ExitCode.CLUSTER
    if any(f.severity == "error" for r in results for f in r.findings):
        return ExitCode.FINDINGS
    if any(r.missing for r in results):
        return ExitCode.INCOMPLETE
    return ExitCode.OK


def _emit(results: Sequence[SmiResult], opts: GlobalOptions, raw: bool) -> int:
    from kubectl_gpu.cli.say import say
    from kubectl_gpu.render.output import dump_json, dump_yaml, make_console, print_table
    from kubectl_gpu.render.smi_view import smi_report, smi_view

    if raw:
        several = len(results) > 1
        for result in results:
            if result.raw is not None:
                if several:
                    sys.stdout.write(f"==> {result.node} <==\n")
                sys.stdout.write(result.raw)
            if result.error:
                say(f"error: {result.error}", style="red", no_color=opts.no_color)
        return _exit_code(results)
    if opts.format in (OutputFormat.json, OutputFormat.yaml):
        report = smi_report(results)
        sys.stdout.write(dump_json(report) if opts.format is OutputFormat.json else dump_yaml(report))
        for result in results:  # stdout stays one document; the per-node errors also go to stderr
            if result.error:
                say(f"error: {result.error}", style="red", no_color=opts.no_color)
    else:
        view = smi_view(results, wide=opts.format is OutputFormat.wide)
        print_table(make_console(no_color=opts.no_color), view.out)
        if view.err is not None:
            print_table(make_console(stderr=True, no_color=opts.no_color), view.err)
    return _exit_code(results)


def _print_errors(errors: Sequence[str], no_color: bool) -> None:
    from kubectl_gpu.cli.say import say

    for error in errors:
        say(f"error: {error}", style="red", no_color=no_color)


def _read_saved(path: str) -> str:
    """The saved output at `path` (`-`: stdin), refused past the snapshot size cap before it is read whole
    (`KUBECTL_GPU_MAX_SNAPSHOT_BYTES`: a file from its size, stdin as it is read)."""
    from kubectl_gpu.kube.snapshot_decode import read_bytes, read_stream

    if path != "-":
        return read_bytes(Path(path)).decode("utf-8", errors="replace")
    stream = getattr(sys.stdin, "buffer", None)
    try:
        data = read_stream(stream, "<stdin>") if stream is not None else sys.stdin.read().encode()
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read: {exc.strerror or exc}") from None
    return data.decode("utf-8", errors="replace")


def _from_file(path: str) -> SmiResult:
    from kubectl_gpu.core.analyses.smi import SmiResult, sees_accelerator, unseen_reason
    from kubectl_gpu.core.debugpod import Accelerator as Acc
    from kubectl_gpu.core.debugpod import parse_saved_output
    from kubectl_gpu.core.probe import ProbeParseError
    from kubectl_gpu.core.probe.nvidia_errors import NVIDIA_SMI_ERROR

    text = _read_saved(path)
    if not text.strip():
        raise InvalidInput(f"{path}: file is empty")
    hint = "pass nvidia-smi -q -x, --query-gpu CSV, or kubectl gpu smi --raw output"
    try:
        probe = parse_saved_output(text)
    except ProbeParseError as exc:
        raise InvalidInput(f"{path}: {exc}", hint) from None
    # nvidia-smi's own error text is an answer (NVIDIA_SMI_FAILED, exit 1), not an unreadable file.
    explained = any(issue.kind == NVIDIA_SMI_ERROR for issue in probe.issues)
    if probe.gpu_source is None and not probe.sections and not explained:  # names the collector only
        raise InvalidInput(f"{path}: not nvidia-smi or collector output (no collector section in it)", hint)
    error = None
    accelerator = Acc.NEURON if probe.neuron is not None and not probe.gpus else Acc.NVIDIA
    if not sees_accelerator(probe, accelerator) and not explained:
        error = f"{path}: no device in this output ({unseen_reason(probe, accelerator)})"
    no_pods = "--from-file reads no cluster, so there is no pod list to name their pod UIDs by"
    return SmiResult(None, None, probe, error=error, raw=text, pods_unknown=no_pods)


#: What `smi --snapshot` reads of the objects, beside the bundle's probes: the nodes, and their pods (to name
#: the processes' pods by UID: `core.analyses.smi.stored`)
_SNAPSHOT_KINDS = ("nodes", "pods")


def _from_snapshot(opts: GlobalOptions, names: Sequence[str]) -> list[SmiResult]:
    from kubectl_gpu.core.analyses.smi.stored import stored_results
    from kubectl_gpu.kube.snapshot import load_snapshot

    state = load_snapshot(opts.snapshot, kinds=_SNAPSHOT_KINDS)
    if not state.probes:
        raise InvalidInput(
            "the snapshot holds no probe results", "capture them with kubectl gpu snapshot --probe --out FILE"
        )
    _check_named_nodes(state, names)
    return stored_results(state, names)


def _check_named_nodes(state: ClusterState, names: Sequence[str]) -> None:
    """A named node the snapshot does not hold at all is not found (exit 2, as kubectl's NotFound is bad
    input); one it holds but did not probe stays a per-node error (exit 3). When the bundle could not list
    nodes, absence proves nothing: the per-node error says so."""
    if any(n.kind == "nodes" and n.code == "FORBIDDEN" for n in state.notes):
        return
    known = state.node_by_name
    missing = [name for name in names if name not in known and name not in state.probes]
    if missing:
        quoted = ", ".join(f'"{name}"' for name in missing)
        noun = "node" if len(missing) == 1 else "nodes"
        raise InvalidInput(
            f"{noun} {quoted} not found in the snapshot",
            "list its nodes with kubectl gpu nodes --all --snapshot FILE",
        )


def smi(
    nodes: Annotated[list[str] | None, typer.Argument(help="Node names.", show_default=False)] = None,
    all_nodes: Annotated[
        bool, typer.Option("--all", help="Every node with accelerators (with -l: those that match).")
    ] = False,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, max=64, help="Nodes at a time.")] = 8,
    timeout: Annotated[
        str, typer.Option("--timeout", help="Per node, pod creation to output (90s, 5m).")
    ] = "2m",
    strategy: Annotated[
        Strategy, typer.Option("--strategy", help="How the container gets the GPUs (see README).")
    ] = Strategy.AUTO,
    image: Annotated[str | None, typer.Option("--image", help=NVIDIA_HELP)] = None,
    neuron_image: Annotated[str | None, typer.Option("--neuron-image", help=NEURON_HELP)] = None,
    raw: Annotated[bool, typer.Option("--raw", help="Print the collector's output verbatim.")] = False,
    from_file: Annotated[
        str | None,
        typer.Option(
            "--from-file", help="Parse a saved output (nvidia-smi -q -x, CSV, --raw output); '-' = stdin."
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Print the pod and the equivalent kubectl debug; create nothing."),
    ] = False,
    *,
    opts: GlobalOptions,
) -> int:
    """Run nvidia-smi (Neuron: neuron-ls) in a debug pod on each node and show driver, CUDA, GPUs, memory,
    utilisation, ECC, MIG and processes. Pods are always deleted, also on errors and Ctrl-C."""
    from kubectl_gpu.cli.debug.collectors import run_collectors
    from kubectl_gpu.cli.debug.dry_run import print_dry_run
    from kubectl_gpu.core.analyses.smi import SmiResult

    names = list(nodes or [])
    seconds = parse_seconds(timeout, "--timeout")  # refused on every path, as kubectl refuses a bad flag
    if from_file is not None:
        if names or all_nodes or opts.snapshot:
            raise InvalidInput("--from-file reads no cluster; drop the node names, --all and --snapshot")
        return _emit([_from_file(from_file)], opts, raw)
    if opts.snapshot:
        return _emit(_from_snapshot(opts, names), opts, raw)
    if names and (all_nodes or opts.selector):
        raise InvalidInput("name nodes or use --all / -l, not both")
    if not dry_run:
        refuse_pods_when_readonly("smi")
    chooser = image_chooser(image, neuron_image)
    api = connect(opts)
    targets = find_targets(api, opts, names, all_nodes, chooser)
    print_warnings(targets.warnings, opts.no_color)
    namespace = namespace_of(opts)
    if dry_run:
        if targets.ready:
            print_dry_run(targets.ready, opts, api.context, strategy, Mode.SMI, chooser, seconds)
        if targets.errors:  # as without --dry-run: a node that cannot be run on (or is not there) is exit 3
            _print_errors([error for _, error in targets.errors], opts.no_color)
            return ExitCode.CLUSTER
        return ExitCode.OK
    results: list[SmiResult] = []
    left: list[Leftover] = []
    if targets.ready:
        print_warnings(preflight(api, namespace, Mode.SMI), opts.no_color)
        results, left = run_collectors(
            api,
            targets.ready,
            namespace=namespace,
            strategy=strategy,
            timeout=seconds,
            concurrency=concurrency,
            no_color=opts.no_color,
            left_error=lambda pods: pods_left_error(pods, opts, api.context),
        )
    results += [SmiResult(node, None, None, error=error) for node, error in targets.errors]
    order = {name: i for i, name in enumerate(names)}
    results.sort(key=lambda r: (order.get(r.node or "", 0), r.node or ""))
    code = _emit(results, opts, raw)
    if left:  # after the results: a pod left on a node outranks them, and says how to delete it
        raise pods_left_error(left, opts, api.context)
    return code


def register(app: typer.Typer) -> None:
    from kubectl_gpu.cli.options import with_global_options

    app.command("smi")(with_global_options(smi))
