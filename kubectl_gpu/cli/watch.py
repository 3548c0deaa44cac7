"""`-w/--watch` for `nodes` and `pending`, as `kubectl get -w`: the table, then each row that changes.

One live source stays open: `LiveSource.load` answers the state it answered before, the same object, until
a short watch from each list's resourceVersion sees a change (`kube.changes`), so the loop re-analyses
only when the cluster changed. When watches fail the source backs off, and when watching is forbidden it
polls (`kube.pacing`): the loop then sleeps until the source may ask again, never spinning, and the note
that says so is printed once. Then the rows that are new or read differently are printed under the
first table, without a header (a row that disappears is not printed: kubectl -w prints no deletions
either). Ctrl-C ends it: `cli.app.main` turns KeyboardInterrupt into exit 130, without a traceback.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

from kubectl_gpu.cli.options import GlobalOptions, OutputFormat
from kubectl_gpu.cli.run import Answer, Command, Loaded, answer, print_notes, source_options, write
from kubectl_gpu.core.errors import ClusterError, InvalidInput
from kubectl_gpu.core.k8s.state import Note, SelectorTarget

__all__ = ["check_watch", "watch"]

#: the formats -w prints row by row
_WATCHED = (OutputFormat.table, OutputFormat.wide, OutputFormat.name, OutputFormat.custom_columns)


def check_watch(opts: GlobalOptions, command: str) -> None:
    """-w is for a live cluster, one at a time, in a format of rows; InvalidInput (exit 2) otherwise."""
    if opts.fleet or opts.fleet_member:
        raise InvalidInput(f"{command} -w: watches one cluster", "drop --contexts/--all-contexts")
    if opts.snapshot:
        raise InvalidInput(f"{command} -w: a --snapshot does not change", "watch a live cluster")
    if opts.format not in _WATCHED:
        raise InvalidInput(
            f"{command} -w: -o {opts.format} is not printed row by row",
            "use -o table, wide, name or custom-columns",
        )


def _rows(opts: GlobalOptions, found: Answer) -> dict[str, tuple[str, ...]]:
    """What each object reads as in the chosen format, by the object's key."""
    from kubectl_gpu.cli.printing import document_of, printing_of
    from kubectl_gpu.render.printers import custom_columns, items_of, name_lines

    listing = found.listing
    assert listing is not None
    if opts.format is OutputFormat.name:
        names = name_lines(items_of(document_of(found), listing), listing).splitlines()
        return {name: (name,) for name in names}
    if opts.format is OutputFormat.custom_columns:
        table = custom_columns(items_of(document_of(found), listing), printing_of(opts), keys=listing)
    else:
        view = found.view(opts.format is OutputFormat.wide)
        found_table = view.table(listing.table) if listing.table else None
        if found_table is None:
            return {}
        table = found_table
    return {row.key: tuple(c.text for c in row.cells) for row in table.rows}


def _changed_rows(opts: GlobalOptions, found: Answer, keys: Iterable[str]) -> None:
    """Print the rows `keys` of this answer, as the first table printed them but without a header."""
    from dataclasses import replace

    from kubectl_gpu.cli.printing import document_of, printing_of
    from kubectl_gpu.render.model import View
    from kubectl_gpu.render.output import make_console, print_table
    from kubectl_gpu.render.printers import custom_columns, items_of

    wanted = list(keys)
    listing = found.listing
    assert listing is not None
    if opts.format is OutputFormat.name:
        sys.stdout.write("".join(f"{key}\n" for key in wanted))
        sys.stdout.flush()
        return
    if opts.format is OutputFormat.custom_columns:
        table = custom_columns(items_of(document_of(found), listing), printing_of(opts), keys=listing)
    else:
        table = found.view(opts.format is OutputFormat.wide).table(listing.table or "")  # type: ignore[assignment]
    chosen = set(wanted)
    shown = replace(
        table, rows=tuple(r for r in table.rows if r.key in chosen), show_header=False, title=None
    )
    print_table(make_console(no_color=opts.no_color), View.of([shown]))
    sys.stdout.flush()


def _pause(source: object) -> None:
    """Wait until the source may ask the API server again (it backs off, polls, or paces its watches)."""
    wait = getattr(source, "wait", None)
    seconds = wait() if callable(wait) else 0.0
    if seconds > 0:
        time.sleep(seconds)


def watch(
    opts: GlobalOptions,
    command: str,
    kinds: Iterable[str],
    selector_on: SelectorTarget,
    make: Callable[[Loaded], Command[Any]],
) -> int:
    """Print the command's table, then its changed rows on every change of the cluster, until Ctrl-C."""
    from kubectl_gpu.kube.source import open_source

    check_watch(opts, command)
    kinds = list(kinds)
    source = open_source(source_options(opts, selector_on))
    state = source.load(kinds)
    found = answer(opts, make(Loaded(state, opts.now_or(state.captured_at))))
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
        found = answer(opts, make(Loaded(state, opts.now_or(state.captured_at))))
        if list(found.table_notes) != notes:
            fresh = [n for n in found.table_notes if n not in notes]  # each note said once, as it comes
            notes = list(found.table_notes)
            print_notes(fresh, no_color=opts.no_color)
        rows = _rows(opts, found)
        changed = [key for key, cells in rows.items() if before.get(key) != cells]
        if changed:
            _changed_rows(opts, found, changed)
        before = rows
