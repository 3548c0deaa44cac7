"""`-w/--watch` for `nodes` and `pending`, as `kubectl get -w`: the table, then each row that changes.

One live source stays open: `LiveSource.load` answers the state it answered before, the same object, until
a short watch from each list's resourceVersion sees a change (`kube.changes`), so the loop re-analyses
only when the cluster changed. When watches fail the source backs off, and when watching is forbidden it
polls (`kube.pacing`): the loop then sleeps until the source may ask again, never spinning, and the note
that says so is printed once. Then the rows that are new or read differently are printed under the
first table, without a header (a row that disappears is not printed: kubectl -w prints no deletions
either). With -o json or yaml each object is a document of its own, as `kubectl get -w -o json|yaml`
streams them: every object first, then each that changes; YAML documents after the first start with
`---`. Ctrl-C ends it: `cli.app.main` turns KeyboardInterrupt into exit 130, without a traceback.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from typing import Any

from kubectl_gpu.cli.global_options import GlobalOptions, OutputFormat
from kubectl_gpu.cli.run import Answer, Command, Loaded, answer, print_notes, source_options, write
from kubectl_gpu.core.errors import ClusterError, InvalidInput
from kubectl_gpu.core.k8s.state import Note

__all__ = ["check_watch", "watch"]

#: the formats -w prints row by row, or (json, yaml) object by object
_WATCHED = (OutputFormat.table, OutputFormat.wide, OutputFormat.name, OutputFormat.custom_columns)
_STREAMED = (OutputFormat.json, OutputFormat.yaml)


def check_watch(opts: GlobalOptions, command: str) -> None:
    """-w is for a live cluster, one at a time, in a format of rows; InvalidInput (exit 2) otherwise."""
    if opts.fleet or opts.fleet_member:
        raise InvalidInput(f"{command} -w: watches one cluster", "drop --contexts/--all-contexts")
    if opts.snapshot:
        raise InvalidInput(f"{command} -w: a --snapshot does not change", "watch a live cluster")
    if opts.format not in (*_WATCHED, *_STREAMED):
        raise InvalidInput(
            f"{command} -w: -o {opts.format} is not printed row by row",
            "use -o table, wide, name, custom-columns, json or yaml",
        )


def _rows(opts: GlobalOptions, found: Answer) -> dict[str, tuple[str, ...]]:
    """What each object reads as in the chosen format, by the object's key."""
    from kubectl_gpu.cli.printing import document_of, labelled_view, printing_of
    from kubectl_gpu.render.printers import custom_columns, items_of, name_lines

    listing = found.listing
    assert listing is not None
    if opts.format in _STREAMED:
        return {key: (text,) for key, text in _documents(opts, found).items()}
    if opts.format is OutputFormat.name:
        names = name_lines(items_of(document_of(found), listing), listing).splitlines()
        return {name: (name,) for name in names}
    if opts.format is OutputFormat.custom_columns:
        table = custom_columns(items_of(document_of(found), listing), printing_of(opts), keys=listing)
    else:
        view = labelled_view(opts, found, document_of(found))
        found_table = view.table(listing.table) if listing.table else None
        if found_table is None:
            return {}
        table = found_table
    return {row.key: tuple(c.text for c in row.cells) for row in table.rows}


def _changed_rows(opts: GlobalOptions, found: Answer, keys: Iterable[str]) -> None:
    """Print the rows `keys` of this answer, as the first table printed them but without a header."""
    from dataclasses import replace

    from kubectl_gpu.cli.printing import document_of, labelled_view, printing_of
    from kubectl_gpu.render.model import View
    from kubectl_gpu.render.output import make_console, print_table
    from kubectl_gpu.render.printers import custom_columns, items_of

    wanted = list(keys)
    listing = found.listing
    assert listing is not None
    if opts.format in _STREAMED:
        documents = _documents(opts, found)
        _stream(opts, [documents[key] for key in wanted])
        return
    if opts.format is OutputFormat.name:
        sys.stdout.write("".join(f"{key}\n" for key in wanted))
        sys.stdout.flush()
        return
    if opts.format is OutputFormat.custom_columns:
        table = custom_columns(items_of(document_of(found), listing), printing_of(opts), keys=listing)
    else:
        table = labelled_view(opts, found, document_of(found)).table(listing.table or "")  # type: ignore[assignment]
    chosen = set(wanted)
    shown = replace(
        table, rows=tuple(r for r in table.rows if r.key in chosen), show_header=False, title=None
    )
    print_table(make_console(no_color=opts.no_color), View.of([shown]))
    sys.stdout.flush()


def _documents(opts: GlobalOptions, found: Answer) -> dict[str, str]:
    """-o json|yaml: each object as its own document, by its name (`-o name`), in the command's order."""
    from kubectl_gpu.cli.printing import document_of
    from kubectl_gpu.render.documents import dump_json, dump_yaml
    from kubectl_gpu.render.printers import items_of, object_name

    listing = found.listing
    assert listing is not None
    dump = dump_json if opts.format is OutputFormat.json else dump_yaml
    items = items_of(document_of(found), listing)
    return {(object_name(item, listing) or str(i)): dump(item) for i, item in enumerate(items)}


_streamed = [0]  # documents printed so far: YAML's after the first start with `---`


def _stream(opts: GlobalOptions, documents: Iterable[str]) -> None:
    for text in documents:
        if opts.format is OutputFormat.yaml and _streamed[0]:
            sys.stdout.write("---\n")
        sys.stdout.write(text)
        _streamed[0] += 1
    sys.stdout.flush()


def _pause(source: object) -> None:
    """Wait until the source may ask the API server again (it backs off, polls, or paces its watches)."""
    wait = getattr(source, "wait", None)
    seconds = wait() if callable(wait) else 0.0
    if seconds > 0:
        time.sleep(seconds)


def watch(opts: GlobalOptions, name: str, command: Command[Any]) -> int:
    """Print the command's table, then its changed rows on every change of the cluster, until Ctrl-C: one
    source kept open, the command prepared and answered again on each new state."""
    from kubectl_gpu.kube.source import open_source

    check_watch(opts, name)
    kinds = list(command.kinds or ())
    source = open_source(source_options(opts, command.selector_on))
    state = source.load(kinds)
    found = answer(opts, command, Loaded(state, opts.now_or(state.captured_at)))
    if opts.format in _STREAMED:
        print_notes(found.notes, no_color=True)
        _stream(opts, _documents(opts, found).values())
    else:
        write(opts, found)
    sys.stdout.flush()
    before, notes = _rows(opts, found), list(found.table_notes)
    trouble: str | None = None  # what the source last said was failing, printed once
    while True:
        try:
            latest = source.load(kinds)  # waits on a short watch of each list while nothing changes
        except ClusterError as exc:  # watches failing: the source backs off; said once, not per try
            if exc.message != trouble:
                trouble = exc.message
                print_notes([Note("PARTIAL", exc.message)], no_color=opts.no_color)
            _pause(source)
            continue
        trouble = None
        if latest is state:
            _pause(source)
            continue
        state = latest
        found = answer(opts, command, Loaded(state, opts.now_or(state.captured_at)))
        if list(found.table_notes) != notes:
            fresh = [n for n in found.table_notes if n not in notes]  # each note said once, as it comes
            notes = list(found.table_notes)
            print_notes(fresh, no_color=opts.no_color)
        rows = _rows(opts, found)
        changed = [key for key, cells in rows.items() if before.get(key) != cells]
        if changed:
            _changed_rows(opts, found, changed)
        before = rows
