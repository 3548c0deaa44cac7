"""`kubectl gpu cleanup`: the debug pods this tool left behind, listed and deleted.

Only pods of this tool's full shape are deleted (`core.debugpod.not_our_pod`: labels, annotations, a name
rebuilt from them, one `debugger` container on the annotated node): a pod that merely carries the
managed-by label is listed as not ours and left alone. Deletes retry through API errors as the runner's
do (`PodLifecycle.delete_until_gone`).

Of those, only pods left behind are deleted by default (`core.debugpod.leftover.judge`: finished, past
their deadline, or their creator provably gone): a live `shell` or `smi` of someone else is listed as in
use and kept, unless named on the command line or `--force` is given.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kubectl_gpu.cli.debug.common import connect
from kubectl_gpu.cli.options import GlobalOptions, OutputFormat, with_global_options
from kubectl_gpu.core.debugpod import DEBUG_POD_SELECTOR, not_our_pod
from kubectl_gpu.core.debugpod.leftover import Verdict, judge
from kubectl_gpu.core.errors import ExitCode

if TYPE_CHECKING:
    from kubectl_gpu.kube.debug.pod_api import PodApi

__all__ = ["cleanup", "register"]


def _key(pod: dict[str, Any]) -> tuple[str, str]:
    meta = pod.get("metadata") or {}
    return str(meta.get("namespace") or "default"), str(meta.get("name") or "")


def _listed(api: PodApi, namespace: str | None) -> list[dict[str, Any]]:
    from kubectl_gpu.kube.debug.pod_api import ApiFailure

    try:
        return api.list_pods(namespace, label=DEBUG_POD_SELECTOR)
    except ApiFailure as exc:
        scope = f"in namespace {namespace}" if namespace else "cluster-wide"
        raise api.failure_error(
            exc, f"listing pods {scope}", forbidden_hint="you need RBAC 'list' on pods"
        ) from None


def _split(
    pods: list[dict[str, Any]], names: list[str]
) -> tuple[list[dict[str, Any]], list[tuple[tuple[str, str], str]]]:
    """(ours, [(key, why not ours)]), narrowed to `names` when given."""
    ours: list[dict[str, Any]] = []
    foreign: list[tuple[tuple[str, str], str]] = []
    for pod in pods:
        if names and _key(pod)[1] not in names:
            continue
        why = not_our_pod(pod)
        if why is None:
            ours.append(pod)
        else:
            foreign.append((_key(pod), why))
    return ours, foreign


def _delete(api: PodApi, keys: list[tuple[str, str]]) -> tuple[list[str], list[str]]:
    from kubectl_gpu.kube.debug.runner import RunnerSettings
    from kubectl_gpu.kube.debug.runner.lifecycle import PodLifecycle

    deleter = PodLifecycle(api, RunnerSettings())
    deleted: list[str] = []
    failed: list[str] = []
    for ns, name in keys:
        problem = deleter.delete_until_gone(ns, name)
        if problem is None:
            deleted.append(f"{ns}/{name}")
        else:
            failed.append(f"{ns}/{name}: {problem}")
    return deleted, failed


def _judged(
    pods: list[dict[str, Any]], named: bool, force: bool
) -> tuple[list[dict[str, Any]], dict[tuple[str, str], Verdict]]:
    """(the pods to delete, each pod's verdict): left behind ones; all of them when named or with --force."""
    from kubectl_gpu.kube.debug.runner.creator import creator_alive

    now = datetime.now(UTC)
    verdicts = {_key(p): judge(p, now, creator_alive) for p in pods}
    chosen = [p for p in pods if named or force or verdicts[_key(p)].left_behind]
    return chosen, verdicts


def _state(verdict: Verdict) -> str:
    return f"{'left behind' if verdict.left_behind else 'in use'}: {verdict.why}"


def cleanup(
    ctx: typer.Context,
    names: Annotated[
        list[str] | None,
        typer.Argument(
            help="Only these debug pods (as smi and shell name them when one is left), in use or not.",
            show_default=False,
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Delete without asking.")] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Also delete debug pods still in use (a live smi or shell).")
    ] = False,
    *,
    opts: GlobalOptions,
) -> int:
    """List debug pods this tool left behind (label app.kubernetes.io/managed-by=kubectl-gpu and this tool's
    pod shape), in every namespace unless -n is given, and delete them. Left behind: finished, past its
    deadline, or its creator is gone; a pod still in use is listed and kept unless named or --force. Without
    --yes it asks on a terminal, and elsewhere only lists them and exits 1."""
    from kubectl_gpu.cli.say import say
    from kubectl_gpu.render.output import make_console, print_table
    from kubectl_gpu.render.smi_view import cleanup_table

    wanted = list(names or [])
    api = connect(opts)
    namespace = opts.namespace if opts.namespace and not opts.all_namespaces else None
    pods, foreign = _split(_listed(api, namespace), wanted)
    chosen, verdicts = _judged(pods, bool(wanted), force)
    out = make_console(no_color=opts.no_color)
    for (ns, name), why in foreign:
        say(f"warning: not deleting {ns}/{name}: not a kubectl-gpu debug pod ({why})", no_color=opts.no_color)
    keys = [_key(p) for p in chosen]
    in_use = [key for key in map(_key, pods) if key not in keys]
    for ns, name in in_use:
        say(
            f"note: not deleting {ns}/{name}: in use ({verdicts[ns, name].why}); name it or pass --force",
            no_color=opts.no_color,
        )
    found = {name for _, name in verdicts} | {k[1] for k, _ in foreign}
    machine = opts.format in (OutputFormat.json, OutputFormat.yaml)
    if not machine:
        for name in (n for n in wanted if n not in found):
            say(f"debug pod {name} is already gone", stdout=True)
        if pods:
            states = {key: _state(verdict) for key, verdict in verdicts.items()}
            print_table(out, cleanup_table(pods, datetime.now(UTC), states))
        if not chosen:
            left = f" ({len(in_use)} in use, kept)" if in_use else ""
            say(f"No debug pods left behind{left}.", stdout=True)
            return ExitCode.OK
    proceed = yes
    if chosen and not yes:
        if sys.stdin.isatty() and not machine:
            proceed = typer.confirm(f"Delete these {len(chosen)} pods?", default=False, err=True)
        else:
            say(f"not deleting {len(chosen)} debug pods without --yes")
    deleted, failed = _delete(api, keys) if proceed else ([], [])
    _report(opts, pods, deleted, failed, foreign, in_use, verdicts)
    if failed:
        return ExitCode.CLUSTER
    return ExitCode.OK if proceed or not chosen else ExitCode.FINDINGS


def _report(
    opts: GlobalOptions,
    pods: list[dict[str, Any]],
    deleted: list[str],
    failed: list[str],
    foreign: list[tuple[tuple[str, str], str]],
    in_use: list[tuple[str, str]],
    verdicts: dict[tuple[str, str], Verdict],
) -> None:
    from kubectl_gpu.cli.say import say
    from kubectl_gpu.render.output import dump_json, dump_yaml

    if opts.format in (OutputFormat.json, OutputFormat.yaml):
        doc = {
            "apiVersion": "kubectl-gpu/v1",
            "kind": "DebugPodCleanup",
            "pods": [f"{ns}/{name}" for ns, name in map(_key, pods)],
            "deleted": deleted,
            "failed": failed,
            "notOurs": [f"{ns}/{name}" for (ns, name), _ in foreign],
            "inUse": [f"{ns}/{name}: {verdicts[ns, name].why}" for ns, name in in_use],
        }
        sys.stdout.write(dump_json(doc) if opts.format is OutputFormat.json else dump_yaml(doc))
    else:
        for item in deleted:
            say(f"deleted {item}", stdout=True)
    for item in failed:
        say(f"error: could not delete {item}", style="red", no_color=opts.no_color)


def register(app: typer.Typer) -> None:
    app.command("cleanup")(with_global_options(cleanup))
