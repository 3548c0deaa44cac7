"""The two rules every front end applies to a run: the instant it is evaluated at, and the exit code of a
verdict when something could not be looked at. Written once, here, for the CLI, the TUI and fleet mode."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from kubectl_gpu.core.errors import ExitCode
from kubectl_gpu.core.k8s.state import Note, could_not_look
from kubectl_gpu.core.report import FailOn, Report

__all__ = ["evaluation_instant", "verdict_exit_code"]


def evaluation_instant(requested: datetime | None, captured_at: datetime | None, clock: datetime) -> datetime:
    """When time-based findings are evaluated: --now, else the snapshot's capture time, else the clock."""
    return requested or captured_at or clock


def verdict_exit_code(
    report: Report,
    notes: Iterable[Note],
    kinds: Iterable[str] | None,
    *,
    fail_on: FailOn | None = None,
    verdict: bool | None = None,
    needs: Iterable[str] = (),
) -> ExitCode:
    """The report's exit code, except that a clean verdict (0) is INCOMPLETE (4) when a kind the analysis
    reads (`kinds`; None: every kind) could not be listed: "clean" and "could not look" never share a code.

    `verdict`: whether the code is a verdict on the cluster (None: when the report has a rule that can fail,
    or `fail_on` is given). `needs`: the kinds a command's rows are made of (nodes for `nodes`): when one of
    them could not be listed, the answer is INCOMPLETE whatever the command, never an empty all-clear."""
    code = report.exit_code(fail_on)
    if verdict is None:
        verdict = fail_on is not None or getattr(report, "default_fail_on", None) is not None
    notes = list(notes)
    if code == ExitCode.OK and verdict and could_not_look(notes, kinds):
        return ExitCode.INCOMPLETE
    needed = list(needs)
    if code == ExitCode.OK and needed and could_not_look(notes, needed):
        return ExitCode.INCOMPLETE
    return code
