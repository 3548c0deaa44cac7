"""`kubectl-gpu --help` and `kubectl-gpu CMD --help`, answered without typer.

Importing typer and the app costs a few hundred milliseconds for a page that never changes between releases.
So the help of the root and of every command is rendered ahead of time (`help_render`, from the typer app,
whose help is cli.help_style's kubectl layout: plain text at 80 columns, the same on a terminal or not) into
`kubectl_gpu/data/help.json`, once per program name (cli.prog: `kubectl gpu` when kubectl ran us, else
`kubectl-gpu`), and `__main__` prints it from there when argv is exactly `--help`, `-h`, `CMD --help` or
`CMD -h`. Anything else, an unknown command, or a missing file goes to typer (returns False).

This module imports only the standard library's os, sys and json (and cli.prog, which imports os).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from kubectl_gpu.cli.prog import program_name

__all__ = ["HELP_OPTIONS", "VERSION", "WIDTH", "answer", "help_command", "load_help"]

HELP_OPTIONS = ("--help", "-h")
WIDTH = 80  # the width cli.help_style lays the help out at
VERSION = 2  # of help.json: 1 held rich's "plain" and "styled" renderings


def help_command(args: list[str]) -> str | None:
    """The command whose help `args` asks for ("" for the root), when they are exactly `--help`, `-h`,
    `CMD --help` or `CMD -h`; None otherwise. Whether CMD exists is the file's to say."""
    if len(args) == 1 and args[0] in HELP_OPTIONS:
        return ""
    if len(args) == 2 and args[1] in HELP_OPTIONS and args[0] and not args[0].startswith("-"):
        return args[0]
    return None


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
    usable = isinstance(doc, dict) and doc.get("version") == VERSION and doc.get("width") == WIDTH
    return doc if usable else None


def answer(args: list[str]) -> bool:
    """Print the pre-rendered help `args` ask for and return True; False (nothing printed) when typer
    must answer: another argv, an unknown command, no usable file."""
    command = help_command(args)
    if command is None:
        return False
    entry = ((load_help() or {}).get("help") or {}).get(command)
    text = entry.get(program_name()) if isinstance(entry, dict) else None
    if not isinstance(text, str):
        return False
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # `| head -1`: the reader is gone; not an error, and no "Exception ignored"
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return True
