"""kubectl's printing flags on the read-only commands: -o name|jsonpath=|custom-columns=, --no-headers,
--sort-by (render.printers does the work; this module picks what to print for one cluster or a fleet).

A command takes them when it is registered with `with_global_options(..., printing=True)` and its
`run.Command` names its objects (`listing`, a `render.printers.Listing`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from kubectl_gpu.cli.global_options import GlobalOptions, OutputFormat
from kubectl_gpu.core.errors import InvalidInput

if TYPE_CHECKING:
    from kubectl_gpu.cli.run import Answer
    from kubectl_gpu.core.clusters import ClusterResult
    from kubectl_gpu.core.k8s.state import ClusterState
    from kubectl_gpu.render.model import View
    from kubectl_gpu.render.printers import Listing, Printing

__all__ = [
    "labelled_view",
    "labels_lookup",
    "needs_document",
    "print_fleet",
    "printed",
    "printing_of",
    "report_document",
]

_PRINTERS = (OutputFormat.name, OutputFormat.jsonpath, OutputFormat.custom_columns)


def printing_of(opts: GlobalOptions) -> Printing:
    """The printing flags, parsed; InvalidInput (exit 2) for a malformed template, spec or --sort-by."""
    from kubectl_gpu.render.printers import parse_printing

    return parse_printing(
        opts.output,
        opts.output_spec,
        opts.sort_by,
        no_headers=opts.no_headers,
        allow_missing=opts.allow_missing_template_keys,
    )


def labels_lookup(state: ClusterState, listing: Listing | None) -> Callable[[Any], Any] | None:
    """An object's labels from its JSON item, for -L and --show-labels: commands whose objects are nodes
    (by `name`) or pods (by `namespace` and `name`); None for the others."""
    kind = listing.names[0][0] if listing is not None and listing.names else None
    # gathered on the first lookup: only -L and --show-labels look (20,000 pods cost any command ~5 ms)
    if kind == "Node":

        @cache
        def nodes() -> dict[Any, dict[str, str]]:
            return {n.meta.name: n.meta.labels for n in state.nodes}

        return lambda item: nodes().get(item.get("name")) if isinstance(item, Mapping) else None
    if kind == "Pod":

        @cache
        def pods() -> dict[Any, dict[str, str]]:
            return {(p.meta.namespace, p.meta.name): p.meta.labels for p in state.pods}

        return lambda item: (
            pods().get((item.get("namespace"), item.get("name"))) if isinstance(item, Mapping) else None
        )
    return None


def needs_document(opts: GlobalOptions) -> bool:
    """Whether what is printed is read from the JSON document (not only the view)."""
    return opts.output in _PRINTERS or opts.sort_by is not None


def document_of(found: Answer) -> dict[str, Any]:
    """What -o json prints for one cluster (`run.emit`): the report's document and its notes."""
    data = found.report.to_dict()
    if found.notes:
        data = {
            **data,
            "notes": [{"code": n.code, "message": n.message, "kind": n.kind} for n in found.notes],
        }
    return data


def report_document(opts: GlobalOptions, found: Answer) -> dict[str, Any]:
    """A fleet member's report document, its objects in --sort-by order when asked."""
    data = found.report.to_dict()
    if opts.sort_by is None or found.listing is None:
        return data
    return _sorted(data, found.listing, printing_of(opts))


def _sorted(data: dict[str, Any], listing: Listing, printing: Printing) -> dict[str, Any]:
    from kubectl_gpu.render.printers import sort_document

    return data if printing.sort_by is None else sort_document(data, listing, printing.sort_by)


