"""`kubectl gpu lint`: check NodePools, NodeClasses and EC2NodeClasses, live or from manifests (`-f`)."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from kubectl_gpu.cli.common import emit_data, load_state, print_notes
from kubectl_gpu.cli.options import GlobalOptions, OutputFormat, with_global_options
from kubectl_gpu.core.errors import ExitCode, InvalidInput

if TYPE_CHECKING:
    from kubectl_gpu.core.k8s.state import ClusterState

__all__ = ["FailOn", "register"]

_KINDS = ["nodes", "pods", "nodepools", "nodeclasses", "ec2nodeclasses"]


class FailOn(StrEnum):
    warning = "warning"
    error = "error"


def _merge(into: ClusterState, other: ClusterState) -> None:
    for attr in ("nodes", "pods", "events", "nodepools", "nodeclaims", "nodeclasses", "resourceslices"):
        getattr(into, attr).extend(getattr(other, attr))
    for note in other.notes:
        into.note(note.code, note.message, note.kind)
    into.source = ", ".join(s for s in (into.source, other.source) if s)


def _from_files(paths: list[str]) -> ClusterState:
    from kubectl_gpu.core.k8s.state import ClusterState
    from kubectl_gpu.kube.snapshot import load_snapshot, load_text

    files = [p for p in paths if p != "-"]
    state = load_snapshot(files) if files else ClusterState()
    if "-" in paths:
        # Bytes where there is a buffer: binary input is then an InvalidInput, not a UnicodeEncodeError.
        _merge(state, load_text(getattr(sys.stdin, "buffer", sys.stdin).read()))
    return state


def lint(
    ctx: typer.Context,
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
) -> int:
    """GPU NodePool and NodeClass mistakes, with a stable code, severity, the object, why and the fix:
    consolidation that repacks GPU nodes, GPU pools without a taint, wrong-provider label keys, hard-coded
    instance types, expireAfter: Never on Auto Mode, training pools without a budget window, limits and
    requirements that admit nothing, NVMe left out of ephemeral storage."""
    from kubectl_gpu.core.analyses.lint.analysis import lint as run_lint
    from kubectl_gpu.core.catalog import load_catalog
    from kubectl_gpu.core.report import Severity

    if filename:
        state = _from_files(filename)
        if not state.nodepools and not state.nodeclasses:
            raise InvalidInput(
                f"no NodePool, NodeClass or EC2NodeClass in {state.source or 'the input'}",
                "pass the manifests that define them",
            )
    else:
        state = load_state(opts, _KINDS, selector_on="none").state
    report = run_lint(state, load_catalog())
    threshold = Severity(fail_on.value)
    code = ExitCode.FINDINGS if report.failing(threshold) else ExitCode.OK
    data = report.to_dict()
    data["failOn"] = fail_on.value
    if emit_data(data, opts.format, state.notes):
        return code
    from kubectl_gpu.render.lint_view import lint_view
    from kubectl_gpu.render.output import make_console

    print_notes(state.notes, no_color=opts.no_color)
    console = make_console(no_color=opts.no_color)
    if not report.pools and not report.node_classes:
        console.print("No NodePools or NodeClasses to check.", markup=False)
        return code
    lint_view(console, report, fail_on=threshold, wide=opts.format is OutputFormat.wide)
    return code


def register(app: typer.Typer) -> None:
    app.command("lint")(with_global_options(lint))
