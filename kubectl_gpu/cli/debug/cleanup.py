"""`kubectl gpu cleanup`: the debug pods this tool left behind, listed and deleted.

Only pods of this tool's full shape are deleted (`core.debugpod.not_our_pod`: labels, annotations, a name
rebuilt from them, one `debugger` container on the annotated node): a pod that merely carries the
managed-by label is listed as not ours and left alone. Deletes retry through API errors as the runner's
do (`PodLifecycle.delete_until_gone`).
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kubectl_gpu.cli.debug.common import connect
from kubectl_gpu.cli.options import GlobalOptions, OutputFormat, with_global_options
from kubectl_gpu.core.debugpod import DEBUG_POD_SELECTOR, not_our_pod
from kubectl_gpu.core.errors import ExitCode

if TYPE_CHECKING:
    from kubectl_gpu.kube.pod_api import PodApi

__all__ = ["cleanup", "register"]


def _key(pod: dict[str, Any]) -> tuple[str, str]:
    meta = pod.get("metadata") or {}
    return str(meta.get("namespace") or "default"), str(meta.get("name") or "")


def _listed(api: PodApi, namespace: str | None) -> list[dict[str, Any]]:
    from kubectl_gpu.kube.pod_api import ApiFailure

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
    from kubectl_gpu.kube.debug_runner import RunnerSettings
    from kubectl_gpu.kube.debug_runner.lifecycle import PodLifecycle

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


def cleanup(
    ctx: typer.Context,
    names: Annotated[
        list[str] | None,
        typer.Argument(
            help="Only these debug pods (as smi and shell name them when one is left).", show_default=False
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Delete without asking.")] = False,
    *,
    opts: GlobalOptions,
) -> int:
    """List debug pods this tool left behind (label app.kubernetes.io/managed-by=kubectl-gpu and this tool's
    pod shape), in every namespace unless -n is given, and delete them. Without --yes it asks on a
    terminal, and elsewhere only lists them and exits 1."""
    from kubectl_gpu.render.output import dump_json, dump_yaml, make_console, print_table
    from kubectl_gpu.render.smi_view import cleanup_table

    wanted = list(names or [])
    api = connect(opts)
    namespace = opts.namespace if opts.namespace and not opts.all_namespaces else None
    pods, foreign = _split(_listed(api, namespace), wanted)
    out = make_console(no_color=opts.no_color)
    err = make_console(stderr=True, no_color=opts.no_color)
    for (ns, name), why in foreign:
        err.print(f"warning: not deleting {ns}/{name}: not a kubectl-gpu debug pod ({why})", markup=False)
    keys = [_key(p) for p in pods]
    gone = [n for n in wanted if n not in {name for _, name in keys} | {k[1] for k, _ in foreign}]
    machine = opts.format in (OutputFormat.json, OutputFormat.yaml)
    if not machine:
        for name in gone:
            out.print(f"debug pod {name} is already gone", markup=False)
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
    deleted, failed = _delete(api, keys) if proceed else ([], [])
    if machine:
        doc = {
            "apiVersion": "kubectl-gpu/v1",
            "kind": "DebugPodCleanup",
            "pods": [f"{ns}/{name}" for ns, name in keys],
            "deleted": deleted,
            "failed": failed,
            "notOurs": [f"{ns}/{name}" for (ns, name), _ in foreign],
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
    app.command("cleanup")(with_global_options(cleanup))
