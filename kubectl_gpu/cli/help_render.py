"""The help of the root and of every command, rendered by typer/rich ahead of time into the package data.

`kubectl-gpu --help` and `kubectl-gpu CMD --help` are answered by `help_fast` from
`kubectl_gpu/data/help.json` without importing typer (a few hundred milliseconds less). This module writes
that file from the typer app: for the root ("") and each visible command, the exact text typer prints at
80 columns, "styled" (rich on a colour terminal) and "plain" (off a terminal). tests/cli/test_help_fast.py
fails when the file is stale, i.e. after any change to a command, an option or its help:

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

from kubectl_gpu.cli.help_fast import WIDTH

__all__ = ["HELP_PATH", "REGENERATE", "build_help", "main", "render_help", "rendered"]

HELP_PATH = Path(__file__).resolve().parent.parent / "data" / "help.json"
REGENERATE = "python -m kubectl_gpu.cli.help_render"
#: The variables rich reads for width and colour: none of the renderer's own environment may reach the file.
_RICH_ENV = (
    "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS", "LINES", "JUPYTER_COLUMNS", "JUPYTER_LINES",
    "COLORTERM", "TERM",
)  # fmt: skip
#: The colour systems rich may pick on a terminal: the styled text must be the same under each (typer's
#: styles are the 16 standard colours), since `help_fast` cannot tell which one the terminal has.
_COLOR_SYSTEMS = ("standard", "256", "truecolor")


@contextlib.contextmanager
def _console(*, styled: bool, color_system: str) -> Iterator[None]:
    """typer's help console at WIDTH columns, on a terminal of `color_system` or off any terminal."""
    import typer.rich_utils as rich_utils

    saved = (rich_utils.MAX_WIDTH, rich_utils.FORCE_TERMINAL, rich_utils.COLOR_SYSTEM)
    environ = {name: os.environ.pop(name) for name in _RICH_ENV if name in os.environ}
    os.environ["TERM"] = "xterm-256color"
    rich_utils.MAX_WIDTH = WIDTH
    rich_utils.FORCE_TERMINAL = styled
    rich_utils.COLOR_SYSTEM = color_system if styled else None  # type: ignore[assignment]
    try:
        yield
    finally:
        rich_utils.MAX_WIDTH, rich_utils.FORCE_TERMINAL, rich_utils.COLOR_SYSTEM = saved
        os.environ.pop("TERM", None)
        os.environ.update(environ)


def rendered(args: list[str], *, styled: bool, color_system: str = "standard") -> str:
    """What `kubectl-gpu ARGS` prints through typer (cli.app.main) at WIDTH columns."""
    from kubectl_gpu.cli.app import main

    out = io.StringIO()
    with _console(styled=styled, color_system=color_system), contextlib.redirect_stdout(out):
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


def _styled(args: list[str]) -> str:
    texts = {system: rendered(args, styled=True, color_system=system) for system in _COLOR_SYSTEMS}
    if len(set(texts.values())) != 1:
        raise RuntimeError(
            f"the help of {args} differs between colour systems {_COLOR_SYSTEMS}: a style beyond the 16 "
            "standard colours, which help_fast cannot choose for; change the style or teach help_fast"
        )
    return texts["standard"]


def build_help() -> dict[str, Any]:
    import typer.core

    if not typer.core.HAS_RICH:
        raise RuntimeError("typer does not use rich here (TYPER_USE_RICH): unset it to render the help")
    help_texts: dict[str, dict[str, str]] = {}
    for command in commands():
        args = [command, "--help"] if command else ["--help"]
        help_texts[command] = {"plain": rendered(args, styled=False), "styled": _styled(args)}
    return {"version": 1, "width": WIDTH, "help": help_texts}


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