def printed(opts: GlobalOptions, found: Answer, print_notes: Callable[..., None]) -> bool:
    """Write one cluster's answer when a printing flag asks for it; False: the ordinary writer's turn.
    `print_notes`: `run.print_notes` (passed in: run imports this module)."""
    listing = found.listing
    labelled = opts.show_labels or bool(opts.label_columns)
    if listing is None or not (needs_document(opts) or opts.no_headers or labelled):
        return False
    if labelled and found.labels is None:
        flag = "--show-labels" if opts.show_labels else "-L/--label-columns"
        raise InvalidInput(f"{flag}: the rows of this command are not nodes or pods", "use -o json")
    from kubectl_gpu.render.documents import dump_json, dump_yaml

    printing = printing_of(opts)
    if opts.format in (OutputFormat.json, OutputFormat.yaml) and printing.sort_by is None:
        return False
    raw = document_of(found) if needs_document(opts) or labelled else {}
    data = _sorted(raw, listing, printing)
    if opts.format in (OutputFormat.json, OutputFormat.yaml):
        sys.stdout.write(dump_json(data) if opts.format is OutputFormat.json else dump_yaml(data))
        return True
    if opts.format in (OutputFormat.name, OutputFormat.jsonpath):
        print_notes(found.notes, no_color=True)
        _write_text(opts, printing, [data], [listing])
        return True
    print_notes(found.table_notes, no_color=opts.no_color)
    _draw(opts, _view_of(opts, printing, found, raw, listing))
    return True


def _write_text(
    opts: GlobalOptions,
    printing: Printing,
    documents: Sequence[Mapping[str, Any]],
    listings: Sequence[Listing],
) -> None:
    from kubectl_gpu.render.printers import items_of, name_lines

    if printing.jsonpath is not None:
        sys.stdout.write(printing.jsonpath.render(documents[0], allow_missing=printing.allow_missing))
        return
    for data, listing in zip(documents, listings, strict=False):
        sys.stdout.write(name_lines(items_of(data, listing), listing))


def _view_of(
    opts: GlobalOptions, printing: Printing, found: Answer, data: Mapping[str, Any], listing: Listing
) -> View:
    """The table to draw from the document `data` (unsorted): custom-columns' own, else the command's
    view; sorted, without headers, as asked."""
    from kubectl_gpu.render.model import View
    from kubectl_gpu.render.printers import custom_columns, items_of, sort_view, without_headers

    if printing.columns:
        return View.of([custom_columns(items_of(_sorted(dict(data), listing, printing), listing), printing)])
    view = labelled_view(opts, found, data)
    if printing.sort_by is not None:
        view = sort_view(view, data, listing, printing.sort_by)
    return without_headers(view) if printing.no_headers else view


def labelled_view(opts: GlobalOptions, found: Answer, data: Mapping[str, Any]) -> View:
    """The command's view (wide as asked) with -L and --show-labels columns when asked (`data`: the
    document, in the command's own order)."""
    view = found.view(opts.format is OutputFormat.wide)
    if (opts.show_labels or opts.label_columns) and found.labels is not None and found.listing is not None:
        from kubectl_gpu.render.printers import with_label_columns

        keys = [key for given in opts.label_columns for key in given.split(",") if key]
        view = with_label_columns(view, data, found.listing, found.labels, keys, show_labels=opts.show_labels)
    return view


def _draw(opts: GlobalOptions, view: View) -> None:
    from kubectl_gpu.render.output import make_console, print_table

    print_table(make_console(no_color=opts.no_color), view)


def print_fleet(
    opts: GlobalOptions,
    results: Sequence[ClusterResult],
    answers: Mapping[str, Answer],
    fleet: dict[str, Any],
) -> bool:
    """Fleet mode: jsonpath over the fleet's document (what -o json prints), the names of every cluster's
    objects, custom-columns with CLUSTER first; tables sorted per cluster, then merged (render.fleet_view).
    The fleet's documents are sorted already (`report_document`); a view is sorted from its report's own.
    False: the fleet's ordinary writer's turn (-o json and yaml, or no printing flag)."""
    if opts.format in (OutputFormat.json, OutputFormat.yaml) or not (needs_document(opts) or opts.no_headers):
        return False
    from kubectl_gpu.render.fleet_view import fleet_view
    from kubectl_gpu.render.printers import without_headers

    printing = printing_of(opts)
    members = []  # (context, answer, listing, document)
    for result in results:
        found = answers.get(result.context)
        if found is None or found.listing is None:
            continue
        members.append((result.context, found, found.listing, found.report.to_dict()))
    if opts.format in (OutputFormat.name, OutputFormat.jsonpath):
        shown = [fleet] if printing.jsonpath is not None else [_sorted(m[3], m[2], printing) for m in members]
        _write_text(opts, printing, shown, [m[2] for m in members])
        return True
    view = fleet_view([(c, _view_of(opts, printing, a, d, listing)) for c, a, listing, d in members])
    _draw(opts, without_headers(view) if printing.no_headers else view)
    return True
