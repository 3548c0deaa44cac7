"""How a command's end becomes its exit code and its last line on stderr, for both ways a command runs:
typer's (`cli.app`, which first answers typer's own exceptions: usage errors, `typer.Exit`) and the
plain command lines answered without typer (`cli.direct`). Every expected failure is one line and a
documented exit code (docs/exit-codes.md); anything else is an internal error, exit 3."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from kubectl_gpu.core.errors import ExitCode, Interrupted, KubectlGpuError, caused_by_interrupt

__all__ = [
    "debug_requested",
    "debug_requests",
    "error",
    "exit_code_of",
    "finish",
    "run_guarded",
    "say",
    "say_interrupted",
]


def debug_requested(argv: list[str]) -> bool:
    return "--debug" in argv[: argv.index("--")] if "--" in argv else "--debug" in argv


def say(text: str, *, block: bool = False) -> None:
    """A line on stderr through the CLI's one writer (`render.messages.say`): no credential this process
    loaded (a token, a password) and no terminal control in what it prints."""
    from kubectl_gpu.cli.say import say as write

    write(text, block=block)


def error(line: str) -> None:
    say(f"error: {line}")


def _traceback() -> None:
    import traceback

    say(traceback.format_exc(), block=True)


def say_interrupted() -> None:
    """ "interrupted" on stderr, unless the terminal is gone (SIGHUP): the exit code says it all the same."""
    with contextlib.suppress(OSError):
        say("interrupted")


def debug_requests() -> None:
    """--debug: what each connection sent, against its request budget (kube.budget), on stderr at exit."""
    if "kubectl_gpu.kube.budget" not in sys.modules:
        return  # nothing was asked of a cluster
    from kubectl_gpu.kube.budget import budgets_used

    with contextlib.suppress(OSError):
        for line in budgets_used():
            say(f"debug: {line}")


def exit_code_of(exc: BaseException, *, debug: bool) -> int | None:
    """The exit code of a command that ended with `exc`, its line written; None: not an end of ours (the
    caller raises it again). Called from an `except` block (--debug prints its traceback)."""
    if isinstance(exc, KubectlGpuError):
        if debug:  # the traceback, and still the documented exit code (uncaught, Python would exit 1)
            _traceback()
            debug_requests()  # before the error, which stays the last line
        error(exc.line())
        return int(exc.exit_code)
    if isinstance(exc, Interrupted):
        with contextlib.suppress(OSError):  # stderr gone (a CI log reader that left): 130 all the same
            say(f"interrupted: {exc}" if str(exc) else "interrupted")
        return ExitCode.INTERRUPTED
    if isinstance(exc, KeyboardInterrupt):
        say_interrupted()
        return ExitCode.INTERRUPTED
    if isinstance(exc, BrokenPipeError):  # a command that writes its own output: no verdict to keep
        return ExitCode.SIGPIPE
    if not isinstance(exc, Exception):
        return None
    if caused_by_interrupt(exc):  # Ctrl-C while a lazy import defines a dataclass: a RuntimeError
        say_interrupted()
        return ExitCode.INTERRUPTED
    if debug:
        _traceback()
    detail = " ".join(str(exc).split())  # one line, even for a multi-line message (a YAML error)
    hint = "please report it" if debug else "rerun with --debug for the traceback and report it"
    error(f"internal error: {type(exc).__name__}: {detail} ({hint})")
    return ExitCode.CLUSTER


def run_guarded(command: Callable[[], Any], *, debug: bool) -> Any:
    """The command's result, or SystemExit with the exit code of the failure it ended with."""
    try:
        return command()
    except SystemExit:
        raise
    except BaseException as exc:
        code = exit_code_of(exc, debug=debug)
        if code is None:
            raise
        sys.exit(code)


def finish(rc: Any) -> NoReturn:
    """Exit with a command's result: its exit code (130 said as "interrupted"), else 0."""
    if rc == ExitCode.INTERRUPTED:  # typer turns Ctrl-C into a bare exit code 130
        say_interrupted()
    sys.exit(int(rc) if isinstance(rc, int) else ExitCode.OK)
