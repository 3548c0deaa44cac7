"""The one pipeline every read-only command runs: open the source, analyse, then JSON, YAML, CSV or a view.

A command module is its options and a body that returns a `Command` (what it reads, analyses and shows, as
data: the body reads nothing); `execute` answers it for one cluster, `cli.fleet` for several. What a command
needs from its cluster (the price book in the cluster's region, explain's pod) is `Command.prepare`'s: a pure
function of the loaded state, called after the load, once per cluster. The exit code is the report's own rule
(`Report.exit_code`, with `core.evaluation`'s "could not look" rule), so "findings" mean the same in the
table, the JSON and the exit code.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import msgspec

from kubectl_gpu.cli.global_options import GlobalOptions, OutputFormat
from kubectl_gpu.core.errors import CouldNotLook, InvalidInput
from kubectl_gpu.core.k8s.state import ClusterState, Note, Scope, SelectorTarget
from kubectl_gpu.core.report import FailOn, Report

if TYPE_CHECKING:
    from kubectl_gpu.core.catalog import Catalog
    from kubectl_gpu.kube.source import ClusterSource, SourceOptions
    from kubectl_gpu.render.model import View
    from kubectl_gpu.render.printers import Listing

__all__ = [
    "Answer",
    "Command",
    "CsvTable",
    "Loaded",
    "Prepared",
    "answer",
    "emit",
    "execute",
    "load",
    "pod_ref",
    "print_notes",
    "scope_of",
    "source_options",
    "write",
]

R = TypeVar("R", bound=Report)

#: said under a table whose messages are cut to their first sentence (render.sentence)
SHORTENED = "note: messages are shown to their first sentence; -o yaml (or explain POD) has the whole text"

#: CSV as data: the header and the rows (None is an empty field); `render.draw.csv_text` writes it.
CsvTable = tuple[Sequence[str], Sequence[Sequence[object]]]


class Loaded:
    """A loaded cluster and the instant its time-based checks are evaluated at."""

    def __init__(self, state: ClusterState, now: datetime) -> None:
        self.state = state
        self.now = now


class Prepared(msgspec.Struct, Generic[R], frozen=True):
    """What a command does with one cluster's state: its analysis, its view and its notes."""

    analyse: Callable[[ClusterState, Catalog, datetime], R]
    view: Callable[[R, bool], View]
    #: notes the report adds to the cluster's (JSON and YAML carry them all)
    notes: Callable[[R], Sequence[Note]] | None = None


class Command(msgspec.Struct, Generic[R], frozen=True, dict=True):
    """What a read-only command is, as data: the kinds it reads, its analysis, its view, its rules.

    A command's body returns one without reading anything (bad input it can check alone is exit 2 there);
    `execute` runs it for one cluster and writes the answer, fleet mode (`cli.fleet`) runs it once per
    cluster and writes them together. A command gives `analyse` and `view`, or `prepare`: a pure function
    of the loaded state that returns them (`Prepared`), called by the pipeline after the load, once per
    cluster: nodes, cost, inventory and usage price in the cluster's region, explain looks its pod up.
    `Command.for_page` takes the kinds, `needs` and `selector_on` from the page's spec (kubectl_gpu/pages)."""

    kinds: Iterable[str] | None
    analyse: Callable[[ClusterState, Catalog, datetime], R] | None = None
    view: Callable[[R, bool], View] | None = None
    selector_on: SelectorTarget = "none"
    fail_on: FailOn | None = None
    #: notes the report adds to the cluster's (JSON and YAML carry them all)
    notes: Callable[[R], Sequence[Note]] | None = None
    #: the notes a table shows on stderr (default: all)
    table_notes: Callable[[Sequence[Note]], Sequence[Note]] | None = None
    csv: Callable[[R], CsvTable] | None = None
    verdict: bool | None = None
    #: the analysis and view made from the loaded state (instead of `analyse` and `view`)
    prepare: Callable[[ClusterState], Prepared[R]] | None = None
    #: where the state comes from instead of the cluster (`lint -f`: the manifests), read by the pipeline
    read: Callable[[], ClusterState] | None = None
    #: keep the objects as read (`ClusterState.manifest`: simulate patches them)
    keep_manifests: bool = False
    #: what the pipeline reads once the state is loaded, returning the state with it (usage: the window
    #: of `/metrics` reads); `prepare` then reads it from the state
    read_more: Callable[[ClusterState], ClusterState] | None = None
    #: its objects, for kubectl's printers (-o name|jsonpath=|custom-columns=, --sort-by; cli.printing)
    listing: Listing | None = None
    #: the kinds its rows are made of: one that could not be listed is exit 4 even where the code is no
    #: verdict (`nodes` with nodes forbidden is "could not look", never an empty table and exit 0)
    needs: tuple[str, ...] = ()

    @classmethod
    def for_page(cls, page: str, **fields: Any) -> Command[Any]:
        """The command of a page: the kinds, `needs` and `selector_on` its spec reads (kubectl_gpu/pages);
        `fields` give the rest, and may narrow those (diagnose --only, lifecycle --pod)."""
        from kubectl_gpu.pages import by_name

        reads = by_name(page).reads
        if reads is None:
            raise ValueError(f"page {page!r} declares no reads")
        spec = {"kinds": reads.kinds, "needs": reads.needs, "selector_on": reads.selector_on}
        return cls(**{**spec, **fields})

    def prepared(self, state: ClusterState) -> Prepared[R]:
        """Its analysis and view for this cluster's state."""
        if self.prepare is not None:
            return self.prepare(state)
        if self.analyse is None or self.view is None:
            raise TypeError("a Command gives analyse and view, or prepare")
        return Prepared(self.analyse, self.view, self.notes)


