"""`kubectl gpu smi`, `shell` and `cleanup`: GPU debug pods on nodes, and the pods they may leave behind.

Exit codes: `smi` 0 ok, 1 a GPU health finding (uncorrectable ECC, row remapping failed or pending, pending
page retirement, an NVML error value), 2 bad input (flags, --from-file), 3 a node failed (partial results
are still shown), 130 interrupted (pods deleted first). `shell` exits with kubectl exec's status.
`cleanup` 0 nothing left or all deleted, 1 pods listed but not deleted (no --yes), 3 a delete failed.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kubectl_gpu.cli.options import GlobalOptions, OutputFormat, with_global_options
from kubectl_gpu.core.debugpod import (
    DEBUG_POD_SELECTOR,
    SHELL_EXEC,
    Accelerator,
    DebugPodSpec,
    ImageChoice,
    Mode,
    SmiResult,
    Strategy,
    attempts,
    build_debug_pod,
    collector_command,
    kubectl_debug_command,
    parse_saved_output,
    resolve_image,
    shell_command,
)
from kubectl_gpu.core.timeutil import TimeError, parse_duration
from kubectl_gpu.errors import ClusterError, ExitCode, InputError, Interrupted

if TYPE_CHECKING:
    from kubectl_gpu.core.cluster import ClusterState
    from kubectl_gpu.kube.debug_runner import NodeTarget, ShellPod
    from kubectl_gpu.kube.pod_api import PodApi
    from kubectl_gpu.kube.preflight import Targets

__all__ = ["config_path", "probe_for_snapshot", "register"]

NVIDIA_HELP = "Debug image for NVIDIA nodes (else KUBECTL_GPU_IMAGE, the config file, the default)."
NEURON_HELP = "Debug image for Neuron nodes (else KUBECTL_GPU_NEURON_IMAGE, the config file, the default)."


# --------------------------------------------------------------------------------------------------------------
# Settings: durations, images, the connection
# --------------------------------------------------------------------------------------------------------------


def _seconds(text: str, flag: str) -> float:
    try:
        seconds = float(text) if text.replace(".", "", 1).isdigit() else parse_duration(text).total_seconds()
    except TimeError:
        raise InputError(f"{flag}: not a duration: {text!r}", "use forms like 90s, 5m") from None
    if seconds <= 0:
        raise InputError(f"{flag} must be positive")
    return seconds


def config_path(env: dict[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/kubectl-gpu/config.yaml` (default `~/.config/kubectl-gpu/config.yaml`)."""
    values = os.environ if env is None else env
    base = values.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "kubectl-gpu" / "config.yaml"


def _read_config(path: Path) -> dict[str, Any] | None:
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        raise InputError(f"{path}: not valid YAML") from None
    if data is None:
        return None
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a mapping (e.g. image: {{nvidia: REF, neuron: REF}})")
    return data


def _image_chooser(image: str | None, neuron_image: str | None) -> Callable[[Accelerator], ImageChoice]:
    """flag > environment > config file > the default tag of this version."""
    path = config_path()
    config = _read_config(path)
    env = dict(os.environ)

    def choose(accelerator: Accelerator) -> ImageChoice:
        flag = image if accelerator is Accelerator.NVIDIA else neuron_image
        try:
            return resolve_image(accelerator, flag=flag, env=env, config=config, config_path=str(path))
        except ValueError as exc:
            raise InputError(str(exc)) from None

    return choose


def _connect(opts: GlobalOptions) -> PodApi:
    from kubectl_gpu.kube.live import LiveOptions, LiveSource
    from kubectl_gpu.kube.pod_api import PodApi

    if opts.snapshot:
        raise InputError("debug pods need a live cluster; --snapshot cannot be used here")
    source = LiveSource(
        LiveOptions(kubeconfig=opts.kubeconfig, context=opts.context, request_timeout=opts.timeout_seconds)
    )
    return PodApi(source.api, request_timeout=opts.timeout_seconds, context=source.context)


def _namespace(opts: GlobalOptions) -> str:
    return opts.namespace or "default"


def _kubectl_flags(opts: GlobalOptions, context: str | None) -> list[str]:
    """Pin the kubeconfig and context we used, so a context switch meanwhile cannot retarget anything."""
    flags: list[str] = []
    if opts.kubeconfig:
        flags += ["--kubeconfig", opts.kubeconfig]
    if context:
        flags += ["--context", context]
    return flags


