"""The suite's processes take Ctrl-C, however the suite was started (tests/conftest.py): a child it spawns
has SIGINT at Python's default, so the tests that interrupt kubectl-gpu see it answer, not wait forever."""

from __future__ import annotations

import signal
import subprocess
import sys


def test_a_spawned_child_takes_sigint() -> None:
    probe = "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"
    assert signal.getsignal(signal.SIGINT) is not signal.SIG_IGN
