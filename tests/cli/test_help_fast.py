"""`--help` and `CMD --help` answered from the pre-rendered kubectl_gpu/data/help.json (cli.help_fast).

The file must be what typer renders today (regenerated from the app), the entry point must print exactly
its text for exactly `--help`, `-h`, `CMD --help`, `CMD -h`, and must leave every other argv, and every
terminal it was not rendered for, to typer. The comparisons with typer run typer itself (cli.app.main) in
a fresh interpreter, piped and on a real pseudo-terminal."""

from __future__ import annotations

import fcntl
import io
import json
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.cli import help_fast
from kubectl_gpu.cli.help_fast import answer, help_command, variant, width
from kubectl_gpu.cli.help_render import HELP_PATH, REGENERATE, build_help, commands, render_help

ROOT = Path(__file__).resolve().parents[2]
#: What rich and typer read for width and colour; none may come in from the machine running the tests
#: (GITHUB_ACTIONS in CI forces typer's help console onto "a terminal").
RICH_ENV = (
    "NO_COLOR", "FORCE_COLOR", "PY_COLORS", "GITHUB_ACTIONS", "TTY_COMPATIBLE", "COLUMNS", "LINES",
    "TERMINAL_WIDTH", "TYPER_USE_RICH", "_TYPER_FORCE_DISABLE_TERMINAL", "TERM", "COLORTERM",
)  # fmt: skip
TYPER = "import sys; from kubectl_gpu.cli.app import main; main(sys.argv[1:])"  # typer's help, as before


def _doc() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(HELP_PATH.read_text(encoding="utf-8"))
    return doc


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in RICH_ENV}
    return {**env, **extra}


def _piped(argv: list[str], **extra: str) -> subprocess.CompletedProcess[str]:
    """ARGS through `python -m kubectl_gpu`, no terminal anywhere (stdin too: rich measures it first)."""
    return subprocess.run(
        [sys.executable, *argv], stdin=subprocess.DEVNULL, capture_output=True, text=True, env=_env(**extra)
    )


def _on_terminal(argv: list[str], columns: int, **extra: str) -> tuple[int, str]:
    """ARGS on a pseudo-terminal `columns` wide (stdin, stdout and stderr); what it printed, \\r\\n -> \\n."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = _env(TERM="xterm-256color", **extra)
    proc = subprocess.Popen([sys.executable, *argv], stdin=slave, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    return proc.wait(timeout=60), b"".join(chunks).decode().replace("\r\n", "\n")


def test_the_packaged_help_is_what_typer_renders() -> None:
    assert HELP_PATH.read_text(encoding="utf-8") == render_help(build_help()), (
        f"kubectl_gpu/data/help.json is stale (a command, an option or a help text changed, or typer/rich "
        f"render differently): run {REGENERATE}"
    )


def test_the_file_covers_the_root_and_every_command() -> None:
    doc = _doc()
    assert doc["width"] == help_fast.WIDTH == 80
    assert list(doc["help"]) == sorted(commands())
    for command, texts in doc["help"].items():
        assert set(texts) == {"plain", "styled"}, command
        assert "\x1b[" not in texts["plain"] and "\x1b[" in texts["styled"], command
        assert max(len(line) for line in texts["plain"].splitlines()) == 80, command


@pytest.mark.parametrize(
    ("argv", "command"),
    [(["--help"], ""), (["-h"], ""), (["nodes", "--help"], "nodes"), (["smi", "-h"], "smi")],
)
def test_the_entry_point_prints_the_files_text_and_exits_zero(argv: list[str], command: str) -> None:
    done = _piped(["-m", "kubectl_gpu", *argv])
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == _doc()["help"][command]["plain"]


def test_piped_help_is_byte_for_byte_what_typer_printed() -> None:
    for argv in (["--help"], ["nodes", "--help"], ["smi", "--help"]):
        fast = _piped(["-m", "kubectl_gpu", *argv])
        live = _piped(["-c", TYPER, *argv])
        assert fast.stdout == live.stdout and fast.returncode == live.returncode == 0, argv
        forced = _piped(["-m", "kubectl_gpu", *argv], FORCE_COLOR="1")  # rich: "a terminal", so styled
        assert forced.stdout == _piped(["-c", TYPER, *argv], FORCE_COLOR="1").stdout, argv
        assert forced.stdout == _doc()["help"][argv[0] if len(argv) == 2 else ""]["styled"]


def test_on_a_terminal_of_80_columns_or_more_the_styled_text_narrower_typer_live() -> None:
    styled = _doc()["help"]["nodes"]["styled"]
    assert _on_terminal(["-m", "kubectl_gpu", "nodes", "--help"], 80) == (0, styled)
    assert _on_terminal(["-c", TYPER, "nodes", "--help"], 80) == (0, styled)  # what typer prints there
    assert _on_terminal(["-m", "kubectl_gpu", "nodes", "--help"], 132) == (0, styled)
    assert _on_terminal(["-m", "kubectl_gpu", "nodes", "--help"], 80, NO_COLOR="1") == (
        0,
        _doc()["help"]["nodes"]["plain"],
    )
    narrow = _on_terminal(["-m", "kubectl_gpu", "nodes", "--help"], 60)
    assert narrow == _on_terminal(["-c", TYPER, "nodes", "--help"], 60)  # typer rendered it, at 60
    assert narrow[0] == 0 and "Usage: " in narrow[1] and narrow[1] != styled


@pytest.fixture
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process: none of the machine's rich variables, and 80 columns whatever terminal runs the tests."""
    for name in RICH_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "80")


