"""Exit codes and the errors that map to them. Every front end shows these as one line, no traceback.

Every input error, wherever it is raised (a parser, a catalog lookup, a flag), subclasses `InvalidInput`,
which is also a `ValueError`; the front ends map `KubectlGpuError.exit_code` in one place (`cli/app.py`)."""

from __future__ import annotations

from enum import IntEnum

__all__ = [
    "ClusterError",
    "CouldNotLook",
    "ExitCode",
    "Interrupted",
    "InvalidInput",
    "KubectlGpuError",
    "caused_by_interrupt",
]


class ExitCode(IntEnum):
    OK = 0
    FINDINGS = 1  # the command found problems (e.g. a blocked pod, a finding at or above --fail-on)
    USAGE = 2  # bad flags or bad input (a malformed snapshot, an unknown context)
    CLUSTER = 3  # the cluster or the runtime failed us (unreachable, unauthorized, timeout)
    # Nothing found at or above the command's rule, but a kind it reads could not be listed (forbidden):
    # "could not look", which a runbook must not read as "clean".
    INCOMPLETE = 4
    INTERRUPTED = 130
    # stdout's reader left (`| head`) before a command that writes its own output had a verdict: as kubectl,
    # which dies of SIGPIPE (128 + 13). A read-only command's verdict (0, 1, 4) stands instead.
    SIGPIPE = 141


class KubectlGpuError(Exception):
    """An error we expected and can explain: `message` is what failed, `hint` what to do about it."""

    exit_code = ExitCode.CLUSTER

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def line(self) -> str:
        return f"{self.message}; {self.hint}" if self.hint else self.message


class InvalidInput(KubectlGpuError, ValueError):
    """Bad input: a flag, a file, a manifest or an object field we cannot use. Exit code 2."""

    exit_code = ExitCode.USAGE


class ClusterError(KubectlGpuError):
    exit_code = ExitCode.CLUSTER


class CouldNotLook(KubectlGpuError):
    """What was asked about could not be looked at: a namespace that does not exist. Exit code 4."""

    exit_code = ExitCode.INCOMPLETE


class Interrupted(Exception):
    """Ctrl-C or SIGTERM, after the command cleaned up; the message says what was cleaned up."""


def caused_by_interrupt(exc: BaseException | None) -> bool:
    """Whether Ctrl-C is behind `exc`: Python wraps a KeyboardInterrupt that lands in some places, e.g. a
    class body's `__set_name__` (every dataclass field) raises a RuntimeError caused by it."""
    for _ in range(32):  # a chain, not a loop: __context__ can cycle
        if exc is None:
            return False
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc = exc.__cause__ or exc.__context__
    return False
