"""`kubectl gpu ...` works through kubectl's plugin mechanism (kubectl-gpu on PATH)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

KUBECTL = shutil.which("kubectl")
SCRIPT_DIR = Path(sys.executable).parent


@pytest.mark.slow
@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
@pytest.mark.skipif(
    not (SCRIPT_DIR / "kubectl-gpu").exists(), reason="kubectl-gpu console script not installed"
)
def test_kubectl_finds_and_runs_the_plugin(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PATH": f"{SCRIPT_DIR}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(tmp_path),
    }
    env.pop("KUBECONFIG", None)
    listed = subprocess.run(
        [KUBECTL or "kubectl", "plugin", "list"], capture_output=True, text=True, env=env, check=False
    )
    assert str(SCRIPT_DIR / "kubectl-gpu") in listed.stdout
    version = subprocess.run(
        [KUBECTL or "kubectl", "gpu", "--version"], capture_output=True, text=True, env=env, check=False
    )
    assert version.returncode == 0 and version.stdout.startswith("kubectl-gpu ")
    bad = subprocess.run(
        [KUBECTL or "kubectl", "gpu", "nodes", "--snapshot", str(tmp_path / "nope.json")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert bad.returncode == 2 and "no such file" in bad.stderr
