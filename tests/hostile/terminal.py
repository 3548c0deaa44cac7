"""kubectl-gpu on a real pseudo-terminal, 200x50, colour on: what a person's terminal receives."""

from __future__ import annotations

import fcntl
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SIZE = (200, 50)


def _as_a_shell_starts_it() -> None:
    """In the child: SIGHUP at its default, as a shell starts a job on its terminal. The suite may run under
    `nohup` (a CI runner's), whose ignored SIGHUP the child would inherit: a test that hangs up on it would
    then wait on a process that, rightly, stays (tests/tui/test_terminal_loss.py tests that case itself)."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def _take_controlling_tty() -> None:
    """In the child, after setsid: the pty on fd 0 becomes its controlling terminal, as a shell's is, so
    the kernel sends it SIGHUP when the terminal's side closes."""
    _as_a_shell_starts_it()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def spawn_on_pty(
    args: list[str], *, new_session: bool = False, controlling: bool = False
) -> tuple[subprocess.Popen[bytes], int]:
    """Start `python -m kubectl_gpu ARGS` with a pty as its terminal; the process and the pty's leader fd
    (read what it writes, write keys). COLUMNS and LINES are set to the pty's size: another test may have
    left them set, and they win over the pty's own size."""
    leader, follower = pty.openpty()
    columns, lines = SIZE
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor"}
    env.update(COLUMNS=str(columns), LINES=str(lines))
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "kubectl_gpu", *args],
        cwd=REPO,
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        close_fds=True,
        start_new_session=new_session or controlling,
        preexec_fn=_take_controlling_tty if controlling else _as_a_shell_starts_it,
    )
    os.close(follower)
    return proc, leader