def _print_warnings(lines: Sequence[str], no_color: bool) -> None:
    from kubectl_gpu.render.output import make_console

    console = make_console(stderr=True, no_color=no_color)
    for line in dict.fromkeys(lines):
        console.print(f"warning: {line}", style="yellow", markup=False, highlight=False, soft_wrap=True)


def _collector_script() -> str:
    from importlib import resources

    return resources.files("kubectl_gpu.data").joinpath("collector.sh").read_text(encoding="utf-8")


def _targets(
    api: PodApi,
    opts: GlobalOptions,
    names: Sequence[str],
    all_nodes: bool,
    chooser: Callable[[Accelerator], ImageChoice],
) -> Targets:
    from kubectl_gpu.core.catalog import load_catalog
    from kubectl_gpu.kube.preflight import resolve_targets

    return resolve_targets(
        api,
        names=names,
        selector=opts.selector,
        all_gpu=all_nodes or bool(opts.selector),
        catalog=load_catalog(),
        image_for=lambda accelerator: chooser(accelerator).image,
    )


def _preflight(api: PodApi, namespace: str, mode: Mode) -> list[str]:
    from kubectl_gpu.kube.preflight import check_access, check_pod_security

    return check_pod_security(api, namespace) + check_access(api, namespace, mode)


# --------------------------------------------------------------------------------------------------------------
# --dry-run
# --------------------------------------------------------------------------------------------------------------


def _dry_run(
    targets: Sequence[NodeTarget],
    opts: GlobalOptions,
    context: str | None,
    strategy: Strategy,
    mode: Mode,
    chooser: Callable[[Accelerator], ImageChoice],
    timeout: float,
) -> None:
    from kubectl_gpu.kube.debug_runner import RunnerSettings, random_suffix
    from kubectl_gpu.render.smi_view import DryRunPlan, dry_run_text

    script = _collector_script() if mode is Mode.SMI else ""
    plans = []
    lifetime = RunnerSettings().shell_lifetime
    for target in targets:
        first = attempts(strategy)[0]
        notes: list[str] = []
        if strategy is Strategy.AUTO:
            notes.append(
                f"auto: when this pod sees no device, a second pod requests one {target.resource or '-'} "
                f"({target.free} free on the node)"
            )
        if first is Strategy.REQUEST and target.free < 1:
            notes.append(
                f"warning: no {target.resource or 'accelerator'} is free on the node; this pod would stay Pending"
            )
        command = (
            collector_command(script) if mode is Mode.SMI else shell_command(target.accelerator, lifetime)
        )
        spec = DebugPodSpec(
            node=target.name,
            image=target.image,
            suffix=random_suffix(),
            command=command,
            namespace=_namespace(opts),
            accelerator=target.accelerator,
            strategy=first,
            resource=target.resource,
            mode=mode,
            active_deadline_seconds=lifetime if mode is Mode.SHELL else int(timeout) + 60,
        )
        plans.append(
            DryRunPlan(
                node=target.name,
                strategy=strategy.value,
                image_source=chooser(target.accelerator).source,
                manifest=build_debug_pod(spec),
                kubectl=kubectl_debug_command(spec, _kubectl_flags(opts, context)),
                notes=tuple(notes),
            )
        )
    sys.stdout.write(dry_run_text(plans))


# --------------------------------------------------------------------------------------------------------------
# smi
# --------------------------------------------------------------------------------------------------------------


def _exit_code(results: Sequence[SmiResult]) -> int:
    if any(r.error for r in results):
        return ExitCode.CLUSTER
    if any(f.severity == "error" for r in results for f in r.findings):
        return ExitCode.FINDINGS
    return ExitCode.OK


def _emit(results: Sequence[SmiResult], opts: GlobalOptions, raw: bool) -> int:
    from kubectl_gpu.render.output import dump_json, dump_yaml, make_console
    from kubectl_gpu.render.smi_view import print_smi, smi_report

    err = make_console(stderr=True, no_color=opts.no_color)
    if raw:
        several = len(results) > 1
        for result in results:
            if result.raw is not None:
                if several:
                    sys.stdout.write(f"==> {result.node} <==\n")
                sys.stdout.write(result.raw)
            if result.error:
                err.print(
                    f"error: {result.error}", style="red", markup=False, highlight=False, soft_wrap=True
                )
        return _exit_code(results)
    if opts.format in (OutputFormat.json, OutputFormat.yaml):
        report = smi_report(results)
        sys.stdout.write(dump_json(report) if opts.format is OutputFormat.json else dump_yaml(report))
        for result in results:  # stdout stays one document; the per-node errors also go to stderr
            if result.error:
                err.print(
                    f"error: {result.error}", style="red", markup=False, highlight=False, soft_wrap=True
                )
    else:
        print_smi(make_console(no_color=opts.no_color), err, results, wide=opts.format is OutputFormat.wide)
    return _exit_code(results)


