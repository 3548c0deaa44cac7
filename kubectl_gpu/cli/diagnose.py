"""`kubectl gpu diagnose`: all analyses in one report, worst first, with `--fail-on` for runbooks."""

from __future__ import annotations

from typing import Annotated

import typer

from kubectl_gpu.cli.common import emit_data, load_state, print_notes
from kubectl_gpu.cli.options import GlobalOptions, OutputFormat, with_global_options
from kubectl_gpu.core.errors import ExitCode, InvalidInput

__all__ = ["register"]


def diagnose(
    ctx: typer.Context,
    fail_on: Annotated[
        str,
        typer.Option("--fail-on", help="Exit 1 when a finding is at least this severe: warning or error."),
    ] = "error",
    only: Annotated[
        list[str] | None,
        typer.Option(
            "--only", help="Run only these analyses (repeatable or comma-separated); default: all of them."
        ),
    ] = None,
    *,
    opts: GlobalOptions,
) -> int:
    """Every analysis (node health, Pending pods, drivers, NVMe, lifecycle, NodePool lint, cost) in one
    report, worst first. Exit 1 when any finding reaches --fail-on (default error)."""
    from kubectl_gpu.core.analyses.diagnose.analysis import ANALYSES
    from kubectl_gpu.core.analyses.diagnose.analysis import diagnose as run
    from kubectl_gpu.core.catalog import load_catalog
    from kubectl_gpu.core.report import Severity

    if fail_on not in ("warning", "error"):
        raise InvalidInput(f"--fail-on must be warning or error, not {fail_on!r}")
    if only:  # repeatable, and (as kubectl lists) comma-separated
        only = [name.strip() for item in only for name in item.split(",")]
    unknown = sorted(set(only or ()) - set(ANALYSES))
    if unknown:
        names = ", ".join(name or "''" for name in unknown)
        raise InvalidInput(f"--only: unknown analysis {names}", f"choose from {', '.join(ANALYSES)}")
    loaded = load_state(opts, None, selector_on="none")
    report = run(loaded.state, load_catalog(), loaded.now, only=only)
    code = ExitCode.FINDINGS if report.fails(Severity(fail_on)) else ExitCode.OK
    if emit_data(report.to_dict, opts.format, loaded.state.notes):
        return code
    from kubectl_gpu.render.findings_table import findings_table
    from kubectl_gpu.render.output import make_console, print_table

    print_notes(loaded.state.notes, no_color=opts.no_color)
    console = make_console(no_color=opts.no_color)
    if not report.findings:
        console.print(f"No findings ({', '.join(report.analyses)}).")
        return code
    print_table(console, findings_table(report.findings, wide=opts.format is OutputFormat.wide))
    counts = report.counts()
    console.print(f"\n{counts['error']} errors, {counts['warning']} warnings, {counts['info']} info")
    return code


def register(app: typer.Typer) -> None:
    app.command("diagnose")(with_global_options(diagnose))
