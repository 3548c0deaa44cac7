"""`kubectl gpu lint`: check NodePools, NodeClasses and EC2NodeClasses, live or from manifests (`-f`)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

from kubectl_gpu.cli.fleet_entry import fleet_face
from kubectl_gpu.cli.global_options import GlobalOptions
from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.report import FailOn

if TYPE_CHECKING:
    import typer

    from kubectl_gpu.core.k8s.state import ClusterState

__all__ = ["register"]


def _from_files(paths: list[str]) -> ClusterState:
    from kubectl_gpu.core.k8s.state import StateBuilder
    from kubectl_gpu.kube.snapshot import load_snapshot, load_text
    from kubectl_gpu.kube.snapshot_decode import read_stream

    files = [p for p in paths if p != "-"]
    inputs = [load_snapshot(files)] if files else []
    if "-" in paths:
        # Bytes where there is a buffer: binary input is then an InvalidInput, not a UnicodeEncodeError.
        stream = getattr(sys.stdin, "buffer", None)
        data = read_stream(stream) if stream is not None else sys.stdin.read()  # counted against the cap
        inputs.append(load_text(data))
    builder = StateBuilder()
    for state in inputs:
        builder.extend(state)
    state = builder.build(source=", ".join(s.source for s in inputs if s.source))
    if not state.nodepools and not state.nodeclasses and not state.legacy_karpenter:
        raise InvalidInput(
            f"no NodePool, NodeClass or EC2NodeClass in {state.source or 'the input'}",
            "pass the manifests that define them",
        )
    return state


def lint(
    filename: Annotated[
        list[str] | None,
        typer.Option(
            "--filename",
            "-f",
            help="Manifests to check (file, directory, multi-document YAML; '-' reads stdin). Repeatable. "
            "Without -f: the live cluster (or --snapshot).",
        ),
    ] = None,
    fail_on: Annotated[
        FailOn, typer.Option("--fail-on", help="Exit 1 when a finding is at or above this severity.")
    ] = FailOn.error,
    *,
    opts: GlobalOptions,
) -> Any:
    """GPU NodePool and NodeClass mistakes, with a stable code, severity, the object, why and the fix:
    consolidation that repacks GPU nodes, GPU pools without a taint, wrong-provider label keys, hard-coded
    instance types, expireAfter: Never on Auto Mode, training pools without a budget window, limits and
    requirements that admit nothing, NVMe left out of ephemeral storage."""
    from kubectl_gpu.cli.run import Command
    from kubectl_gpu.core.analyses import lint as analysis
    from kubectl_gpu.render.printers import Listing

    if filename and opts.fleet_member:
        raise InvalidInput("lint -f checks manifests, not clusters", "drop --contexts/--all-contexts")
    files = filename

    def draw(report: Any, wide: bool) -> Any:  # imported for a table only: `-o json` loads no console
        from kubectl_gpu.render.lint_view import lint_view

        return lint_view(report, wide=wide)

    return Command.for_page(
        "lint",
        listing=Listing("findings", "findings"),
        read=(lambda: _from_files(files)) if files else None,
        analyse=lambda state, catalog, now: analysis.analyse(state, catalog, now, fail_on=fail_on),
        view=draw,
        fail_on=fail_on,
    )


def register(app: typer.Typer) -> None:
    from kubectl_gpu.cli.options import with_global_options

    app.command("lint")(with_global_options(lint, printing=True, fleet=fleet_face("lint")))