def _from_file(path: str) -> SmiResult:
    from kubectl_gpu.core.debugpod import Accelerator as Acc
    from kubectl_gpu.core.debugpod import sees_accelerator, unseen_reason
    from kubectl_gpu.core.probe import ProbeParseError

    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not text.strip():
        raise InputError(f"{path}: file is empty")
    try:
        probe = parse_saved_output(text)
    except ProbeParseError as exc:
        raise InputError(
            f"{path}: {exc}", "pass nvidia-smi -q -x, --query-gpu CSV, or kubectl gpu smi --raw output"
        ) from None
    error = None
    accelerator = Acc.NEURON if probe.neuron is not None and not probe.gpus else Acc.NVIDIA
    if not sees_accelerator(probe, accelerator):
        error = f"{path}: no device in this output ({unseen_reason(probe, accelerator)})"
    no_pods = "--from-file reads no cluster, so there is no pod list to name their pod UIDs by"
    return SmiResult(None, None, probe, error=error, raw=text, pods_unknown=no_pods)


def _snapshot_pods(state: ClusterState) -> Callable[[str], tuple[dict[str, str] | None, str | None]]:
    """node -> (its pods from the bundle, UID -> namespace/name; or None and why the bundle has none)."""
    from kubectl_gpu.core.attribution import pod_names_by_uid

    missing = next((n for n in state.notes if n.kind == "pods" and n.code == "FORBIDDEN"), None)
    if missing is not None:
        why = f"the snapshot holds no pod list ({missing.message})"
        return lambda node: (None, why)
    return lambda node: (pod_names_by_uid(state.pods_by_node.get(node, [])), None)


def _from_snapshot(opts: GlobalOptions, names: Sequence[str]) -> list[SmiResult]:
    from kubectl_gpu.kube.snapshot import load_snapshot

    state = load_snapshot(opts.snapshot)
    if not state.probes:
        raise InputError(
            "the snapshot holds no probe results", "capture them with kubectl gpu snapshot --probe --out FILE"
        )
    pods_of = _snapshot_pods(state)
    wanted = list(names) or sorted(state.probes)
    results = []
    for node in wanted:
        stored = state.probes.get(node)
        if stored is None:
            results.append(SmiResult(node, None, None, error=f"node {node}: not probed in this snapshot"))
            continue
        entry = stored if isinstance(stored, dict) else {"output": stored}
        output = entry.get("output")
        probe = parse_saved_output(output) if isinstance(output, str) and output else None
        pods, pods_unknown = pods_of(node)
        results.append(
            SmiResult(
                node,
                entry.get("strategy"),
                probe,
                error=entry.get("error") or (None if probe else f"node {node}: no output stored"),
                raw=output if isinstance(output, str) else None,
                image=entry.get("image"),
                pods=pods,
                pods_unknown=pods_unknown,
            )
        )
    return results


def _run_collectors(
    api: PodApi,
    targets: Sequence[NodeTarget],
    *,
    namespace: str,
    strategy: Strategy,
    timeout: float,
    concurrency: int,
    no_color: bool,
) -> list[SmiResult]:
    """Fan the collector out over the nodes, with a progress display on a terminal; Ctrl-C deletes pods."""
    from kubectl_gpu.kube.debug_runner import DebugRunner, RunnerSettings, interrupts_on_sigterm, run_parallel
    from kubectl_gpu.render.output import make_console
    from kubectl_gpu.render.smi_view import fanout_progress

    script = _collector_script()
    err = make_console(stderr=True, no_color=no_color)
    api.allow_concurrency(concurrency)
    cancel = threading.Event()
    grace = 2 * (api.request_timeout or 30.0) + 5
    with fanout_progress(err, len(targets), enabled=err.is_terminal) as (on_phase, on_done):
        runner = DebugRunner(
            api, RunnerSettings(namespace=namespace, timeout=timeout), cancel=cancel, on_phase=on_phase
        )
        try:
            with interrupts_on_sigterm():
                results = run_parallel(
                    targets,
                    lambda target: runner.collect(target, strategy, script),
                    concurrency=concurrency,
                    cancel=cancel,
                    grace=grace,
                    on_done=lambda target, _result: on_done(target.name),
                    on_interrupt=lambda: err.print("interrupted: deleting debug pods...", markup=False),
                )
        except KeyboardInterrupt:
            left = runner.delete_leftovers()
            _warn_left(left, no_color)
            raise Interrupted("debug pods deleted" if not left else "") from None
    _warn_left(runner.delete_failures, no_color)
    return results


