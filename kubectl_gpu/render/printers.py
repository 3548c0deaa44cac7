"""kubectl's printing flags over a command's answer: `-o name`, `-o jsonpath=`, `-o custom-columns=`,
`--no-headers`, `--sort-by`.

What an object is, per command, is its `Listing`: the key of its JSON document that holds the objects
(`nodes`, `pods`, `findings`) and the table of its view whose rows are those objects, in the same order.
`-o name`, `jsonpath`, `custom-columns` and `--sort-by` read the JSON document (what `-o json` prints);
`--no-headers` and `custom-columns` draw through the view model (render.model), so both front ends' rules
for cluster text apply. docs/global-options.md lists each command's objects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import msgspec

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.render.safe import safe_line

if TYPE_CHECKING:  # imported where used: `-o json` and `-o yaml` draw no view and read no path
    from kubectl_gpu.render.jsonpath import Expression, Template
    from kubectl_gpu.render.model import Table, View

__all__ = [
    "Listing",
    "Printing",
    "custom_columns",
    "items_of",
    "name_lines",
    "object_name",
    "parse_columns",
    "parse_printing",
    "sort_document",
    "sort_view",
    "with_label_columns",
    "without_headers",
]


class Listing(msgspec.Struct, frozen=True):
    """A command's objects: `items`, the key of its JSON document that lists them; `table`, the table of
    its view with one row per object in the same order (None: no such table); `names`, what `-o name`
    calls each: the first (kind, key) whose key the item has (none: the item's own `object` {kind, name},
    as findings have)."""

    items: str
    table: str | None
    names: tuple[tuple[str, str], ...] = ()


#: kubectl's `-o name` resource for the kinds our objects and findings name: `kind.group`, lower case.
_RESOURCE = {
    "Node": "node",
    "Pod": "pod",
    "Namespace": "namespace",
    "Deployment": "deployment.apps",
    "StatefulSet": "statefulset.apps",
    "DaemonSet": "daemonset.apps",
    "ReplicaSet": "replicaset.apps",
    "Job": "job.batch",
    "CronJob": "cronjob.batch",
    "NodePool": "nodepool.karpenter.sh",
    "NodeClaim": "nodeclaim.karpenter.sh",
    "NodeClass": "nodeclass.eks.amazonaws.com",
    "EC2NodeClass": "ec2nodeclass.karpenter.k8s.aws",
}


def _resource(kind: str) -> str:
    return _RESOURCE.get(kind, kind.lower())


class Printing(msgspec.Struct, frozen=True):
    """What the printing flags asked for, parsed before anything is read (a bad spec is exit 2 at once)."""

    jsonpath: Template | None = None  # -o jsonpath=
    columns: tuple[tuple[str, Expression], ...] = ()  # -o custom-columns=
    sort_by: Expression | None = None
    no_headers: bool = False
    allow_missing: bool = True  # --allow-missing-template-keys (-o jsonpath=)


def parse_printing(
    output: str | None, spec: str | None, sort_by: str | None, *, no_headers: bool, allow_missing: bool = True
) -> Printing:
    """The printing flags as given (`output`: the -o format's name, `spec`: what follows its `=`)."""
    if output != "jsonpath" and output != "custom-columns" and not sort_by:
        return Printing(no_headers=no_headers, allow_missing=allow_missing)  # no path to read
    from kubectl_gpu.render.jsonpath import parse_expression, parse_template

    return Printing(
        jsonpath=parse_template(spec or "") if output == "jsonpath" else None,
        columns=parse_columns(spec or "") if output == "custom-columns" else (),
        sort_by=parse_expression(sort_by, "--sort-by") if sort_by else None,
        no_headers=no_headers,
        allow_missing=allow_missing,
    )


def parse_columns(spec: str) -> tuple[tuple[str, Expression], ...]:
    """`HEADER:.path,HEADER2:{.path}` as kubectl reads it; InvalidInput (exit 2) when malformed."""
    from kubectl_gpu.render.jsonpath import parse_expression

    columns = []
    for part in _split_columns(spec):
        header, colon, path = part.partition(":")
        if not colon or not header or not path:
            raise InvalidInput(f"unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>")
        columns.append((header, parse_expression(path, "custom-columns")))
    if not columns:
        raise InvalidInput("custom-columns format specified but no custom columns given")
    return tuple(columns)


def _split_columns(spec: str) -> list[str]:
    """Split at commas outside brackets and quotes (a filter or union may hold commas)."""
    parts, depth, quote, start = [], 0, "", 0
    for index, char in enumerate(spec):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "[({":
            depth += 1
        elif char in "])}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(spec[start:index])
            start = index + 1
    parts.append(spec[start:])
    return [p.strip() for p in parts if p.strip()]


def items_of(document: Mapping[str, Any], listing: Listing) -> list[Any]:
    found = document.get(listing.items)
    return list(found) if isinstance(found, list) else []


def object_name(item: Any, listing: Listing) -> str | None:
    """An object's `-o name`: `kind/name` as kubectl prints it (`node/NAME`, `pod/NAME` without the
    namespace, `nodepool.karpenter.sh/NAME`); None when the item names none."""
    if not isinstance(item, Mapping):
        return None
    ref = item.get("object")
    for kind, key in listing.names:
        if item.get(key):
            ref = {"kind": kind, "name": item[key]}
            break
    if isinstance(ref, Mapping) and ref.get("name"):
        return safe_line(f"{_resource(str(ref.get('kind') or ''))}/{ref['name']}")
    return None


def name_lines(items: Sequence[Any], listing: Listing) -> str:
    """`-o name`: a line per object; an object that several items name (findings) once."""
    seen = dict.fromkeys(n for n in (object_name(item, listing) for item in items) if n is not None)
    return "".join(f"{name}\n" for name in seen)


def _sort_key(value: Any) -> tuple[Any, ...]:
    """kubectl's order: absent first, then numbers and quantities by value, then text as text (kubectl 1.32
    sorts `i-10` before `i-9`: tests/cli/test_printing_flags.py holds us to it)."""
    from kubectl_gpu.core.k8s.quantity import QuantityError, parse_quantity
    from kubectl_gpu.render.jsonpath import text_of

    if value is None:
        return (0,)
    if isinstance(value, bool):
        return (1, Decimal(int(value)))
    if isinstance(value, int | float):
        return (1, Decimal(repr(value)))
    text = text_of(value)
    try:
        return (1, parse_quantity(text))
    except (QuantityError, ValueError, ArithmeticError):
        return (2, text)


def _order(items: Sequence[Any], sort_by: Expression) -> list[int]:
    found = [sort_by.values(item) for item in items]
    if items and not any(found):  # kubectl: a field no object has is an error, not an unsorted answer
        path = sort_by.source if sort_by.source.startswith("{") else "{" + sort_by.source + "}"
        raise InvalidInput(f'couldn\'t find any field with path "{path}" in the list of objects')
    keys = [_sort_key(f[0] if f else None) for f in found]
    return sorted(range(len(items)), key=keys.__getitem__)  # stable: equal keys keep the command's order


def sort_document(document: dict[str, Any], listing: Listing, sort_by: Expression) -> dict[str, Any]:
    """The document with its objects in --sort-by order (-o json, yaml, name, jsonpath)."""
    items = items_of(document, listing)
    return {**document, listing.items: [items[i] for i in _order(items, sort_by)]}


def sort_view(view: View, document: Mapping[str, Any], listing: Listing, sort_by: Expression) -> View:
    """The view with the objects' table in --sort-by order (rows past the objects, a TOTAL, stay last)."""
    items = items_of(document, listing)
    table = view.table(listing.table) if listing.table else None
    if table is None:
        raise InvalidInput(
            f"--sort-by: this view has no table of {listing.items}", "use -o json or -o custom-columns"
        )
    count = min(len(items), len(table.rows))
    order = _order(items[:count], sort_by)
    rows = [table.rows[i] for i in order] + list(table.rows[count:])
    parts = tuple(table.with_rows(rows) if p is table else p for p in view.parts)
    return msgspec.structs.replace(view, parts=parts)


def custom_columns(
    items: Sequence[Any], printing: Printing, *, name: str = "custom", keys: Listing | None = None
) -> Table[None]:
    """-o custom-columns as a table of the view model: a column per spec, a row per object; several
    results joined by commas, none as `<none>` (kubectl's). `keys`: rows are keyed by object name."""
    from kubectl_gpu.render.jsonpath import text_of
    from kubectl_gpu.render.model import Cell, Column, Row, Table

    columns = tuple(Column(f"c{i}", header) for i, (header, _) in enumerate(printing.columns))
    rows: list[Row[None]] = []
    for index, item in enumerate(items):
        cells = []
        for _, expression in printing.columns:
            found = expression.values(item)
            cells.append(Cell(",".join(text_of(v) for v in found) if found else "<none>"))
        key = (object_name(item, keys) if keys is not None else None) or str(index)
        rows.append(Row(key, tuple(cells)))
    return Table(name, columns, tuple(rows), show_header=not printing.no_headers)


def without_headers(view: View) -> View:
    """--no-headers: every table without its header line (titles and text stay)."""
    from dataclasses import replace

    from kubectl_gpu.render.model import Table

    parts = tuple(replace(p, show_header=False) if isinstance(p, Table) else p for p in view.parts)
    return msgspec.structs.replace(view, parts=parts)


def with_label_columns(
    view: View,
    document: Mapping[str, Any],
    listing: Listing,
    labels_of: Any,
    columns: Sequence[str],
    *,
    show_labels: bool,
) -> View:
    """kubectl's -L KEY (a column per key, its header the key's last `/` part in capitals, empty where the
    object lacks it) and --show-labels (LABELS last: `k=v,...` by key, `<none>` for none) on the objects'
    table; `labels_of(item)`: an object's labels. Rows past the objects (a TOTAL) get empty cells."""
    from dataclasses import replace

    from kubectl_gpu.render.model import Cell, Column

    table = view.table(listing.table) if listing.table else None
    if table is None:
        raise InvalidInput(f"-L/--show-labels: this view has no table of {listing.items}")
    headers = [key.split("/")[-1].upper() for key in columns] + (["LABELS"] if show_labels else [])
    items = items_of(document, listing)
    rows = []
    for index, row in enumerate(table.rows):
        labels = (labels_of(items[index]) if index < len(items) else None) or {}
        cells = [labels.get(key, "") for key in columns]
        if show_labels:
            shown = ",".join(f"{k}={v}" for k, v in sorted(labels.items())) or "<none>"
            cells.append(shown if index < len(items) else "")
        rows.append(replace(row, cells=row.cells + tuple(Cell(safe_line(c)) for c in cells)))
    added = tuple(Column(f"label-{i}", header) for i, header in enumerate(headers))
    shown_table = replace(table, columns=table.columns + added, rows=tuple(rows))
    parts = tuple(shown_table if p is table else p for p in view.parts)
    return msgspec.structs.replace(view, parts=parts)
