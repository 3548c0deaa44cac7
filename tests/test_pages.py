"""The page registry (kubectl_gpu/pages) is the one list of pages: the CLI, the TUI, fleet mode, completion and
the docs agree with it, and it stays light enough for `--help`."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.pages import ORDER, Page, aliases, by_command, pages, tui_pages

ROOT = Path(__file__).resolve().parents[1]
DEMO = str(ROOT / "examples" / "automode-gpu-demo.json")
COMMANDS = [page for page in pages() if page.command]


def test_names_commands_keys_and_aliases_are_each_one_page() -> None:
    for values in (
        [p.name for p in pages()],
        [p.command for p in COMMANDS],
        [p.tui.key for p in tui_pages() if p.tui],
        [a for p in pages() for a in p.aliases],
    ):
        assert len(values) == len(set(values)), values
    assert [p.name for p in pages()] == list(ORDER)  # a module's page is named as the module


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_every_reference_resolves(page: Page) -> None:
    for ref in (page.report, page.view, page.tui.view if page.tui else None):
        if ref is not None:
            assert ref.resolve() is not None, ref.path
    if page.reads is not None:
        assert page.reads.kinds and set(page.reads.needs) <= page.reads.kinds


def test_the_tui_shows_the_registry() -> None:
    from kubectl_gpu.tui.commands import ALIASES
    from kubectl_gpu.tui.views import VIEWS

    assert [(v.view_id, v.key, v.title) for v in VIEWS] == [
        (p.name, p.tui.key, p.tui.title) for p in tui_pages() if p.tui
    ]
    assert aliases() == ALIASES
    assert all(p.name in p.aliases for p in tui_pages())  # `:NAME` opens every view by its id


def test_no_view_names_itself() -> None:
    """A page's view takes its id, key, title and footer from its spec (`class NodesView(TableView,
    page="nodes")`), never from class attributes of its own."""
    for path in (ROOT / "kubectl_gpu" / "tui" / "views").glob("*.py"):
        assert not re.search(r"^    (view_id|key|title|footer) = ", path.read_text(), re.M), path.name


def _register_source(command: str) -> str:
    """The source of the CLI module that registers `command` (`app.command("COMMAND")`)."""
    for path in (ROOT / "kubectl_gpu" / "cli").rglob("*.py"):
        text = path.read_text()
        if f'app.command("{command}")' in text:
            return text
    raise AssertionError(f"no module registers {command}")


def test_every_page_command_is_a_command_and_its_fleet_face_is_the_pages() -> None:
    for page in COMMANDS:
        source = _register_source(str(page.command))
        assert f'fleet=fleet_face("{page.command}")' in source or not page.fleet, page.command
        assert "fleet=dispatch" not in source, page.command  # the page says, not the module
    from kubectl_gpu.cli.fleet_entry import dispatch, fleet_face
    from kubectl_gpu.cli.help_text import SHORT

    assert all(fleet_face(str(p.command)) is (dispatch if p.fleet else None) for p in COMMANDS)
    assert {p.command: p.summary for p in COMMANDS}.items() <= SHORT.items()


def test_the_fleet_page_names_every_command_with_a_fleet_face() -> None:
    first = (ROOT / "docs" / "fleet.md").read_text().split("\n\n")[1]
    named = set(re.findall(r"`([a-z]+)`", first))
    assert named == {p.command for p in COMMANDS if p.fleet} | {"snapshot"}


def test_completion_offers_every_page_command_and_its_arguments() -> None:
    from kubectl_gpu.cli.completion_spec import build_spec

    commands = build_spec()["commands"]
    assert {p.command for p in COMMANDS} <= set(commands)
    for page in COMMANDS:
        kinds = {a["name"]: a["kind"] for a in commands[page.command]["arguments"]}
        assert {name: kinds.get(name) for name in page.arguments} == page.arguments, page.command
    assert {a["kind"] for a in commands["nodes"]["arguments"]} == {"node"}


def _first_line(doc: str) -> str:
    return (ROOT / "docs" / doc).read_text().splitlines()[0]


@pytest.mark.parametrize("page", COMMANDS, ids=lambda p: p.name)
def test_the_docs_list_every_page(page: Page) -> None:
    assert page.doc is not None and (ROOT / "docs" / page.doc).is_file()
    assert f"`kubectl gpu {page.command}`" in _first_line(page.doc)
    assert f"| `kubectl gpu {page.command}" in (ROOT / "README.md").read_text()
    assert f"]({page.doc})" in (ROOT / "docs" / "README.md").read_text()


def test_the_docs_list_no_page_the_registry_lacks() -> None:
    """A docs/commands/*.md about a read-only command has a page (the others: snapshot, debug, completion,
    tui, which are no page)."""
    documented = {
        command
        for path in (ROOT / "docs" / "commands").glob("*.md")
        for command in re.findall(r"`kubectl gpu ([a-z]+)", path.read_text().splitlines()[0])
    }
    not_pages = {"snapshot", "smi", "shell", "cleanup", "completion", "tui"}
    assert documented - not_pages <= {p.command for p in COMMANDS}


@pytest.mark.parametrize("page", [p for p in COMMANDS if p.columns], ids=lambda p: p.name)
def test_the_columns_are_the_views(page: Page, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the demo, the command's view (-o wide) has the tables and column keys its page declares."""
    import kubectl_gpu.cli.run as run
    from kubectl_gpu.cli.app import main
    from kubectl_gpu.render.model import Table

    seen: dict[str, tuple[str, ...]] = {}

    def write(opts: Any, found: Any) -> int:
        view = found.view(True)
        seen.update({p.name: tuple(c.key for c in p.columns) for p in view.parts if isinstance(p, Table)})
        return 0

    monkeypatch.setattr(run, "write", write)
    with contextlib.redirect_stderr(io.StringIO()), contextlib.suppress(SystemExit):
        main([str(page.command), "--snapshot", DEMO])
    assert seen == page.columns


def test_the_registry_imports_no_analysis_renderer_or_front_end() -> None:
    code = "import sys, kubectl_gpu.pages as p; p.pages(); print(','.join(sorted(sys.modules)))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    heavy = ("kubectl_gpu.core", "kubectl_gpu.render", "kubectl_gpu.cli", "kubectl_gpu.tui", "rich", "typer")
    assert not [m for m in loaded.strip().split(",") if m.startswith(heavy)]


def test_by_command() -> None:
    assert by_command("diagnose").name == "findings"
    with pytest.raises(KeyError):
        by_command("snapshot")


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_a_command_imports_its_own_page_alone(page: Page) -> None:
    """`by_name` and `by_command` import the one page module asked for (each page's module bears its name;
    the two commands named otherwise are `_COMMAND_PAGES`), not the other pages."""
    code = (
        "import sys, kubectl_gpu.pages as p; "
        f"assert p.by_name({page.name!r}).name == {page.name!r}; "
        + (f"assert p.by_command({page.command!r}).name == {page.name!r}; " if page.command else "")
        + "print(','.join(m for m in sys.modules if m.startswith('kubectl_gpu.pages.')))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert set(loaded.strip().split(",")) == {"kubectl_gpu.pages.spec", f"kubectl_gpu.pages.{page.name}"}
