"""Start-up (issue 38): a command loads what it needs, not what other commands or typer's options need.

`cli.app` builds only the command a run names (`COMMAND_MODULES`, `_LazyCommands`), and option values are
read without pydantic (cli.coercion). No timing here: bench/startup.py measures; these hold the imports."""

from __future__ import annotations

import contextlib
import importlib
import io
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from kubectl_gpu.cli import app as app_module
from tests.test_import_hygiene import _loaded_by_entry_point

DEMO = str(Path(__file__).resolve().parents[2] / "examples" / "automode-gpu-demo.json")
NOW = "2026-11-28T09:00:00Z"

#: Not loaded by a snapshot run of nodes, lint or diagnose with -o json: pydantic and what its plugin
#: discovery reads, the other commands' modules (debug pods and hashlib with them, completion, the TUI).
NOT_LOADED = (
    "pydantic",
    "pydantic_core",
    "typer._adapters",
    "importlib.metadata",
    "kubectl_gpu.cli.debug",
    "kubectl_gpu.cli.completion_cmd",
    "kubectl_gpu.cli.completion",
    "kubectl_gpu.cli.tui",
    "kubectl_gpu.cli.usage",
    "kubectl_gpu.cli.snapshot",
    "kubectl_gpu.cli.help_text",
    "kubectl_gpu.core.debugpod.names",
    "hashlib",
)


def _among(modules: set[str], names: tuple[str, ...]) -> set[str]:
    return {m for m in modules if any(m == n or m.startswith(n + ".") for n in names)}


@pytest.mark.parametrize("command", ["nodes", "lint", "diagnose"])
def test_a_snapshot_run_loads_neither_pydantic_nor_other_commands(command: str, tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text('{"apiVersion":"v1","kind":"List","items":[]}')
    for snapshot in (str(empty), DEMO):
        modules = _loaded_by_entry_point([command, "--snapshot", snapshot, "--now", NOW, "-o", "json"])
        assert f"kubectl_gpu.cli.{command}" in modules
        assert not _among(modules, NOT_LOADED), (command, snapshot, sorted(_among(modules, NOT_LOADED)))


def test_a_namespace_is_checked_with_kubectls_words_still() -> None:
    """`-n` is checked by kube.connection, now imported only when -n is given."""
    done = subprocess.run(
        [sys.executable, "-m", "kubectl_gpu", "nodes", "--snapshot", DEMO, "-n", "Bad_NS"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "Bad_NS" in done.stderr and "RFC 1123" in done.stderr


def test_the_table_of_command_modules_is_what_the_modules_register() -> None:
    for module, names in app_module.COMMAND_MODULES:
        holder = typer.Typer()
        importlib.import_module(f"kubectl_gpu.cli.{module}").register(holder)
        built = [
            typer.main.get_command_from_info(i, pretty_exceptions_short=True, rich_markup_mode=None).name
            for i in holder.registered_commands
        ]
        assert tuple(built) == names, module
    full = typer.main.get_command(app_module.app)
    assert list(full.commands) == [n for _, names in app_module.COMMAND_MODULES for n in names]  # type: ignore[attr-defined]


def test_a_run_builds_the_command_it_names_as_the_full_app_does() -> None:
    full = typer.main.get_command(app_module.app).commands  # type: ignore[attr-defined]
    lazy = app_module._command().commands
    assert list(lazy) == list(full) and "nodes" in lazy and "nodez" not in lazy
    assert lazy.get("nodez") is None
    for name in full:
        a, b = lazy[name], full[name]
        assert type(a) is type(b) and a.help == b.help, name
        assert [(p.name, p.opts, p.default) for p in a.params] == [
            (p.name, p.opts, p.default) for p in b.params
        ]


def test_a_run_of_one_command_builds_only_its_module() -> None:
    lazy = app_module._command().commands
    lazy["smi"]
    assert set(lazy._built) == {"smi", "shell", "cleanup"}  # type: ignore[attr-defined]


def test_the_root_help_lists_every_command_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    """Through typer (an option before --help): every command read, in the order of the table."""
    with contextlib.suppress(SystemExit), contextlib.redirect_stderr(io.StringIO()):
        app_module.main(["-n", "ml", "--help"])
    out = capsys.readouterr().out
    listed = [line.split()[0] for line in out.split("Commands:\n")[1].split("\n\n")[0].splitlines()]
    assert listed == [n for _, names in app_module.COMMAND_MODULES for n in names]
