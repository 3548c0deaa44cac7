"""The TUI on a real pseudo-terminal, on a hostile bundle: the raw bytes it writes hold no escape from
cluster text (no OSC 52 clipboard write, no OSC 8 link to the attacker, no 8-bit CSI, no bidi control), and
no markup from it is read (issue 18). Pilot sees Textual's model of the screen; this sees what the terminal
gets."""

from __future__ import annotations

import os
import re
import select
import subprocess
import time
from pathlib import Path

from tests.hostile import write_hostile_bundle
from tests.hostile.terminal import spawn_on_pty

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
    ("i", "DISRUPTION"),
    ("$", "IDLE-NODES"),
    ("n", "Node: i-04b975f2935588ecc"),  # its detail: the cost view may still be drawing the name
    ("y", "apiVersion"),
    ("q", None),
    ("e", "event(s)"),
]
KEYS = {"enter": b"\r"}
CONTROL = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]")


def _words(raw: bytes) -> str:
    return CONTROL.sub(b"", raw).decode("utf-8", "replace")


class Terminal:
    """A process on a pty 200x50; `wait_for` reads until a text appears (bounded, so a hang fails)."""

    def __init__(self, args: list[str], *, controlling: bool = False) -> None:
        self.proc, self.leader = spawn_on_pty(args, new_session=True, controlling=controlling)
        self.raw = b""

    @classmethod
    def attach(cls, proc: subprocess.Popen[bytes], leader: int) -> Terminal:
        """A process already started on a pty (its leader fd), read as `wait_for` reads."""
        term = cls.__new__(cls)
        term.proc, term.leader, term.raw = proc, leader, b""
        return term

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

    def wait_for(self, text: str, since: int, limit: float = 300.0, why: str = "") -> None:
        """Read until `text` is drawn after byte `since`, read as a person does: the colour and cursor
        sequences between its words (Textual styles a label and its value apart) are not there."""
        end = time.monotonic() + limit  # an upper bound for a hang, not a margin: it returns at once
        while text not in _words(self.raw[since:]):
            read = self._read(max(0.0, end - time.monotonic()))
            if time.monotonic() > end or (not read and self.proc.poll() is not None):
                raise AssertionError(f"{text!r} never drawn {why}; last output: {self.raw[-600:]!r}")

    def press(self, key: str) -> int:
        mark = len(self.raw)
        os.write(self.leader, KEYS.get(key, key.encode()))
        return mark

    def kill(self) -> None:
        """End the process if it still runs (a test that failed before it ended)."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

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
                term.wait_for(shown, mark, why=f"after {key!r}")
    finally:
        term.close()
    raw = term.raw.decode("utf-8", "replace")
    assert "\x1b]52" not in raw  # the app never wrote the clipboard (nobody pressed c)
    assert not re.search(r"\x1b\]8;[^\x07\x1b]*evil", raw)  # no link to the attacker
    for char in ("\x9b", "\x9d", "\u202e", "\u2066"):
        assert char not in raw, repr(char)
    assert "evil.example" in raw  # the hostile text is on screen, as text