def _warn_left(left: Sequence[str], no_color: bool) -> None:
    if left:
        _print_warnings(
            [f"could not delete debug pod {item}; run kubectl gpu cleanup" for item in left], no_color
        )


def smi(
    ctx: typer.Context,
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
    names = list(nodes or [])
    if from_file is not None:
        if names or all_nodes or opts.snapshot:
            raise InputError("--from-file reads no cluster; drop the node names, --all and --snapshot")
        return _emit([_from_file(from_file)], opts, raw)
    if opts.snapshot:
        return _emit(_from_snapshot(opts, names), opts, raw)
    if names and (all_nodes or opts.selector):
        raise InputError("name nodes or use --all / -l, not both")
    seconds = _seconds(timeout, "--timeout")
    chooser = _image_chooser(image, neuron_image)
    api = _connect(opts)
    targets = _targets(api, opts, names, all_nodes, chooser)
    _print_warnings(targets.warnings, opts.no_color)
    namespace = _namespace(opts)
    if dry_run:
        _dry_run(targets.ready, opts, api.context, strategy, Mode.SMI, chooser, seconds)
        return ExitCode.OK
    results: list[SmiResult] = []
    if targets.ready:
        _print_warnings(_preflight(api, namespace, Mode.SMI), opts.no_color)
        results = _run_collectors(
            api,
            targets.ready,
            namespace=namespace,
            strategy=strategy,
            timeout=seconds,
            concurrency=concurrency,
            no_color=opts.no_color,
        )
    results += [SmiResult(node, None, None, error=error) for node, error in targets.errors]
    order = {name: i for i, name in enumerate(names)}
    results.sort(key=lambda r: (order.get(r.node or "", 0), r.node or ""))
    return _emit(results, opts, raw)


# --------------------------------------------------------------------------------------------------------------
# snapshot --probe
# --------------------------------------------------------------------------------------------------------------


def probe_for_snapshot(
    opts: GlobalOptions, *, timeout: float = 120.0, concurrency: int = 8
) -> tuple[dict[str, Any], list[str]]:
    """Collector output of every accelerator node, for a snapshot bundle: ({node: entry}, warnings).

    Never raises for a cluster problem: a bundle without probes is still worth writing."""
    warnings: list[str] = []
    try:
        chooser = _image_chooser(None, None)
        api = _connect(opts)
        targets = _targets(api, opts, [], True, chooser)
        warnings += targets.warnings
        namespace = _namespace(opts)
        warnings += _preflight(api, namespace, Mode.SMI)
        results = _run_collectors(
            api,
            targets.ready,
            namespace=namespace,
            strategy=Strategy.AUTO,
            timeout=timeout,
            concurrency=concurrency,
            no_color=opts.no_color,
        )
    except (ClusterError, InputError) as exc:
        return {}, [*warnings, f"--probe: no probes: {exc.line()}"]
    captured = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    probes: dict[str, Any] = {}
    for result in results:
        probes[result.node or "?"] = {
            "output": result.raw,
            "strategy": result.strategy,
            "image": result.image,
            "error": result.error,
            "capturedAt": captured,
        }
        if result.error:
            warnings.append(f"--probe: {result.error}")
    for node, error in targets.errors:
        probes[node] = {
            "output": None,
            "strategy": None,
            "image": None,
            "error": error,
            "capturedAt": captured,
        }
        warnings.append(f"--probe: {error}")
    return probes, warnings


# --------------------------------------------------------------------------------------------------------------
# shell
# --------------------------------------------------------------------------------------------------------------


def _kubectl_binary() -> str:
    found = os.environ.get("KUBECTL_GPU_KUBECTL") or shutil.which("kubectl")
    if not found:
        raise InputError(
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
        raise InputError(f"cannot run {argv[0]}: {exc.strerror or exc}") from None
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

    seconds = _seconds(timeout, "--timeout")
    chooser = _image_chooser(image, neuron_image)
    api = _connect(opts)
    targets = _targets(api, opts, [node], False, chooser)
    _print_warnings(targets.warnings, opts.no_color)
    if targets.errors:
        raise ClusterError(targets.errors[0][1])
    target = targets.ready[0]
    namespace = _namespace(opts)
    if dry_run:
        _dry_run([target], opts, api.context, strategy, Mode.SHELL, chooser, seconds)
        return ExitCode.OK
    kubectl = _kubectl_binary()
    _print_warnings(_preflight(api, namespace, Mode.SHELL), opts.no_color)
    runner = DebugRunner(api, RunnerSettings(namespace=namespace, timeout=seconds))
    err = make_console(stderr=True, no_color=opts.no_color)
    with interrupts_on_sigterm(), runner.shell_pod(target, strategy) as pod:
        for line in greeting(target, pod):
            err.print(line, markup=False, highlight=False, soft_wrap=True)
        argv = exec_argv(kubectl, _kubectl_flags(opts, api.context), pod, tty=sys.stdin.isatty())
        rc = _run_in_foreground(argv)
    _warn_left(runner.delete_failures, opts.no_color)
    return rc


# --------------------------------------------------------------------------------------------------------------
# cleanup
# --------------------------------------------------------------------------------------------------------------


def cleanup(
    ctx: typer.Context,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Delete without asking.")] = False,
    *,
    opts: GlobalOptions,
) -> int:
    """List debug pods this tool left behind (label app.kubernetes.io/managed-by=kubectl-gpu), in every
    namespace unless -n is given, and delete them. Without --yes it asks on a terminal, and elsewhere only
    lists them and exits 1."""
    from kubectl_gpu.kube.pod_api import ApiFailure
    from kubectl_gpu.render.output import dump_json, dump_yaml, make_console, print_table
    from kubectl_gpu.render.smi_view import cleanup_table

    api = _connect(opts)
    namespace = opts.namespace if opts.namespace and not opts.all_namespaces else None
    try:
        pods = api.list_pods(namespace, label=DEBUG_POD_SELECTOR)
    except ApiFailure as exc:
        scope = f"in namespace {namespace}" if namespace else "cluster-wide"
        raise ClusterError(f"cannot list pods {scope}: {exc}", "you need RBAC 'list' on pods") from None
    out = make_console(no_color=opts.no_color)
    err = make_console(stderr=True, no_color=opts.no_color)
    keys = [
        ((p.get("metadata") or {}).get("namespace", "default"), (p.get("metadata") or {}).get("name", ""))
        for p in pods
    ]
    machine = opts.format in (OutputFormat.json, OutputFormat.yaml)
    if not machine:
        if not pods:
            out.print("No debug pods left behind.", markup=False)
            return ExitCode.OK
        print_table(out, cleanup_table(pods, datetime.now(UTC)))
    proceed = yes
    if pods and not yes:
        if sys.stdin.isatty() and not machine:
            proceed = typer.confirm(f"Delete these {len(pods)} pods?", default=False, err=True)
        else:
            err.print(f"not deleting {len(pods)} debug pods without --yes", markup=False)
    deleted: list[str] = []
    failed: list[str] = []
    if proceed:
        for ns, name in keys:
            try:
                api.delete_pod(ns, name)
            except ApiFailure as exc:
                if exc.status != 404:
                    failed.append(f"{ns}/{name}: {exc}")
                    continue
            deleted.append(f"{ns}/{name}")
    if machine:
        doc = {
            "apiVersion": "kubectl-gpu/v1",
            "kind": "DebugPodCleanup",
            "pods": [f"{ns}/{name}" for ns, name in keys],
            "deleted": deleted,
            "failed": failed,
        }
        sys.stdout.write(dump_json(doc) if opts.format is OutputFormat.json else dump_yaml(doc))
    else:
        for item in deleted:
            out.print(f"deleted {item}", markup=False)
    for item in failed:
        err.print(f"error: could not delete {item}", markup=False, style="red")
    if failed:
        return ExitCode.CLUSTER
    return ExitCode.OK if proceed or not pods else ExitCode.FINDINGS


def register(app: typer.Typer) -> None:
    app.command("smi")(with_global_options(smi))
    app.command("shell")(with_global_options(shell))
    app.command("cleanup")(with_global_options(cleanup))
