"""`kubectl gpu pending` and `kubectl gpu explain POD`: why GPU pods are Pending, and the fix."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from kubectl_gpu.cli.fleet_entry import fleet_face
from kubectl_gpu.cli.global_options import GlobalOptions
from kubectl_gpu.core.errors import InvalidInput

if TYPE_CHECKING:
    import typer

    from kubectl_gpu.cli.option_declarations import PatchTypeOption, WatchOption
    from kubectl_gpu.core.k8s.state import ClusterState

__all__ = ["register"]


def pending(
    all_pending: Annotated[
        bool, typer.Option("--all-pending", help="Every Pending pod, not only those that want accelerators.")
    ] = False,
    by_workload: Annotated[
        bool,
        typer.Option(
            "--by-workload",
            help="One row per workload (Job, Deployment, StatefulSet, LeaderWorkerSet; bare pods by shape), "
            "as the TUI's Pending view groups them; JSON adds 'workloads'.",
        ),
    ] = False,
    watch: WatchOption = False,
    *,
    opts: GlobalOptions,
) -> Any:
    """Every Pending pod that wants an accelerator: its verdict, the nearest NodePool (or node), the reason
    and the fix. Exit code 1 when any pod is blocked (anything but PROVISIONING)."""
    from kubectl_gpu.cli.run import Command
    from kubectl_gpu.core.analyses import pending as analysis
    from kubectl_gpu.render.printers import Listing

    if by_workload and watch:
        raise InvalidInput("--by-workload and -w/--watch go separately", "drop one of them")
    if by_workload:
        return _by_workload(all_pending)

    def draw(report: Any, wide: bool) -> Any:  # imported for a table only: `-o json` loads no console
        from kubectl_gpu.render.pending_view import pending_view

        return pending_view(report, wide=wide, all_pending=all_pending)

    command = Command.for_page(
        "pending",
        listing=Listing("pods", "pods", (("Pod", "name"),)),
        analyse=lambda state, catalog, now: analysis.analyse(state, catalog, now, all_pending=all_pending),
        view=draw,
    )
    if watch:
        from kubectl_gpu.cli.watch import watch as watching

        return watching(opts, "pending", command)
    return command


def _by_workload(all_pending: bool) -> Any:
    """`pending --by-workload`: the groups are core's (`diagnose.workloads`), made from the loaded state."""
    from kubectl_gpu.cli.run import Command, Prepared
    from kubectl_gpu.core.analyses import pending as analysis
    from kubectl_gpu.core.analyses.diagnose.workloads import pending_workloads
    from kubectl_gpu.render.printers import Listing

    def prepare(state: ClusterState) -> Prepared[Any]:
        def analyse(state: ClusterState, catalog: Any, now: Any) -> Any:
            return pending_workloads(analysis.analyse(state, catalog, now, all_pending=all_pending), state)

        def draw(report: Any, wide: bool) -> Any:
            from kubectl_gpu.render.pending_groups import workloads_view

            return workloads_view(report, state, wide=wide, all_pending=all_pending)

        return Prepared(analyse=analyse, view=draw)

    return Command.for_page("pending", listing=Listing("pods", "pods", (("Pod", "name"),)), prepare=prepare)


def explain(
    pod: Annotated[str, typer.Argument(help="Pod name, or NAMESPACE/NAME.")],
    with_files: Annotated[
        list[str] | None,
        typer.Option(
            "--with",
            help="Answer on a copy of the cluster with these changes made, as simulate makes them (objects, "
            "or patches with --type; file, directory or '-'). Repeatable.",
        ),
    ] = None,
    delete: Annotated[
        list[str] | None,
        typer.Option(
            "--delete", help="With the copy: delete KIND/NAME (or KIND/NAMESPACE/NAME). Repeatable."
        ),
    ] = None,
    patch_type: Annotated[
        PatchTypeOption | None,
        typer.Option("--type", help="The --with files are patches of this type (kubectl patch's names)."),
    ] = None,
    target: Annotated[
        str | None,
        typer.Option("--target", help="The object a patch applies to, KIND/NAME (needed by --type json)."),
    ] = None,
    *,
    opts: GlobalOptions,
) -> Any:
    """One pod, target by target: what matches and what does not, the provisioner's own events, and the
    fix as YAML. Exit code 1 when the pod is blocked. With --with or --delete: the answer on a copy of the
    cluster with those changes made (never on the cluster)."""
    from kubectl_gpu.cli.run import Command, Prepared, pod_ref
    from kubectl_gpu.core.analyses import pending as analysis
    from kubectl_gpu.render.printers import Listing

    def draw(report: Any, wide: bool) -> Any:  # imported for a table only: `-o json` loads no console
        from kubectl_gpu.render.pending_view import explain_view

        return explain_view(report.pod)

    namespace, name = pod_ref(pod, opts.default_namespace(), "explain")
    changes = None
    if with_files or delete:
        from kubectl_gpu.kube.change_files import read_changes

        kind: Any = str(patch_type) if patch_type is not None else None  # one of PatchType's names
        changes = read_changes(
            with_files or [], delete or [], patch_type=kind, target=target, namespace=namespace
        )
    elif patch_type is not None or target is not None:
        raise InvalidInput("--type and --target describe the --with files", "give --with FILE")

    def prepare(state: ClusterState) -> Prepared[Any]:
        found = next((p for p in state.pods if p.name == name and p.namespace == namespace), None)
        if found is None:
            raise InvalidInput(f"pod {namespace}/{name} not found", _elsewhere(state.pods, name, pod))
        if found.phase != "Pending":
            raise InvalidInput(
                f"pod {namespace}/{name} is {found.phase}, not Pending", "explain diagnoses Pending pods"
            )
        if changes is not None:
            from kubectl_gpu.cli.explain_changes import ChangedExplain

            changed = ChangedExplain(changes, found)
            return Prepared(analyse=changed.analyse, view=draw, notes=changed.notes)
        return Prepared(
            analyse=lambda state, catalog, now: analysis.explain(state, catalog, now, found), view=draw
        )

    listing = Listing("pods", None, (("Pod", "name"),))
    if changes is not None:  # the copy is the whole cluster, its objects as read (simulate's reads)
        return Command.for_page("explain", listing=listing, prepare=prepare, kinds=None, keep_manifests=True)
    return Command.for_page("explain", listing=listing, prepare=prepare)


def _elsewhere(pods: Any, name: str, given: str) -> str:
    """What to do when NAME is not in the namespace looked in: the namespace it is in, when it is in one
    namespace only of those read (no -n reads them all), else which namespaces have it."""
    where = sorted({p.namespace for p in pods if p.name == name})
    if "/" in given or not where:
        return "check the name and -n NAMESPACE"
    if len(where) == 1:
        return f"it is in namespace {where[0]}: kubectl gpu explain {where[0]}/{name}"
    return f"pods of that name are in namespaces {', '.join(where)}: give one, e.g. kubectl gpu explain {where[0]}/{name}"


def register(app: typer.Typer) -> None:
    from kubectl_gpu.cli.options import with_global_options

    app.command("pending")(with_global_options(pending, printing=True, fleet=fleet_face("pending")))
    app.command("explain")(with_global_options(explain, printing=True, fleet=fleet_face("explain")))
