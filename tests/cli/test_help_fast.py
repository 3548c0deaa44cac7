"""`--help` and `CMD --help` answered from the pre-rendered kubectl_gpu/data/help.json (cli.help_fast).

The file must be what the app renders today (regenerated from it), the entry point must print exactly its
text for exactly `--help`, `-h`, `CMD --help`, `CMD -h`, under the program name cli.prog detects, and must
leave every other argv to typer. The help is plain text at 80 columns (cli.help_style), so it is the same
piped, on a terminal of any width, with or without colour; the comparisons with typer run typer itself
(cli.app.main) in a fresh interpreter, piped and on a real pseudo-terminal."""

from __future__ import annotations

import fcntl
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
from kubectl_gpu.cli.help_fast import answer, help_command
from kubectl_gpu.cli.help_render import HELP_PATH, REGENERATE, build_help, commands, render_help
from kubectl_gpu.cli.prog import PLUGIN, STANDALONE

ROOT = Path(__file__).resolve().parents[2]
#: What could change the help or the program name; none may come in from the machine running the tests.
HELP_ENV = (
    "NO_COLOR", "FORCE_COLOR", "PY_COLORS", "GITHUB_ACTIONS", "TTY_COMPATIBLE", "COLUMNS", "LINES",
    "TERMINAL_WIDTH", "TYPER_USE_RICH", "_TYPER_FORCE_DISABLE_TERMINAL", "TERM", "COLORTERM", "KUBECTL_PATH", "_",
)  # fmt: skip
TYPER = "import sys; from kubectl_gpu.cli.app import main; main(sys.argv[1:])"  # typer's help, as before


def _doc() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(HELP_PATH.read_text(encoding="utf-8"))
    return doc


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in HELP_ENV}
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
        f"kubectl_gpu/data/help.json is stale (a command, an option or a help text changed): run {REGENERATE}"
    )


def test_the_file_covers_the_root_and_every_command() -> None:
    doc = _doc()
    assert (doc["version"], doc["width"]) == (help_fast.VERSION, help_fast.WIDTH) == (2, 80)
    assert list(doc["help"]) == sorted(commands())
    for command, texts in doc["help"].items():
        assert set(texts) == {STANDALONE, PLUGIN}, command
        for program, text in texts.items():
            assert "\x1b[" not in text, command  # plain: no colour, as kubectl's help
            assert max(len(line.expandtabs()) for line in text.splitlines()) <= 80, (command, program)
            assert f"  {program} {command}".rstrip() in text, (command, program)  # the usage line


@pytest.mark.parametrize(
    ("argv", "command"),
    [(["--help"], ""), (["-h"], ""), (["nodes", "--help"], "nodes"), (["smi", "-h"], "smi")],
)
def test_the_entry_point_prints_the_files_text_and_exits_zero(argv: list[str], command: str) -> None:
    done = _piped(["-m", "kubectl_gpu", *argv])
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == _doc()["help"][command][STANDALONE]
    through_kubectl = _piped(["-m", "kubectl_gpu", *argv], KUBECTL_PATH="/usr/local/bin/kubectl")
    assert through_kubectl.stdout == _doc()["help"][command][PLUGIN]


def test_piped_help_is_byte_for_byte_what_typer_printed() -> None:
    for argv in (["--help"], ["nodes", "--help"], ["smi", "--help"]):
        for extra in ({}, {"FORCE_COLOR": "1"}, {"_": "/usr/bin/kubectl"}, {"TYPER_USE_RICH": "0"}):
            fast = _piped(["-m", "kubectl_gpu", *argv], **extra)
            live = _piped(["-c", TYPER, *argv], **extra)
            assert fast.stdout == live.stdout and fast.returncode == live.returncode == 0, (argv, extra)


def test_on_a_terminal_of_any_width_the_same_text() -> None:
    plain = _doc()["help"]["nodes"][STANDALONE]
    for columns in (60, 80, 132):
        assert _on_terminal(["-m", "kubectl_gpu", "nodes", "--help"], columns) == (0, plain), columns
        assert _on_terminal(["-c", TYPER, "nodes", "--help"], columns) == (0, plain), columns


@pytest.fixture
def standalone(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process: not run by kubectl, whatever shell runs the tests."""
    for name in ("KUBECTL_PATH", "_"):
        monkeypatch.delenv(name, raising=False)


def _answered(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[bool, str]:
    answered = answer(args)
    return answered, capsys.readouterr().out


@pytest.mark.usefixtures("standalone")
def test_answer_prints_the_text_the_file_holds(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = {
        "version": 2,
        "width": 80,
        "help": {"": {STANDALONE: "ROOT\n", PLUGIN: "R\n"}, "nodes": {STANDALONE: "N\n"}},
    }
    monkeypatch.setattr(help_fast, "load_help", lambda: doc)
    assert _answered(["-h"], capsys) == (True, "ROOT\n")
    assert _answered(["nodes", "--help"], capsys) == (True, "N\n")
    monkeypatch.setenv("KUBECTL_PATH", "/usr/bin/kubectl")  # run by kubectl: the other text
    assert _answered(["-h"], capsys) == (True, "R\n")
    assert _answered(["nodes", "--help"], capsys) == (False, "")  # none for that name: typer answers
    monkeypatch.delenv("KUBECTL_PATH")
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
@pytest.mark.usefixtures("standalone")
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


def test_a_file_of_another_version_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = {"version": 1, "width": 80, "help": {"": {"plain": "rich's\n", "styled": "x"}}}
    (tmp_path / "kubectl_gpu" / "data").mkdir(parents=True)
    (tmp_path / "kubectl_gpu" / "cli").mkdir()
    (tmp_path / "kubectl_gpu" / "data" / "help.json").write_text(json.dumps(old))
    monkeypatch.setattr(help_fast, "__file__", str(tmp_path / "kubectl_gpu" / "cli" / "help_fast.py"))
    assert help_fast.load_help() is None


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
