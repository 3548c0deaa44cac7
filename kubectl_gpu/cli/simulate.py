"""`kubectl gpu simulate`: a change made on a copy of the cluster (live or --snapshot), never on the cluster,
and what it does to every analysis, grouped worse / better / unchanged, with `--fail-on` for a pipeline."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

from kubectl_gpu.cli.global_options import GlobalOptions

if TYPE_CHECKING:
    import typer

    from kubectl_gpu.cli.option_declarations import PatchTypeOption

__all__ = ["register"]


class FailOnOption(StrEnum):
    regression = "regression"
    any = "any"
    none = "none"


def simulate(
    filename: Annotated[
        list[str] | None,
        typer.Option(
            "--filename",
            "-f",
            help="Objects to add or replace, or patches with --type (file, directory, multi-document YAML "
            "or JSON; '-' reads stdin). Repeatable.",
        ),
    ] = None,
    delete: Annotated[
        list[str] | None,
        typer.Option("--delete", help="Delete KIND/NAME (or KIND/NAMESPACE/NAME) in the copy. Repeatable."),
    ] = None,
    patch_type: Annotated[
        PatchTypeOption | None,
        typer.Option("--type", help="The -f files are patches of this type (kubectl patch's names)."),
    ] = None,
    target: Annotated[
        str | None,
        typer.Option("--target", help="The object a patch applies to, KIND/NAME (needed by --type json)."),
    ] = None,
    fail_on: Annotated[
        FailOnOption,
        typer.Option(
            "--fail-on", help="Exit 1 when anything got worse (regression), changed (any), or never."
        ),
    ] = FailOnOption.regression,
    *,
    opts: GlobalOptions,
) -> Any:
    """What a change would do before anyone applies it: Pending pods it unblocks or blocks, findings it
    adds or removes, lifecycle risk to running GPU pods, cost, and the nodes Karpenter would drift and
    replace. A change the API server would refuse is exit 2 with the rule's message."""
    from kubectl_gpu.cli.run import Command, execute, source_options
    from kubectl_gpu.core.analyses.simulate import SimulateFailOn, simulate
    from kubectl_gpu.kube.change_files import read_changes

    namespace = opts.namespace if opts.snapshot else (opts.namespace or opts.default_namespace())
    kind = str(patch_type) if patch_type is not None else None
    changes = read_changes(filename or [], delete or [], patch_type=kind, target=target, namespace=namespace)  # type: ignore[arg-type]
    source_options(opts)  # a malformed -l or --field-selector is exit 2 before anything is read
    rule = SimulateFailOn(str(fail_on))

    def draw(report: Any, wide: bool) -> Any:  # imported for a table only: `-o json` loads no console
        from kubectl_gpu.render.simulate_view import simulate_view

        return simulate_view(report, wide=wide)

    command = Command(
        kinds=None,  # everything: the copy is the whole cluster
        keep_manifests=True,  # the change is made on the objects as read
        analyse=lambda st, catalog, now: simulate(st, changes, catalog, now, fail_on=rule),
        view=draw,
        verdict=rule.value != "none",
    )
    return execute(opts, command)


def register(app: typer.Typer) -> None:
    from kubectl_gpu.cli.options import with_global_options

    app.command("simulate")(with_global_options(simulate))
