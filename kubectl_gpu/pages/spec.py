"""What a page is, as data: one `Page` per view of the product, registered once (`kubectl_gpu.pages`).

A page says what it reads, which analysis answers it and with which report, which view function draws that
report, its columns' stable keys (the view model's `Column.key`; widths and narrow-terminal priorities are
the view model's own, `render.model.Column`), its CLI command and one-line summary, whether it has a fleet
face, and its TUI key, title, footer label and `:` aliases. The CLI, the TUI, fleet mode, completion and the
docs' command list iterate the registry instead of naming pages each for itself.

It stays light: `kubectl gpu --help` reads it without importing an analysis, a renderer, rich or typer
(tests/test_import_hygiene.py). Code is named by a dotted `module:attribute` string (`Ref`) and imported on
first use.
"""

from __future__ import annotations

import importlib
from typing import Any, Literal

import msgspec

__all__ = ["FINDINGS", "Page", "Reads", "Ref", "TuiFace"]

#: the findings table every page with findings ends with (`render.findings`)
FINDINGS = ("severity", "code", "object", "message")

#: which kind -l selects for a page (as `core.k8s.state.SelectorTarget`; not imported: `--help` stays light)
Selects = Literal["nodes", "pods", "none"]


class Ref(msgspec.Struct, frozen=True):
    """Code named by `package.module:attribute` (or a module alone), imported when first resolved."""

    path: str

    def resolve(self) -> Any:
        module, _, attribute = self.path.partition(":")
        found: Any = importlib.import_module(module)
        for part in filter(None, attribute.split(".")):
            found = getattr(found, part)
        return found


class Reads(msgspec.Struct, frozen=True):
    """What a page reads: the kinds its analysis declares, the kinds its rows are made of (one that could
    not be listed is "could not look", exit 4, never an empty table), and the kind `-l` selects."""

    #: the analysis package, whose `kinds` attribute (`KINDS`) lists the API kinds it reads
    analysis: str
    kinds_name: str = "KINDS"
    needs: tuple[str, ...] = ()
    selector_on: Selects = "none"

    @property
    def kinds(self) -> frozenset[str]:
        kinds: frozenset[str] = getattr(importlib.import_module(self.analysis), self.kinds_name)
        return kinds


class TuiFace(msgspec.Struct, frozen=True):
    """A page's view in the TUI: its widget class, the key that shows it, its title and footer label."""

    view: Ref  # a `tui.views.base.TableView` subclass
    key: str  # a Textual key name: "n", "dollar_sign"
    title: str
    footer: str = ""  # the footer's label, when shorter than the title

    @property
    def label(self) -> str:
        return self.footer or self.title


class Page(msgspec.Struct, frozen=True, kw_only=True):
    """One page: see the module's docstring. `name` is its stable id (the TUI's view id, the docs' page)."""

    name: str
    #: one line: the root `--help`'s command list and the docs' command table
    summary: str
    #: the `kubectl gpu` command that answers it (None: a TUI page only)
    command: str | None = None
    #: runs once per cluster under --contexts / --all-contexts (`cli.fleet`)
    fleet: bool = False
    reads: Reads | None = None
    #: the report class the analysis returns (its JSON's `kind`)
    report: Ref | None = None
    #: the command's positional arguments and what each names, for completion ("node", "pending-pod":
    #: `cli/completion.py` asks the cluster for those names)
    arguments: dict[str, str] = msgspec.field(default_factory=dict)
    #: the view function: report -> `render.model.View`
    view: Ref | None = None
    #: the view model's tables by name, each with its columns' stable keys (`-o wide` ones included)
    columns: dict[str, tuple[str, ...]] = msgspec.field(default_factory=dict)
    tui: TuiFace | None = None
    #: what `:NAME` in the TUI opens this page with (the view id and k9s' short names)
    aliases: tuple[str, ...] = ()
    #: the page's documentation, under docs/
    doc: str | None = None

    @property
    def column_keys(self) -> frozenset[str]:
        return frozenset(key for keys in self.columns.values() for key in keys)