class Answer(msgspec.Struct, frozen=True):
    """A command's answer for one cluster, before it is written."""

    report: Report
    code: int
    notes: Sequence[Note]  # what JSON and YAML carry
    table_notes: Sequence[Note]  # what a table prints on stderr
    view: Callable[[bool], View]  # the view, given `wide`
    csv: Callable[[], CsvTable] | None
    listing: Listing | None = None
    labels: Callable[[Any], Any] | None = None  # an object's labels, for -L and --show-labels


def scope_of(opts: GlobalOptions, selector_on: SelectorTarget) -> Scope:
    """-n (unless -A) and -l, and which kind -l selects (kubectl applies it to the listed kind)."""
    namespace = opts.namespace if opts.namespace and not opts.all_namespaces else None
    selector = opts.selector if selector_on != "none" else None
    if opts.field_selector and selector_on == "none":
        raise InvalidInput("--field-selector: this command lists no nodes or pods", "drop --field-selector")
    fields = opts.field_selector or None
    return Scope(namespace=namespace, selector=selector, selector_on=selector_on, field_selector=fields)


def source_options(opts: GlobalOptions, selector_on: SelectorTarget = "none") -> SourceOptions:
    from kubectl_gpu.kube.source import SourceOptions

    scope = scope_of(opts, selector_on)
    try:
        scope.terms  # noqa: B018 (a malformed -l is a usage error before anything is read)
    except ValueError as exc:
        raise InvalidInput(f"-l/--selector: {exc}") from None
    scope.field_terms  # noqa: B018 (so is a malformed --field-selector)
    if opts.snapshot:
        return SourceOptions(snapshot=opts.snapshot, scope=scope)
    return SourceOptions(
        kubeconfig=opts.kubeconfig_path(),
        context=opts.context,
        request_timeout=opts.timeout_seconds,
        scope=scope,
        flags=opts.connection_flags(),
    )


def load(opts: GlobalOptions, command: Command[Any]) -> Loaded:
    """Read the kinds the command declares from --snapshot or the live cluster, scoped as asked (or its own
    input: `Command.read`)."""
    from kubectl_gpu.kube.heap import inputs_kept_until_exit, keep_until_exit
    from kubectl_gpu.kube.source import open_source

    if command.read is not None:
        state = command.read()
        return Loaded(state, opts.now_or(state.captured_at))
    options = source_options(opts, command.selector_on)
    if command.keep_manifests:
        options = msgspec.structs.replace(options, keep_manifests=True)
    with inputs_kept_until_exit():  # the files read whole, too (issue 22)
        source = open_source(options)
        state = source.load(command.kinds)
    if state.scope.namespace:
        _namespace_exists(source, state)
    if command.read_more is not None:
        state = command.read_more(state)
    keep_until_exit(state)  # freed by the process's exit, not one object at a time on return
    return Loaded(state, opts.now_or(state.captured_at))


def _namespace_exists(source: ClusterSource, state: ClusterState) -> None:
    """-n NAME for a namespace that does not exist is said (exit 4), never an empty all-clear: live, one
    GET of the namespace (404); a snapshot, no object of it captured. A check that could not be made (no
    RBAC to get namespaces) says nothing: the answer stands on what was read."""
    from kubectl_gpu.kube.namespaces import namespace_check, namespaces_in
    from kubectl_gpu.kube.source import SnapshotSource

    name = state.scope.namespace or ""
    if name in namespaces_in(state):  # its objects were just read: no request needed, whatever a 404 says
        return
    check = namespace_check(source, name, state)
    if check.status != "missing":
        return
    if isinstance(source, SnapshotSource):
        raise CouldNotLook(
            f'namespace "{name}" is not in the snapshot: nothing of it was captured',
            "check the name (-n), or capture the cluster again; -A reads every namespace",
        )
    raise CouldNotLook(
        f'namespaces "{name}" not found', "check the name (-n): kubectl get namespaces lists them"
    )


