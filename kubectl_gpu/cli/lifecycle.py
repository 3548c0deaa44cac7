"""`kubectl gpu lifecycle`: when each GPU node expires or may be replaced, and whether a GPU job survives."""

from __future__ import annotations

from datetime import timedelta
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


_MAX_NEEDS = timedelta(days=36500)


def lifecycle(
    ctx: typer.Context,
    pod: Annotated[
        str | None,
        typer.Option("--pod", help="Only this pod (NAMESPACE/NAME, or NAME with -n) and its node."),
    ] = None,
    needs: Annotated[
        str | None,
        typer.Option(
            "--needs",
            help="How much longer the pod(s) must run, e.g. 11d, 36h. Exit code 1 unless they survive it.",
        ),
    ] = None,
    include_all: Annotated[
        bool, typer.Option("--all", help="Every Karpenter / Auto Mode node, not only accelerator nodes.")
    ] = False,
    *,
    opts: GlobalOptions,
) -> int:
    """Per GPU node: created, expireAfter (or its default) and the Auto Mode 21-day cap, terminationGracePeriod,
    when it expires and why, Drifted, disruption budgets (UTC windows) and when disruption is next allowed,
    consolidation policy, do-not-disrupt. Per running GPU pod: how long it has run, what can disrupt it next and
    when, and a risk level. --pod NS/NAME --needs 11d answers "will this job survive 11 more days?"."""
    from kubectl_gpu.core.analyses.lifecycle.analysis import analyse_lifecycle
    from kubectl_gpu.core.catalog import load_catalog
    from kubectl_gpu.core.k8s.times import TimeError, parse_duration

    wanted: tuple[timedelta, str] | None = None
    if needs is not None:
        try:
            delta = parse_duration(needs)
        except TimeError as exc:
            raise InvalidInput(f"--needs: {exc}") from None
        except OverflowError:  # beyond timedelta's range
            delta = _MAX_NEEDS + _MAX_NEEDS
        if delta.total_seconds() <= 0:
            raise InvalidInput(f"--needs must be positive, got {needs!r}")
        if delta > _MAX_NEEDS:  # the analysis adds it to dates: keep it far from datetime's year 9999
            raise InvalidInput(f"--needs: {needs!r} is too long", "at most 36500d (100 years)")
        wanted = (delta, needs)
    target: tuple[str, str] | None = None
    if pod is not None:
        target = pod_ref(pod, opts.namespace, "--pod")
    loaded = load_state(opts, _KINDS, selector_on="none" if target else "nodes")
    if target is not None:
        found = next((p for p in loaded.state.pods if (p.namespace, p.name) == target), None)
        if found is None:
            raise InvalidInput(f"pod {target[0]}/{target[1]} not found", "check the name and -n NAMESPACE")
        if found.node_name is None:
            raise InvalidInput(
                f"pod {target[0]}/{target[1]} is not bound to a node ({found.phase})",
                "for a Pending pod run `kubectl gpu explain`",
            )
        if found.node_name not in loaded.state.node_by_name:
            raise InvalidInput(f"node {found.node_name} of pod {target[0]}/{target[1]} was not read")
    report = analyse_lifecycle(
        loaded.state, load_catalog(), loaded.now, pod=target, needs=wanted, include_all=include_all
    )
    code = ExitCode.FINDINGS if report.survival_failed else ExitCode.OK
    if emit_data(report.to_dict, opts.format, loaded.state.notes):
        return code
    from kubectl_gpu.render.lifecycle_view import lifecycle_view
    from kubectl_gpu.render.output import make_console

    print_notes(loaded.state.notes, no_color=opts.no_color)
    console = make_console(no_color=opts.no_color)
    if not report.nodes:
        where = "" if include_all else " with accelerators (use --all for every Karpenter node)"
        console.print(f"No nodes{where}.", markup=False)
        return code
    lifecycle_view(console, report, wide=opts.format is OutputFormat.wide)
    return code


def register(app: typer.Typer) -> None:
    app.command("lifecycle")(with_global_options(lifecycle))
