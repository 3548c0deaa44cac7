"""`kubectl-gpu --help` and `kubectl-gpu CMD --help`, answered without typer.

typer renders help with rich (~95 ms of imports) and, for `CMD --help`, first validates the root options
through pydantic (~80 ms): a few hundred milliseconds for a page that never changes between releases. So
the help of the root and of every command is rendered ahead of time (`help_render`, from the typer app) into
`kubectl_gpu/data/help.json`, at 80 columns, styled (what rich prints on a colour terminal) and plain, and
`__main__` prints it from there when argv is exactly `--help`, `-h`, `CMD --help` or `CMD -h`.

It must print what typer would, so it answers only when it can tell what rich would do and that is what
was rendered; anything else goes to typer as before (returns False):

- the width: rich's own rule (COLUMNS, else the first of stdin, stdout, stderr that is a terminal, else 80;
  80 on a dumb terminal). Narrower than 80, or another width set with typer's TERMINAL_WIDTH: typer renders
  it live, so nothing wraps badly; wider: the 80-column text (off a terminal rich uses 80, so piped help
  is unchanged byte for byte);
- the colours: styled when rich would see a terminal (FORCE_COLOR, or typer's GITHUB_ACTIONS/PY_COLORS, or
  a TTY; TTY_COMPATIBLE), plain off a terminal, with NO_COLOR (as every other output of this tool) or TERM=dumb;
- not when typer would not use rich at all (TYPER_USE_RICH=0), stdout is not UTF-8 (rich would draw ASCII
  boxes), on Windows, or when the file is missing or has no such command.

This module imports only the standard library's os, sys and json.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any, TextIO

__all__ = ["HELP_OPTIONS", "WIDTH", "answer", "help_command", "load_help", "variant", "width"]

HELP_OPTIONS = ("--help", "-h")
WIDTH = 80  # the width help.json is rendered at
_FALSE = ("n", "no", "f", "false", "off", "0")  # typer's parse_boolean_env_var


def help_command(args: list[str]) -> str | None:
    """The command whose help `args` asks for ("" for the root), when they are exactly `--help`, `-h`,
    `CMD --help` or `CMD -h`; None otherwise. Whether CMD exists is the file's to say."""
    if len(args) == 1 and args[0] in HELP_OPTIONS:
        return ""
    if len(args) == 2 and args[1] in HELP_OPTIONS and args[0] and not args[0].startswith("-"):
        return args[0]
    return None


def _is_terminal(environ: Mapping[str, str], stdout: TextIO) -> bool:
    """What rich's `Console.is_terminal` answers for typer's help console (typer forces it on or off)."""
    if environ.get("_TYPER_FORCE_DISABLE_TERMINAL"):
        return False
    if environ.get("GITHUB_ACTIONS") or environ.get("FORCE_COLOR") or environ.get("PY_COLORS"):
        return True
    compatible = environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    if "FORCE_COLOR" in environ:  # set but empty: rich reads it as "not a terminal"
        return False
    try:
        return bool(stdout.isatty())
    except (AttributeError, ValueError):
        return False


def _dumb(environ: Mapping[str, str]) -> bool:
    return environ.get("TERM", "").lower() in ("dumb", "unknown")


def width(environ: Mapping[str, str], stdout: TextIO, fds: tuple[int, ...] = (0, 1, 2)) -> int | None:
    """The width typer's rich console would render help at; None when it cannot be told."""
    fixed = environ.get("TERMINAL_WIDTH")
    if fixed:
        return int(fixed) if fixed.isdigit() else None
    columns = environ.get("COLUMNS")
    if columns is not None and columns.isdigit():
        return int(columns)
    if _is_terminal(environ, stdout) and _dumb(environ):
        return 80
    for fd in fds:
        try:
            size = os.get_terminal_size(fd)
        except (AttributeError, ValueError, OSError):  # not a terminal
            continue
        return size.columns or 80  # a pseudo-terminal may report 0
    return 80


def variant(environ: Mapping[str, str], stdout: TextIO, fds: tuple[int, ...] = (0, 1, 2)) -> str | None:
    """ "styled" or "plain": the text of help.json that equals what typer would print here; None when
    neither does (then typer renders it)."""
    if sys.platform == "win32" or environ.get("TYPER_USE_RICH", "").lower() in _FALSE:
        return None
    if not (getattr(stdout, "encoding", None) or "utf-8").lower().startswith("utf"):
        return None
    columns = width(environ, stdout, fds)
    if columns is None or columns < WIDTH or environ.get("TERMINAL_WIDTH", str(WIDTH)) != str(WIDTH):
        return None  # narrower, or a width asked for (typer's TERMINAL_WIDTH): typer renders it
    if not _is_terminal(environ, stdout) or _dumb(environ) or environ.get("NO_COLOR"):
        return "plain"
    return "styled"


def load_help() -> dict[str, Any] | None:
    """The packaged help.json (read by path, as completion.json is), or None when it cannot be read."""
    import json

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "help.json")
    try:
        with open(path, encoding="utf-8") as handle:
            doc: dict[str, Any] = json.load(handle)
    except (OSError, ValueError):
        try:  # packaged some other way (a zip): ask the import system
            from importlib import resources

            text = resources.files("kubectl_gpu.data").joinpath("help.json").read_text(encoding="utf-8")
            doc = json.loads(text)
        except (OSError, ValueError, ModuleNotFoundError):
            return None
    return doc if isinstance(doc, dict) and doc.get("width") == WIDTH else None


def answer(args: list[str]) -> bool:
    """Print the pre-rendered help `args` ask for and return True; False (nothing printed) when typer
    must answer: another argv, an unknown command, a width or a terminal the file was not rendered for."""
    command = help_command(args)
    if command is None:
        return False
    chosen = variant(os.environ, sys.stdout)
    if chosen is None:
        return False
    doc = load_help()
    entry = (doc or {}).get("help", {}).get(command)
    text = entry.get(chosen) if isinstance(entry, dict) else None
    if not isinstance(text, str):
        return False
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # `| head -1`: the reader is gone; not an error, and no "Exception ignored"
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return True
