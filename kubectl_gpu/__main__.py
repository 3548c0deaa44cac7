"""The entry point of `kubectl-gpu` (the console script) and `python -m kubectl_gpu`.

It imports almost nothing: typer, rich and the kubernetes client take a few hundred milliseconds to import,
and Ctrl-C meanwhile must read `interrupted` (exit 130) like Ctrl-C later on, not a traceback. `--version`,
completion (`__complete`, and the scripts of `completion bash|zsh|fish`) and `--help`/`CMD --help`
(pre-rendered: cli.help_fast) answer before typer is imported; so do the read-only commands on a plain
command line (cli.direct)."""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["main"]

_INTERRUPTED = 130  # ExitCode.INTERRUPTED, not imported: this module stays light


def _forget_interrupt() -> None:
    """CPython remembers a KeyboardInterrupt that left an `exec()` of a string (dataclasses build their
    methods so), even once caught, and `python -m` then ends by re-sending itself SIGINT: a parent process
    sees status -2, not 130. Running an empty string clears that memory."""
    exec("")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _terminate_as_interrupt() -> None:
    """SIGTERM and SIGHUP end the command as Ctrl-C does (cleanup, `interrupted`, exit 130), from the first
    line of ours on, not only once a debug pod exists: by default they kill the process with no word. A
    signal ignored on purpose (nohup ignores SIGHUP) stays ignored."""
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None and signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, _interrupt)


def _completion_words(argv: list[str]) -> list[str] | None:
    """The words to complete, when this is a completion request: run as `kubectl_complete-*` (kubectl's plugin
    completion; krew installs can link that name to this executable) or as `kubectl-gpu __complete WORDS`."""
    if os.path.basename(argv[0]).startswith("kubectl_complete-"):
        return argv[1:]
    if argv[1:2] == ["__complete"]:
        return argv[2:]
    return None


def _exit_now(code: int) -> None:
    """Exit without tearing the heap down: a loaded fleet is millions of objects, and freeing them one by
    one at exit costs about a third of a second per GB of snapshot (bench/). Output is flushed first. Only
    when nothing else wants the interpreter's shutdown: no atexit callback (coverage, logging), no profiler
    or tracer, no other thread; otherwise the usual exit."""
    import atexit
    import contextlib
    import threading

    pending = getattr(atexit, "_ncallbacks", lambda: 1)()
    if pending or sys.gettrace() or sys.getprofile() or threading.active_count() > 1:
        raise SystemExit(code)
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader stopped early (`| head -c 10`) while the end of the output was still buffered: the
        # command's exit code stands, so `set -o pipefail` never reads findings as clean (docs/exit-codes.md).
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        os._exit(code)
    except (ValueError, OSError):
        raise SystemExit(code) from None  # let the interpreter report it as it would
    try:
        sys.stderr.flush()
    except (ValueError, OSError):
        raise SystemExit(code) from None
    os._exit(code)


def _print_version() -> None:
    """`kubectl-gpu --version` alone: the version, without typer (what a plugin manager runs to check)."""
    from kubectl_gpu import __version__

    try:
        sys.stdout.write(f"kubectl-gpu {__version__}\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `| head -0`: the reader is gone; not an error, and no "Exception ignored"
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(0)


def _answered_completion_script(args: list[str]) -> bool:
    """`completion SHELL` alone, SHELL one of bash, zsh, fish: the script, fixed text (cli.completion_scripts),
    as the typer command prints it (tests/cli/test_completion_fast.py holds them equal); False: typer
    answers (another shell, other options), as before."""
    if len(args) != 2 or args[0] != "completion":
        return False
    from kubectl_gpu.cli.completion import SHELLS, program_name, script

    if args[1] not in SHELLS:
        return False
    try:
        sys.stdout.write(script(args[1], program_name(sys.argv[0])))
        sys.stdout.flush()
    except BrokenPipeError:  # `| head -1`: the reader is gone; not an error, and no "Exception ignored"
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return True


def _answered_help(args: list[str]) -> bool:
    """`--help`, `-h`, `CMD --help`, `CMD -h` alone: the help rendered ahead of time, without typer, when it
    is what typer would print here (cli.help_fast says when); False: typer answers."""
    if not args or args[-1] not in ("--help", "-h") or len(args) > 2:
        return False
    from kubectl_gpu.cli.help_fast import answer

    return answer(args)


def main() -> None:
    try:
        _main()
    finally:  # an answer without a command (an error, an in-process caller): the collector as it was
        heap = sys.modules.get("kubectl_gpu.kube.heap")
        if heap is not None:
            heap.end_startup()


def _main() -> None:
    _terminate_as_interrupt()
    words = _completion_words(sys.argv)
    if words is not None:  # fast: no typer, no commands
        from kubectl_gpu.cli.completion import run as complete

        sys.exit(complete(words))
    if sys.argv[1:] == ["--version"]:
        _print_version()
    try:
        if _answered_help(sys.argv[1:]) or _answered_completion_script(sys.argv[1:]):
            return  # exit 0; nothing loaded that is worth skipping the interpreter's shutdown for
        from kubectl_gpu.kube.heap import end_startup, hold_off_for_startup

        hold_off_for_startup()  # no cyclic collection while the command's modules are imported (kube/heap.py)
        from kubectl_gpu.kube.read_ahead import start as read_ahead

        read_ahead(sys.argv[1:])  # the --snapshot file, read while the command is imported
        from kubectl_gpu.cli.direct import answer

        answer(sys.argv[1:])  # a plain command line of a read-only command: answered without typer, exits
        from kubectl_gpu.cli.app import main as run

        if sys.argv[1:2] != ["tui"]:  # the TUI's first read ends the hold, after Textual's imports
            end_startup()  # typer's other commands may run for hours (`-w`, `smi`): the collector back on
        run()
    except SystemExit as exc:
        if exc.code == _INTERRUPTED:
            _forget_interrupt()
        if exc.code is None or isinstance(exc.code, int):
            _exit_now(exc.code or 0)
        raise
    except BaseException as exc:  # app.main handles Ctrl-C during a command; this is before and after
        from kubectl_gpu.core.errors import caused_by_interrupt

        if not caused_by_interrupt(exc):
            raise
        import contextlib

        with contextlib.suppress(OSError, ValueError):  # stderr gone: the exit code says it all the same
            sys.stderr.write("interrupted\n")
        _forget_interrupt()
        sys.exit(_INTERRUPTED)


if __name__ == "__main__":
    main()