def pod_ref(text: str, default_namespace: str | None, what: str = "pod") -> tuple[str, str]:
    """NAMESPACE/NAME or NAME (then -n, else "default") as (namespace, name); InvalidInput when malformed."""
    namespace, slash, name = text.partition("/")
    if not slash:
        namespace, name = default_namespace or "default", text
    if not name or not namespace or "/" in name:
        raise InvalidInput(f"{what}: not a pod name: {text!r}", "write NAME or NAMESPACE/NAME")
    return namespace, name


def print_notes(notes: Iterable[Note], *, no_color: bool) -> None:
    from kubectl_gpu.cli.say import say

    for note in notes:  # a bundle's notes, and usage's, carry text from the cluster: `say` makes them safe
        style = "yellow" if note.code in ("FORBIDDEN", "PARTIAL", "POLLING") else "dim"
        say(f"warning: {note.message}", style=style, no_color=no_color)


def emit(report: Report, fmt: OutputFormat, notes: Sequence[Note]) -> bool:
    """Write the report as JSON/YAML to stdout; True when the format was machine-readable.

    The document is built only here: a table never pays for it (on a large cluster the pending report
    alone holds millions of blocker entries)."""
    if fmt not in (OutputFormat.json, OutputFormat.yaml):
        return False
    from kubectl_gpu.kube.heap import without_collection
    from kubectl_gpu.render.documents import dump_json, dump_yaml

    with without_collection():
        data = report.to_dict()
    if notes:
        data = {**data, "notes": [{"code": n.code, "message": n.message, "kind": n.kind} for n in notes]}
    sys.stdout.write(dump_json(data) if fmt is OutputFormat.json else dump_yaml(data))
    return True


def answer(opts: GlobalOptions, command: Command[R], loaded: Loaded | None = None) -> Answer:
    """Load (unless given the state: `watch` keeps its source open), prepare, analyse, and decide the exit
    code; nothing is written."""
    from kubectl_gpu.cli.printing import labels_lookup
    from kubectl_gpu.core.catalog import load_catalog
    from kubectl_gpu.core.evaluation import verdict_exit_code
    from kubectl_gpu.kube.heap import without_collection

    loaded = loaded or load(opts, command)
    prepared = command.prepared(loaded.state)
    with without_collection():  # a one-shot analysis: its short-lived objects need no cycle collector
        report = prepared.analyse(loaded.state, load_catalog(), loaded.now)
    notes = [*loaded.state.notes, *(prepared.notes(report) if prepared.notes else ())]
    code = verdict_exit_code(
        report,
        loaded.state.notes,
        command.kinds,
        fail_on=command.fail_on,
        verdict=command.verdict,
        needs=command.needs,
    )
    csv = command.csv
    return Answer(
        report,
        code,
        notes,
        command.table_notes(notes) if command.table_notes else notes,
        lambda wide: prepared.view(report, wide),
        (lambda: csv(report)) if csv is not None else None,
        command.listing,
        labels_lookup(loaded.state, command.listing),
    )


def write(opts: GlobalOptions, found: Answer) -> int:
    """Write one cluster's answer as `opts` asks (CSV, JSON, YAML, or the view); its exit code."""
    if found.csv is not None and opts.format is OutputFormat.csv:
        from kubectl_gpu.render.draw import csv_text

        print_notes(found.notes, no_color=True)
        sys.stdout.write(csv_text(*found.csv()))
        return found.code
    from kubectl_gpu.cli.printing import printed

    if printed(opts, found, print_notes) or emit(found.report, opts.format, found.notes):
        return found.code
    from kubectl_gpu.render.output import make_console, print_table

    print_notes(found.table_notes, no_color=opts.no_color)
    view = found.view(opts.format is OutputFormat.wide)
    print_table(make_console(no_color=opts.no_color), view)
    if view.shortened():  # on stderr, as the notes: the table's lines stay the table's
        from kubectl_gpu.cli.say import say

        say(SHORTENED, style="dim", no_color=opts.no_color)
    return found.code


def execute(opts: GlobalOptions, result: Command[Any] | int) -> int:
    """What a command body returned, run for one cluster: a `Command` is answered and written; an exit
    code (a command that wrote its own output) is returned as it is.

    One command, one answer: what it made (the report, the analysis's memo) lives until the process ends,
    so it is frozen out of the cyclic collector before that is back on, instead of being walked by the
    first collection (~1 s on issue 22's 20,000 Pending pods; `watch` and fleets answer through `answer`)."""
    if isinstance(result, Command):
        import gc

        from kubectl_gpu.kube.heap import without_collection

        with without_collection():
            try:
                found = answer(opts, result)
                try:
                    return write(opts, found)
                except BrokenPipeError:  # `| head`: the verdict stands (docs/exit-codes.md, pipes)
                    reader_gone()
                    return found.code
            finally:
                gc.freeze()
    return int(result)


def reader_gone() -> None:
    """stdout's reader left: what is still buffered goes nowhere, quietly (no "Exception ignored" at exit)."""
    import os

    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
