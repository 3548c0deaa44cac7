"""The one pipeline every read-only command runs: open the source, analyse, then JSON, YAML or a view.

A command module is its options plus one `run_report` call; the exit code is the report's own rule
(`Report.exit_code`), so "findings" mean the same in the table, the JSON and the exit code.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from kubectl_gpu.cli.options import GlobalOptions, OutputFormat
from kubectl_gpu.core.errors import ExitCode, InvalidInput
from kubectl_gpu.core.k8s.state import ClusterState, Note, Scope, SelectorTarget, could_not_look
from kubectl_gpu.core.report import FailOn, Report

if TYPE_CHECKING:
    from rich.console import RenderableType

    from kubectl_gpu.core.catalog import Catalog
    from kubectl_gpu.kube.source import SourceOptions

__all__ = [
    "FLEET_MEMBER",
    "Answer",
    "Loaded",
    "emit",
    "load",
    "pod_ref",
    "print_notes",
    "run_report",
    "scope_of",
    "source_options",
]

R = TypeVar("R", bound=Report)


class Loaded:
    """A loaded cluster and the instant its time-based checks are evaluated at."""

    def __init__(self, state: ClusterState, now: datetime) -> None:
        self.state = state
        self.now = now


@dataclass(frozen=True, slots=True)
class Answer:
    """What `run_report` would have written, kept for the fleet (`cli.fleet`) to write with the others."""

    report: Report
    code: int
    notes: Sequence[Note]  # what JSON and YAML carry
    table_notes: Sequence[Note]  # what a table prints on stderr
    view: Callable[[bool], RenderableType]  # the view, given `wide`
    csv: Callable[[], str] | None


#: Set, in a fleet member's thread, to where its `run_report` hands its answer instead of writing it.
FLEET_MEMBER: ContextVar[Callable[[Answer], None] | None] = ContextVar("fleet_member", default=None)


def scope_of(opts: GlobalOptions, selector_on: SelectorTarget) -> Scope:
    """-n (unless -A) and -l, and which kind -l selects (kubectl applies it to the listed kind)."""
    namespace = opts.namespace if opts.namespace and not opts.all_namespaces else None
    selector = opts.selector if selector_on != "none" else None
    return Scope(namespace=namespace, selector=selector, selector_on=selector_on)


def source_options(opts: GlobalOptions, selector_on: SelectorTarget = "none") -> SourceOptions:
    from kubectl_gpu.kube.source import SourceOptions

    scope = scope_of(opts, selector_on)
    try:
        scope.terms  # noqa: B018 (a malformed -l is a usage error before anything is read)
    except ValueError as exc:
        raise InvalidInput(f"-l/--selector: {exc}") from None
    if opts.snapshot:
        return SourceOptions(snapshot=opts.snapshot, scope=scope)
    return SourceOptions(
        kubeconfig=opts.kubeconfig_path(),
        context=opts.context,
        request_timeout=opts.timeout_seconds,
        scope=scope,
    )


def load(opts: GlobalOptions, kinds: Iterable[str] | None, selector_on: SelectorTarget = "none") -> Loaded:
    """Read the kinds an analysis declares from --snapshot or the live cluster, scoped as asked."""
    from kubectl_gpu.kube.heap import inputs_kept_until_exit, keep_until_exit
    from kubectl_gpu.kube.source import open_source

    with inputs_kept_until_exit():  # the files read whole, too (issue 22)
        state = open_source(source_options(opts, selector_on)).load(kinds)
    keep_until_exit(state)  # freed by the process's exit, not one object at a time on return
    return Loaded(state, opts.now_or(state.captured_at))


def pod_ref(text: str, default_namespace: str | None, what: str = "pod") -> tuple[str, str]:
    """NAMESPACE/NAME or NAME (then -n, else "default") as (namespace, name); InvalidInput when malformed."""
    namespace, slash, name = text.partition("/")
    if not slash:
        namespace, name = default_namespace or "default", text
    if not name or not namespace or "/" in name:
        raise InvalidInput(f"{what}: not a pod name: {text!r}", "write NAME or NAMESPACE/NAME")
    return namespace, name


def print_notes(notes: Iterable[Note], *, no_color: bool) -> None:
    from kubectl_gpu.render.output import make_console

    console = make_console(stderr=True, no_color=no_color)
    for note in notes:
        style = "yellow" if note.code in ("FORBIDDEN", "PARTIAL") else "dim"
        console.print(f"warning: {note.message}", style=style, markup=False, highlight=False)


def emit(report: Report, fmt: OutputFormat, notes: Sequence[Note]) -> bool:
    """Write the report as JSON/YAML to stdout; True when the format was machine-readable.

    The document is built only here: a table never pays for it (on a large cluster the pending report
    alone holds millions of blocker entries)."""
    if fmt not in (OutputFormat.json, OutputFormat.yaml):
        return False
    from kubectl_gpu.kube.heap import without_collection
    from kubectl_gpu.render.output import dump_json, dump_yaml

    with without_collection():
        data = report.to_dict()
    if notes:
        data = {**data, "notes": [{"code": n.code, "message": n.message, "kind": n.kind} for n in notes]}
    sys.stdout.write(dump_json(data) if fmt is OutputFormat.json else dump_yaml(data))
    return True


def run_report(
    opts: GlobalOptions,
    *,
    kinds: Iterable[str] | None,
    analyse: Callable[[ClusterState, Catalog, datetime], R],
    view: Callable[[R, bool], RenderableType],
    selector_on: SelectorTarget = "none",
    fail_on: FailOn | None = None,
    notes: Callable[[R], Sequence[Note]] | None = None,
    table_notes: Callable[[Sequence[Note]], Sequence[Note]] | None = None,
    loaded: Loaded | None = None,
    csv: Callable[[R], str] | None = None,
    verdict: bool | None = None,
) -> int:
    """Load (unless `loaded` is given), analyse, then write JSON/YAML or the view; the exit code.

    `verdict`: whether the exit code is a verdict on the cluster (None: when the report has a rule that can
    fail, or `fail_on` is given). A verdict of 0 becomes 4 (INCOMPLETE) when a kind the analysis reads could
    not be listed: "clean" and "could not look" never share an exit code."""
    from kubectl_gpu.core.catalog import load_catalog
    from kubectl_gpu.kube.heap import without_collection

    loaded = loaded or load(opts, kinds, selector_on)
    with without_collection():  # a one-shot analysis: its short-lived objects need no cycle collector
        report = analyse(loaded.state, load_catalog(), loaded.now)
    all_notes = [*loaded.state.notes, *(notes(report) if notes else ())]
    code = report.exit_code(fail_on)
    if verdict is None:
        verdict = fail_on is not None or getattr(report, "default_fail_on", None) is not None
    if code == ExitCode.OK and verdict and could_not_look(loaded.state.notes, kinds):
        code = ExitCode.INCOMPLETE
    member = FLEET_MEMBER.get()
    if member is not None:
        member(
            Answer(
                report,
                code,
                all_notes,
                table_notes(all_notes) if table_notes else all_notes,
                lambda wide: view(report, wide),
                (lambda: csv(report)) if csv is not None else None,
            )
        )
        return code
    if csv is not None and opts.format is OutputFormat.csv:
        print_notes(all_notes, no_color=True)
        sys.stdout.write(csv(report))
        return code
    if emit(report, opts.format, all_notes):
        return code
    from kubectl_gpu.render.output import make_console, print_table

    print_notes(table_notes(all_notes) if table_notes else all_notes, no_color=opts.no_color)
    print_table(make_console(no_color=opts.no_color), view(report, opts.format is OutputFormat.wide))
    return code
