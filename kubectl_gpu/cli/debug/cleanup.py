"""`kubectl gpu cleanup`: the debug pods this tool left behind, listed and deleted."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import Annotated

import typer

from kubectl_gpu.cli.debug.common import connect
from kubectl_gpu.cli.options import GlobalOptions, OutputFormat, with_global_options
from kubectl_gpu.core.debugpod import DEBUG_POD_SELECTOR
from kubectl_gpu.core.errors import ExitCode

__all__ = ["cleanup", "register"]


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

    api = connect(opts)
    namespace = opts.namespace if opts.namespace and not opts.all_namespaces else None
    try:
        pods = api.list_pods(namespace, label=DEBUG_POD_SELECTOR)
    except ApiFailure as exc:
        scope = f"in namespace {namespace}" if namespace else "cluster-wide"
        raise api.failure_error(
            exc, f"listing pods {scope}", forbidden_hint="you need RBAC 'list' on pods"
        ) from None
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
    app.command("cleanup")(with_global_options(cleanup))
