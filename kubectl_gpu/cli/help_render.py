"""The help of the root and of every command, rendered from the typer app ahead of time into the package data.

`kubectl-gpu --help` and `kubectl-gpu CMD --help` are answered by `help_fast` from
`kubectl_gpu/data/help.json` without importing typer (a few hundred milliseconds less). This module writes
that file from the typer app: for the root ("") and each visible command, the exact text the app prints
(cli.help_style's kubectl layout), once per program name (cli.prog). tests/cli/test_help_fast.py fails when
the file is stale, i.e. after any change to a command, an option or its help:

    python -m kubectl_gpu.cli.help_render           # rewrite kubectl_gpu/data/help.json
    python -m kubectl_gpu.cli.help_render --check   # exit 1 when it differs from a fresh render
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kubectl_gpu.cli.help_fast import VERSION, WIDTH
from kubectl_gpu.cli.prog import PLUGIN, STANDALONE

__all__ = ["HELP_PATH", "REGENERATE", "build_help", "main", "render_help", "rendered"]

HELP_PATH = Path(__file__).resolve().parent.parent / "data" / "help.json"
REGENERATE = "python -m kubectl_gpu.cli.help_render"
#: What cli.prog reads: the renderer's own environment must not choose the program name.
_PROG_ENV = ("KUBECTL_PATH", "_")


@contextlib.contextmanager
def _program(name: str) -> Iterator[None]:
    """The environment cli.prog reads as `name`: kubectl's KUBECTL_PATH for PLUGIN, neither for STANDALONE."""
    saved = {key: os.environ.pop(key) for key in _PROG_ENV if key in os.environ}
    if name == PLUGIN:
        os.environ["KUBECTL_PATH"] = "/usr/local/bin/kubectl"
    try:
        yield
    finally:
        os.environ.pop("KUBECTL_PATH", None)
        os.environ.update(saved)


def rendered(args: list[str], program: str = STANDALONE) -> str:
    """What `kubectl-gpu ARGS` prints through typer (cli.app.main), run as `program`."""
    from kubectl_gpu.cli.app import main

    out = io.StringIO()
    with _program(program), contextlib.redirect_stdout(out):
        try:
            main(args)
        except SystemExit as exc:
            if exc.code not in (0, None):
                raise RuntimeError(f"kubectl-gpu {' '.join(args)} exited {exc.code}") from None
    return out.getvalue()


def commands() -> list[str]:
    """ "" (the root) and every command `--help` lists, in the app's order."""
    import typer

    from kubectl_gpu.cli.app import app

    root = typer.main.get_command(app)
    names = [name for name, cmd in getattr(root, "commands", {}).items() if not getattr(cmd, "hidden", False)]
    return ["", *names]


def build_help() -> dict[str, Any]:
    help_texts: dict[str, dict[str, str]] = {}
    for command in commands():
        args = [command, "--help"] if command else ["--help"]
        help_texts[command] = {program: rendered(args, program) for program in (STANDALONE, PLUGIN)}
    return {"version": VERSION, "width": WIDTH, "help": help_texts}


def render_help(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=REGENERATE, description="Render kubectl_gpu/data/help.json.")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when the file differs from a fresh render"
    )
    args = parser.parse_args(argv)
    fresh = render_help(build_help())
    if args.check:
        current = HELP_PATH.read_text(encoding="utf-8") if HELP_PATH.exists() else ""
        if current != fresh:
            sys.stderr.write(f"{HELP_PATH} is stale: run {REGENERATE}\n")
            return 1
        return 0
    HELP_PATH.write_text(fresh, encoding="utf-8")
    sys.stdout.write(f"wrote {HELP_PATH}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
