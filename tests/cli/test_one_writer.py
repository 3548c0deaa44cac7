"""Every line the CLI prints that is not its data (a warning, an error, a note, progress) goes through one
writer, `cli.say`, which scrubs credentials and makes the text safe (issue 39). This test keeps
raw writes out of kubectl_gpu/cli: `print(...)`, `sys.stdout.write`, `sys.stderr.write`, `typer.echo`,
`console.print`. The data writers stay (JSON, YAML, CSV, the names, the bundle, the completion protocol,
our own help): each is allowed here, by file and call, with its reason."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest

from kubectl_gpu.cli.say import say

CLI = Path(__file__).resolve().parents[2] / "kubectl_gpu" / "cli"
RAW = ("print", "typer.echo", "typer.secho", "click.echo", "sys.stdout.write", "sys.stderr.write")
DATA = "the command's data (a JSON/YAML/CSV document), not a message"

#: (file, call) -> why it may write raw; the count of such calls in that file must match
ALLOWED: dict[tuple[str, str], tuple[int, str]] = {
    ("say.py", "console.print"): (1, "the one writer itself: a coloured line, on a terminal"),
    ("app.py", "typer.echo"): (2, "--version and --help: our own text, the answer the user asked for"),
    ("completion.py", "sys.stdout.write"): (1, "the shell-completion protocol: candidates, then :directive"),
    ("completion_cmd.py", "sys.stdout.write"): (1, "the completion script the shell sources"),
    ("completion_spec.py", "sys.stdout.write"): (1, "a developer tool regenerating data/completion.json"),
    ("help_render.py", "sys.stdout.write"): (1, "a developer tool regenerating data/help.json"),
    ("help_render.py", "sys.stderr.write"): (1, "the same tool's own 'stale' line, no cluster text"),
    ("help_fast.py", "sys.stdout.write"): (1, "our own pre-rendered help text"),
    ("printing.py", "sys.stdout.write"): (3, DATA + ": -o json|yaml, jsonpath, name"),
    ("watch.py", "sys.stdout.write"): (3, DATA + ": -w streams documents and the key list"),
    ("run.py", "sys.stdout.write"): (2, DATA + ": -o json|yaml, -o csv"),
    ("fleet.py", "sys.stdout.write"): (2, DATA + ": the fleet's document, its CSV"),
    ("snapshot.py", "sys.stdout.buffer.write"): (1, DATA + ": the bundle, for --out -"),
    ("debug/cleanup.py", "sys.stdout.write"): (1, DATA + ": cleanup -o json|yaml"),
    ("debug/dry_run.py", "sys.stdout.write"): (1, DATA + ": the pod manifest --dry-run would create"),
    ("debug/smi.py", "sys.stdout.write"): (
        3,
        DATA + ": -o json|yaml, and --raw, which is the collector's output verbatim by contract (as kubectl "
        "exec prints a command's), with its ==> node <== header",
    ),
}


def _raw_writes(path: Path) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        name = ast.unparse(node.func)
        any_console = isinstance(node.func, ast.Attribute) and node.func.attr == "print"  # a rich console
        if name in RAW or name == "sys.stdout.buffer.write" or any_console:
            found.append((name, node.lineno))
    return found


def test_the_cli_writes_messages_only_through_the_one_writer() -> None:
    counts: dict[tuple[str, str], list[int]] = {}
    for path in sorted(CLI.rglob("*.py")):
        for name, line in _raw_writes(path):
            counts.setdefault((path.relative_to(CLI).as_posix(), name), []).append(line)
    unexpected = {key: lines for key, lines in counts.items() if key not in ALLOWED}
    assert unexpected == {}, "write messages with cli.say (or allow a data writer here, with why)"
    wrong = {key: lines for key, lines in counts.items() if len(lines) != ALLOWED[key][0]}
    assert wrong == {}, "a data writer was added or removed: update ALLOWED (and its reason)"
    stale = set(ALLOWED) - set(counts)
    assert stale == set(), "allowed writes that are gone: remove them from ALLOWED"


def test_the_lint_sees_a_raw_print(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('import sys\nprint("x")\nsys.stderr.write("y")\nconsole.print("z")\nerr.print("w")\n')
    assert [name for name, _ in _raw_writes(sample)] == [
        "print",
        "sys.stderr.write",
        "console.print",
        "err.print",
    ]


@pytest.mark.parametrize("stdout", [False, True])
def test_say_scrubs_and_makes_safe(monkeypatch: pytest.MonkeyPatch, stdout: bool) -> None:
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr("sys.stderr", err)
    say("note: \x1b]52;c;eA==\x07 \u202eevil\nFORGED", stdout=stdout, style="yellow")
    written = (out if stdout else err).getvalue()
    assert written == "note: \\x1b]52;c;eA==\\x07 \\u202eevil\\nFORGED\n"
    assert (err if stdout else out).getvalue() == ""


def test_say_keeps_a_tracebacks_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    say("Traceback:\n  line \x1b[2J\n", block=True)
    assert err.getvalue() == "Traceback:\n  line \\x1b[2J\n"
