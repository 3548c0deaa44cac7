"""The view model: what both front ends draw, built once per command from its Report.

A command's view is a `View`: tables and lines of text, in order. A `Table` has typed `Column`s (a stable
`key` the front ends look columns up by, a header for people, a kind that says how the value sorts and
aligns) and `Row`s (a stable key, one `Cell` per column, and the object the row shows, so a front end can
drill down). The CLI draws it with rich (`render.draw`), writes CSV from it, and fleet mode adds CLUSTER as
a column of the model; the TUI's grid reads the same rows. Nothing reads a rendered object back.

Every text here passes `render.safe` on the way in (cells, titles and notes as one line, prose as a
block): this is the boundary for cluster text, for both front ends. Styles are the theme's names for what
a colour means (`theme.ERROR`), never markup.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Any, Generic, TypeVar

import msgspec

from kubectl_gpu.core.report import Finding, ObjectRef
from kubectl_gpu.render.fixes import pasteable
from kubectl_gpu.render.safe import safe_block, safe_line
from kubectl_gpu.render.sentence import first_sentence

__all__ = [
    "Cell",
    "Column",
    "FindingItem",
    "Kind",
    "Part",
    "Priority",
    "Prose",
    "Row",
    "Span",
    "Table",
    "View",
    "finding_item",
    "prose",
]

#: the report's own object a row shows (a NodeRow, a PodDiagnosis, a FindingItem...): each builder types its
#: table by it (`Table[NodeRow]`), so what reads `row.obj` knows what it is without `isinstance`. Covariant:
#: a `Row[PodDiagnosis]` is a `Row[PodDiagnosis | PendingGroup]` (rows are never changed in place)
T = TypeVar("T", covariant=True)
U = TypeVar("U")


class Kind(StrEnum):
    """What a column holds: how it sorts (by `Cell.sort`) and aligns."""

    TEXT = "text"
    COUNT = "count"  # a whole number of things
    QUANTITY = "quantity"  # an amount with a unit, or "a/b/c"
    AGE = "age"  # a duration; sorts by seconds
    MONEY = "money"  # dollars; sorts by value
    CODE = "code"  # a stable code (verdict, finding code, state): never cut, shown whole or left out
    SEVERITY = "severity"  # error, warning, info; sorts worst first


class Priority(IntEnum):
    """Which columns a narrow terminal keeps (the TUI at 80 columns): lower stays longer, then the
    column's position. Each page keeps what a row is and its answer (Drivers: DRIVER, CUDA-MAX; Cost: $/H)."""

    NAME = 0  # what the row is: a node's name, a finding's code
    ANSWER = 1  # the page's answer
    USEFUL = 2  # the rest, in their order
    EXTRA = 3  # the first to go: a value the title or another column already says


@dataclass(frozen=True, slots=True)
class Column:
    """`key` never changes with the header's wording: front ends find columns by it."""

    key: str
    header: str
    kind: Kind = Kind.TEXT
    #: shown only with -o wide (a builder given wide=False leaves it out; the TUI shows it last)
    wide: bool = False
    #: may wrap at words (REASON, MESSAGE, FIX); other columns keep a cell on one line
    wrap: bool = False
    #: a wrapping column folds a word longer than its width instead of cutting it
    fold: bool = True
    #: the style of every cell of the column (explain's check names)
    style: str = ""
    #: which columns a narrow terminal keeps (`Priority`: lower stays longer)
    priority: int = Priority.USEFUL
    #: a cell shows its text's first sentence (REASON, MESSAGE); the whole text stays in the row's object
    #: (explain, the TUI's detail pane, JSON)
    brief: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "header", safe_line(self.header))

    def shown(self, cell: Cell) -> str:
        """`cell`'s text as a table shows it: its first sentence in a `brief` column."""
        return first_sentence(cell.text) if self.brief else cell.text

    @property
    def right(self) -> bool:
        """Numbers read best right-aligned (the TUI does; the CLI keeps kubectl's left-aligned columns)."""
        return self.kind in (Kind.COUNT, Kind.MONEY)


@dataclass(frozen=True, slots=True)
class Cell:
    """One value as shown (`text`, made safe), what it sorts by (`sort`: a number for counts, ages in
    seconds, money; None sorts by the text) and its style (a theme name)."""

    text: str
    sort: float | int | str | None = None
    style: str = ""
    #: the text's own lines are kept (a message or a fix in a wrapping column); else one line
    block: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", safe_block(self.text) if self.block else safe_line(self.text))

    @property
    def sort_key(self) -> float | int | str:
        return self.text if self.sort is None else self.sort