def _answered(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[bool, str]:
    answered = answer(args)
    return answered, capsys.readouterr().out


@pytest.mark.usefixtures("wide")
def test_answer_prints_the_text_the_file_holds(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = {
        "version": 1,
        "width": 80,
        "help": {"": {"plain": "ROOT\n", "styled": "R"}, "nodes": {"plain": "N\n"}},
    }
    monkeypatch.setattr(help_fast, "load_help", lambda: doc)
    assert _answered(["-h"], capsys) == (True, "ROOT\n")
    assert _answered(["nodes", "--help"], capsys) == (True, "N\n")
    assert _answered(["pending", "--help"], capsys) == (False, "")  # not in the file: typer answers
    monkeypatch.setattr(help_fast, "load_help", lambda: None)  # no file (or an unreadable one)
    assert _answered(["--help"], capsys) == (False, "")


@pytest.mark.parametrize(
    "args",
    [
        [], ["nodes"], ["--version"], ["help"], ["help", "--help"], ["nosuch", "--help"], ["--help", "nodes"],
        ["--help", "--help"], ["-h", "-h"], ["--debug", "--help"], ["--context", "x", "--help"],
        ["nodes", "--all", "--help"], ["nodes", "--help", "x"], ["-o", "--help"], ["", "--help"], ["--HELP"],
    ],
)  # fmt: skip
@pytest.mark.usefixtures("wide")
def test_every_other_argv_goes_to_typer(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert _answered(args, capsys) == (False, "")


def test_help_command_reads_exactly_four_shapes() -> None:
    assert [help_command(a) for a in (["--help"], ["-h"], ["cost", "--help"], ["cost", "-h"])] == [
        "",
        "",
        "cost",
        "cost",
    ]
    assert help_command(["-n", "-h"]) is None and help_command(["cost", "--help", "-h"]) is None


def test_an_unknown_command_with_help_is_typers_usage_error() -> None:
    done = _piped(["-m", "kubectl_gpu", "nosuch", "--help"])
    assert done.returncode == 2 and done.stdout == "" and "nosuch" in done.stderr


class _Stream(io.StringIO):
    def __init__(self, tty: bool, encoding: str = "utf-8") -> None:
        super().__init__()
        self._tty, self._encoding = tty, encoding

    def isatty(self) -> bool:
        return self._tty

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding


@pytest.mark.parametrize(
    ("env", "tty", "chosen"),
    [
        ({}, False, "plain"),
        ({}, True, "styled"),
        ({"NO_COLOR": "1"}, True, "plain"),
        ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, False, "plain"),
        ({"TERM": "dumb"}, True, "plain"),
        ({"FORCE_COLOR": "1"}, False, "styled"),
        ({"PY_COLORS": "1"}, False, "styled"),
        ({"GITHUB_ACTIONS": "true"}, False, "styled"),
        ({"FORCE_COLOR": ""}, True, "plain"),  # rich: set but empty means "not a terminal"
        ({"TTY_COMPATIBLE": "0"}, True, "plain"),
        ({"TTY_COMPATIBLE": "1"}, False, "styled"),
        ({"_TYPER_FORCE_DISABLE_TERMINAL": "1", "FORCE_COLOR": "1"}, True, "plain"),
        ({"COLUMNS": "80"}, True, "styled"),
        ({"COLUMNS": "200"}, False, "plain"),
        ({"COLUMNS": "79"}, False, None),  # narrower: typer renders it
        ({"TERMINAL_WIDTH": "80"}, False, "plain"),
        ({"TERMINAL_WIDTH": "100"}, False, None),  # a width asked for
        ({"TYPER_USE_RICH": "0"}, False, None),  # typer would print click's plain help
    ],
)
def test_the_variant_is_the_one_rich_would_print(env: dict[str, str], tty: bool, chosen: str | None) -> None:
    assert variant({"TERM": "xterm-256color", **env}, _Stream(tty), fds=()) == chosen  # fds: no terminal


def test_no_pre_rendered_text_for_a_stdout_that_is_not_utf8() -> None:
    assert variant({}, _Stream(False, encoding="ascii"), fds=()) is None  # rich would draw ASCII boxes


def test_the_width_is_the_first_terminal_among_stdin_stdout_stderr() -> None:
    master, slave = pty.openpty()
    try:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 60, 0, 0))
        assert width({}, _Stream(True), fds=(slave,)) == 60
        assert width({"COLUMNS": "100"}, _Stream(True), fds=(slave,)) == 100
        assert width({"TERM": "dumb"}, _Stream(True), fds=(slave,)) == 80  # rich: a dumb terminal is 80
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 0, 0, 0, 0))
        assert width({}, _Stream(True), fds=(slave,)) == 80  # a pseudo-terminal reporting 0
    finally:
        os.close(slave)
        os.close(master)
    with open(os.devnull) as devnull:
        assert width({}, _Stream(False), fds=(devnull.fileno(),)) == 80  # no terminal at all


def test_help_into_a_closed_pipe_exits_zero_quietly() -> None:
    """`kubectl gpu --help | head -0`: the reader is gone before a byte is written; not an error."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "kubectl_gpu", "smi", "--help"],
            stdin=subprocess.DEVNULL, stdout=write_end, stderr=subprocess.PIPE, text=True, env=_env(),
        )  # fmt: skip
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (0, "")
