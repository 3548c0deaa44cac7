"""`kubectl gpu pending` and `kubectl gpu explain POD`: why GPU pods are Pending, and the fix."""

from __future__ import annotations

from typing import Annotated

import typer

from kubectl_gpu.cli.common import emit_data, load_state, pod_ref, print_notes
from kubectl_gpu.cli.options import GlobalOptions, OutputFormat, with_global_options
from kubectl_gpu.core.errors import ExitCode, InvalidInput

__all__ = ["register"]

_KINDS = [
    "nodes",
    "pods",
    "events",
    "nodepools",
    "nodeclaims",
    "nodeclasses",
    "ec2nodeclasses",
    "resourceslices",
]


def pending(
    ctx: typer.Context,
    all_pending: Annotated[
        bool, typer.Option("--all-pending", help="Every Pending pod, not only those that want accelerators.")
    ] = False,
    *,
    opts: GlobalOptions,
) -> int:
    """Every Pending pod that wants an accelerator: its verdict, the nearest NodePool (or node), the reason
    and the fix. Exit code 1 when any pod is blocked (anything but PROVISIONING)."""
    from kubectl_gpu.core.analyses.pending import analyse_pending
    from kubectl_gpu.core.catalog import load_catalog

    loaded = load_state(opts, _KINDS, selector_on="pods")
    report = analyse_pending(loaded.state, load_catalog(), loaded.now, all_pending=all_pending)
    code = ExitCode.FINDINGS if report.blocking else ExitCode.OK
    if emit_data(report.to_dict, opts.format, loaded.state.notes):
        return code
    from kubectl_gpu.render.output import make_console, print_table
    from kubectl_gpu.render.pending_view import pending_table

    print_notes(loaded.state.notes, no_color=opts.no_color)
    console = make_console(no_color=opts.no_color)
    if not report.pods:
        scope = "Pending pods" if all_pending else "Pending pods requesting accelerators"
        console.print(f"No {scope}.", markup=False)
        return code
    print_table(console, pending_table(report, wide=opts.format is OutputFormat.wide))
    return code


def explain(
    ctx: typer.Context,
    pod: Annotated[str, typer.Argument(help="Pod name, or NAMESPACE/NAME.")],
    *,
    opts: GlobalOptions,
) -> int:
    """One pod, target by target: what matches and what does not, the provisioner's own events, and the
    fix as YAML. Exit code 1 when the pod is blocked."""
    from kubectl_gpu.core.analyses.pending import analyse_pending
    from kubectl_gpu.core.catalog import load_catalog

    namespace, name = pod_ref(pod, opts.namespace, "explain")
    loaded = load_state(opts, _KINDS, selector_on="none")
    found = [p for p in loaded.state.pods if p.name == name and p.namespace == namespace]
    if not found:
        raise InvalidInput(f"pod {namespace}/{name} not found", "check the name and -n NAMESPACE")
    target = found[0]
    if target.phase != "Pending":
        raise InvalidInput(
            f"pod {namespace}/{name} is {target.phase}, not Pending", "explain diagnoses Pending pods"
        )
    report = analyse_pending(loaded.state, load_catalog(), loaded.now, pods=found)
    diag = report.pods[0]
    code = ExitCode.FINDINGS if diag.verdict.blocking else ExitCode.OK
    data = report.to_dict()
    data["kind"] = "PendingExplanation"
    data["pods"][0]["targets"] = [
        {
            "target": e.target.to_dict(),
            "offersAccelerator": e.offers,
            "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in e.checks],
            "fittingInstanceTypes": list(e.fitting_types),
        }
        for e in diag.evaluations
    ]
    if emit_data(data, opts.format, loaded.state.notes):
        return code
    from kubectl_gpu.render.output import make_console, print_table
    from kubectl_gpu.render.pending_view import explain_view

    print_notes(loaded.state.notes, no_color=opts.no_color)
    print_table(make_console(no_color=opts.no_color), explain_view(diag))
    return code


def register(app: typer.Typer) -> None:
    app.command("pending")(with_global_options(pending))
    app.command("explain")(with_global_options(explain))
