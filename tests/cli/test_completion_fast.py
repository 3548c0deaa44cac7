"""`completion bash|zsh|fish` answered before typer is imported (issue 22: it imported typer and pydantic,
2.9x `import typer`, for a script that never changes): the same bytes the typer command prints, under every
name the program runs as, and nothing heavy loaded; anything else still reaches typer."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import pytest

from kubectl_gpu.cli.completion import SHELLS

HEAVY = ("typer", "click", "rich", "pydantic", "kubernetes", "yaml")


def _entry_point(argv0: str, args: list[str]) -> tuple[str, set[str]]:
    """What `__main__.main` prints for `args` when run as `argv0`, and the modules it has loaded then."""
    code = (
        "import atexit, contextlib, io, sys\n"
        "atexit.register(int)  # main() then ends with SystemExit, not os._exit: the modules get printed\n"
        f"sys.argv = [{argv0!r}, *{args!r}]\n"
        "from kubectl_gpu.__main__ import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):\n"
        "    main()\n"
        "sys.__stdout__.write(','.join(sorted(sys.modules)) + '\\n' + out.getvalue())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    modules, _, printed = done.stdout.partition("\n")
    return printed, set(modules.split(","))


def _typer_prints(argv0: str, shell: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The typer command's answer (`cli.app.main`, the way every other command runs)."""
    from kubectl_gpu.cli.app import main

    monkeypatch.setattr(sys, "argv", [argv0, "completion", shell])
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        main(["completion", shell])
    return out.getvalue()


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("argv0", ["kubectl-gpu", "/home/u/.krew/bin/kubectl-gpu_doctor", "__main__.py"])
def test_the_script_is_what_the_typer_command_prints(
    shell: str, argv0: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    printed, modules = _entry_point(argv0, ["completion", shell])
    assert printed == _typer_prints(argv0, shell, monkeypatch)
    assert "__complete" in printed
    assert not {m for m in modules if m.split(".")[0] in HEAVY}, sorted(modules)
    assert "kubectl_gpu.cli.app" not in modules


@pytest.mark.parametrize("args", [["completion", "tcsh"], ["--debug", "completion", "bash"], ["completion"]])
def test_anything_else_is_typers(args: list[str]) -> None:
    _, modules = _entry_point("kubectl-gpu", args)
    assert "kubectl_gpu.cli.app" in modules


def test_a_closed_pipe_is_not_an_error() -> None:
    done = subprocess.run(
        f"{sys.executable} -m kubectl_gpu completion bash | head -c 10",
        shell=True,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.startswith("# bash") and "Exception" not in done.stderr
