"""`kubectl gpu lifecycle`: when each GPU node expires or may be replaced, and whether a GPU job survives."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Annotated, Any

from kubectl_gpu.cli.fleet_entry import fleet_face
from kubectl_gpu.cli.global_options import GlobalOptions
from kubectl_gpu.core.errors import InvalidInput

if TYPE_CHECKING:
    import typer

    from kubectl_gpu.core.k8s.state import ClusterState

__all__ = ["register"]


_MAX_NEEDS = timedelta(days=36500)


def lifecycle(
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
) -> Any:
    """Per GPU node: created, expireAfter (or its default) and the Auto Mode 21-day cap, terminationGracePeriod,
    when it expires and why, Drifted, disruption budgets (UTC windows) and when disruption is next allowed,
    consolidation policy, do-not-disrupt. Per running GPU pod: how long it has run, what can disrupt it next and
    when, and a risk level. --pod NS/NAME --needs 11d answers "will this job survive 11 more days?"."""
    from kubectl_gpu.cli.run import Command, Prepared, pod_ref
    from kubectl_gpu.core.analyses import lifecycle as analysis
    from kubectl_gpu.core.k8s.times import TimeError, parse_duration
    from kubectl_gpu.render.printers import Listing

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
        target = pod_ref(pod, opts.default_namespace(), "--pod")

    def draw(report: Any, wide: bool) -> Any:  # imported for a table only: `-o json` loads no console
        from kubectl_gpu.render.lifecycle_view import lifecycle_view

        return lifecycle_view(report, wide=wide, include_all=include_all)

    def prepare(state: ClusterState) -> Prepared[Any]:
        if target is not None:
            _check_target(state, target)
        return Prepared(
            analyse=lambda state, catalog, now: analysis.analyse(
                state, catalog, now, pod=target, needs=wanted, include_all=include_all
            ),
            view=draw,
        )

    return Command.for_page(
        "lifecycle",
        listing=Listing("nodes", "nodes", (("Node", "name"),)),
        selector_on="none" if target else "nodes",  # --pod names its pod: -l selects nothing then
        prepare=prepare,
        verdict=wanted is not None,  # without --needs the exit code is always 0: no verdict
    )


def _check_target(state: ClusterState, target: tuple[str, str]) -> None:
    """`--pod` must name a pod bound to a node that was read."""
    found = next((p for p in state.pods if (p.namespace, p.name) == target), None)
    if found is None:
        raise InvalidInput(f"pod {target[0]}/{target[1]} not found", "check the name and -n NAMESPACE")
    if found.node_name is None:
        raise InvalidInput(
            f"pod {target[0]}/{target[1]} is not bound to a node ({found.phase})",
            "for a Pending pod run `kubectl gpu explain`",
        )
    if found.node_name not in state.node_by_name:
        raise InvalidInput(f"node {found.node_name} of pod {target[0]}/{target[1]} was not read")


def register(app: typer.Typer) -> None:
    from kubectl_gpu.cli.options import with_global_options

    app.command("lifecycle")(with_global_options(lifecycle, printing=True, fleet=fleet_face("lifecycle")))
