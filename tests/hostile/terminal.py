"""kubectl-gpu on a real pseudo-terminal, 200x50, colour on: what a person's terminal receives."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

from tests.helpers import default_hangup

REPO = Path(__file__).resolve().parents[2]
SIZE = (200, 50)


def _take_controlling_tty() -> None:
    """In the child, after setsid: the pty on fd 0 becomes its controlling terminal, as a shell's is, so
    the kernel sends it SIGHUP when the terminal's side closes."""
    default_hangup()
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
        preexec_fn=_take_controlling_tty if controlling else default_hangup,
    )
    os.close(follower)
    return proc, leader