@dataclass(frozen=True, slots=True)
class Row(Generic[T]):
    """One object. `key` is stable across refreshes (a node's name, `ns/pod`); `ref` the Kubernetes object
    it shows; `node` the node a debug action would run on; `obj` the report's own object (for details),
    typed by the table (`Row[NodeRow]`; a table of plain lines: `Row[None]`)."""

    key: str
    cells: tuple[Cell, ...]
    ref: ObjectRef | None = None
    node: str | None = None
    obj: T = field(default=None, compare=False)  # type: ignore[assignment]  # None: a Row[None]


@dataclass(frozen=True, slots=True)
class Table(Generic[T]):
    """`name` identifies the table in its view (`nodes`, `findings`): fleet mode merges tables by it, the
    TUI picks its sections by it. `title` is what people read above it (None: no title line)."""

    name: str
    columns: tuple[Column, ...]
    rows: tuple[Row[T], ...] = ()
    title: str | None = None
    show_header: bool = True

    def __post_init__(self) -> None:
        if self.title is not None:
            object.__setattr__(self, "title", safe_line(self.title))

    def index(self, key: str) -> int:
        """The position of the column `key`; KeyError when the table has none."""
        for position, column in enumerate(self.columns):
            if column.key == key:
                return position
        raise KeyError(f"table {self.name} has no column {key!r}")

    def has(self, key: str) -> bool:
        return any(c.key == key for c in self.columns)

    def cell(self, row: Row[object], key: str) -> Cell:
        return row.cells[self.index(key)]

    def with_rows(self, rows: Iterable[Row[U]]) -> Table[U]:
        """The same table (name, columns, title) with other rows (of their own object type)."""
        return Table(self.name, self.columns, tuple(rows), self.title, self.show_header)


class Span(msgspec.Struct, frozen=True):
    text: str
    style: str = ""


class Prose(msgspec.Struct, frozen=True):
    """Styled text, possibly several lines (a summary, a note, a block of findings). `verbatim`: its lines
    are never wrapped or cut, on a terminal too (a fix pastes only as written; the terminal wraps it)."""

    spans: tuple[Span, ...]
    verbatim: bool = False

    @property
    def plain(self) -> str:
        return "".join(s.text for s in self.spans)


def prose(*parts: str | tuple[str, str] | Span) -> Prose:
    """Prose from strings and (text, style) pairs, each made safe as a block (newlines kept)."""
    spans = []
    for part in parts:
        if isinstance(part, Span):
            spans.append(Span(safe_block(part.text), part.style))
        elif isinstance(part, tuple):
            spans.append(Span(safe_block(part[0]), part[1]))
        else:
            spans.append(Span(safe_block(part)))
    return Prose(tuple(spans))


#: a view's part: a table of any one object type, or prose
Part = Table[Any] | Prose


class View(msgspec.Struct, frozen=True):
    """A command's view: its parts in order. `empty` is set when there was nothing to show (the parts then
    hold the sentence that says so)."""

    parts: tuple[Part, ...]
    empty: bool = False

    def shortened(self) -> bool:
        """Some cell is shown to its first sentence only (a `brief` column): its whole text is elsewhere."""
        return any(
            column.brief and column.shown(row.cells[index]) != row.cells[index].text
            for table in self.tables()
            for index, column in enumerate(table.columns)
            for row in table.rows
        )

    def tables(self) -> list[Table[Any]]:
        return [p for p in self.parts if isinstance(p, Table)]

    def table(self, name: str) -> Table[Any] | None:
        """The table `name`, its rows' objects untyped: a front end that reads `row.obj` takes the table
        from its typed builder (`drivers_view.nodes_table`) instead."""
        return next((t for t in self.tables() if t.name == name), None)

    def texts(self) -> list[Prose]:
        return [p for p in self.parts if isinstance(p, Prose) and p.plain.strip()]

    @staticmethod
    def of(parts: Sequence[Part], *, empty: bool = False) -> View:
        return View(tuple(parts), empty)

    @staticmethod
    def sentence(text: str, style: str = "") -> View:
        return View((prose((text, style)),), empty=True)


@dataclass(frozen=True, slots=True)
class FindingItem:
    """A finding as shown: every text made safe; the message as one line (it quotes cluster text, an
    Event's message, whose line breaks must not start lines of their own), the fix as a block (YAML or a
    command: its lines are its own). `fix_lines`: the fix as it pastes (`render.fixes.pasteable`: YAML and
    commands as written, the prose around them as `#` comments); empty without a fix."""

    severity: str
    code: str
    object: str
    message: str
    fix: str | None
    ref: ObjectRef
    source: Finding = field(compare=False)
    fix_lines: tuple[str, ...] = ()


def finding_item(finding: Finding) -> FindingItem:
    fix = safe_block(finding.fix) if finding.fix else None
    return FindingItem(
        severity=str(finding.severity),
        code=safe_line(finding.code),
        object=safe_line(str(finding.object)),
        message=safe_line(finding.message),
        fix=fix,
        ref=finding.object,
        source=finding,
        fix_lines=pasteable(fix) if fix else (),
    )
