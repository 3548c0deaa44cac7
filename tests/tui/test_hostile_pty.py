"""The TUI on a real pseudo-terminal, on a hostile bundle: the raw bytes it writes hold no escape from
cluster text (no OSC 52 clipboard write, no OSC 8 link to the attacker, no 8-bit CSI, no bidi control), and
no markup from it is read (issue 18). Pilot sees Textual's model of the screen; this sees what the terminal
gets."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from tests.hostile import write_hostile_bundle

REPO = Path(__file__).resolve().parents[2]
#: (key, a word that page draws once it is shown, or None: nothing to await); each is awaited before the
#: next key. Pages are left with `q` (their "back"), not ESC: ESC and the next key sent together read as
#: Alt+key, and going back repaints only what changed, so there is no word to await.
STEPS: list[tuple[str, str | None]] = [
    ("n", "GPU-MEM"),  # the nodes view's last header at 200 columns
    ("p", "VERDICT"),
    ("enter", "Fix (c copies it)"),
    ("q", None),
    ("o", "LIMITS"),
    ("f", "SEVERITY"),
    ("d", "CUDA-MAX"),
    ("m", "EPHEMERAL"),
    ("l", "DISRUPTION"),
    ("c", "IDLE-NODES"),
    ("n", "i-04b975f2935588ecc"),
    ("y", "apiVersion"),
    ("q", None),
    ("e", "event(s)"),
]
KEYS = {"enter": b"\r"}
VIEW_KEYS = set("npofdmlc")  # pressing one again shows the same view


class Terminal:
    """A process on a pty 200x50; `wait_for` reads until a text appears (bounded, so a hang fails)."""

    def __init__(self, args: list[str]) -> None:
        self.leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        # The size is the pty's; COLUMNS and LINES, which another test may have left set, would win over it.
        env = {
            **os.environ,
            "TERM": "xterm-256color",
            "COLORTERM": "truecolor",
            "COLUMNS": "200",
            "LINES": "50",
        }
        env.pop("NO_COLOR", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kubectl_gpu", *args],
            cwd=REPO,
            stdin=follower,
            stdout=follower,
            stderr=follower,
            env=env,
            close_fds=True,
            start_new_session=True,
        )
        os.close(follower)
        self.raw = b""

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.leader], [], [], timeout)
        if not ready:
            return False
        try:
            chunk = os.read(self.leader, 1 << 16)
        except OSError:
            return False
        self.raw += chunk
        return bool(chunk)

    def wait_for(
        self, text: str, since: int, limit: float = 300.0, why: str = "", again: bytes | None = None
    ) -> None:
        """Read until `text` is drawn after byte `since`. `again`: a key that may be sent again while
        waiting (a view switch is idempotent; a key sent as the first screen settles may be lost)."""
        end = time.monotonic() + limit  # an upper bound for a hang, not a margin: it returns at once
        resend = time.monotonic() + 10
        while text.encode() not in self.raw[since:]:
            if again is not None and time.monotonic() > resend:
                os.write(self.leader, again)
                resend = time.monotonic() + 10
            read = self._read(max(0.0, min(1.0, end - time.monotonic())))
            if time.monotonic() > end or (not read and self.proc.poll() is not None):
                raise AssertionError(f"{text!r} never drawn {why}; last output: {self.raw[-600:]!r}")

    def press(self, key: str) -> int:
        mark = len(self.raw)
        os.write(self.leader, KEYS.get(key, key.encode()))
        return mark

    def close(self) -> None:
        os.write(self.leader, b"q")
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        while self._read(0.5):
            pass
        os.close(self.leader)


def test_the_terminal_gets_no_escape_from_cluster_text(tmp_path: Path) -> None:
    bundle = write_hostile_bundle(tmp_path / "hostile.json")
    term = Terminal(["tui", "--snapshot", str(bundle)])
    try:
        term.wait_for("NODEPOOL", 0)
        for key, shown in STEPS:
            mark = term.press(key)
            if shown is not None:
                again = key.encode() if key in VIEW_KEYS else None
                term.wait_for(shown, mark, why=f"after {key!r}", again=again)
    finally:
        term.close()
    raw = term.raw.decode("utf-8", "replace")
    assert "\x1b]52" not in raw  # the app never wrote the clipboard (nobody pressed c)
    assert not re.search(r"\x1b\]8;[^\x07\x1b]*evil", raw)  # no link to the attacker
    for char in ("\x9b", "\x9d", "\u202e", "\u2066"):
        assert char not in raw, repr(char)
    assert "evil.example" in raw  # the hostile text is on screen, as text
