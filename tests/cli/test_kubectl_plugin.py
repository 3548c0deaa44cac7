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


def _plugin_env(tmp_path: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "PATH": f"{SCRIPT_DIR}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(tmp_path),
    }
    env.pop("KUBECONFIG", None)
    return env


def test_the_package_declares_both_executables() -> None:
    from importlib.metadata import entry_points

    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts") if ep.name.endswith("-gpu")}
    assert scripts == {
        "kubectl-gpu": "kubectl_gpu.__main__:main",
        "kubectl_complete-gpu": "kubectl_gpu.cli.completion:kubectl_complete",
    }


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
@pytest.mark.skipif(
    not (SCRIPT_DIR / "kubectl_complete-gpu").exists(),
    reason="kubectl_complete-gpu console script not installed",
)
def test_kubectl_runs_help_and_completes_through_kubectl_complete_gpu(tmp_path: Path) -> None:
    env = _plugin_env(tmp_path)
    listed = subprocess.run([KUBECTL or "kubectl", "plugin", "list"], capture_output=True, text=True, env=env)
    assert str(SCRIPT_DIR / "kubectl-gpu") in listed.stdout
    assert "kubectl_complete-gpu" not in listed.stdout + listed.stderr  # not a plugin, no warning about it
    helped = subprocess.run([KUBECTL or "kubectl", "gpu", "--help"], capture_output=True, text=True, env=env)
    assert helped.returncode == 0 and "pending" in helped.stdout and "completion" in helped.stdout
    direct = subprocess.run(
        [str(SCRIPT_DIR / "kubectl_complete-gpu"), "pen"], capture_output=True, text=True, env=env
    )
    assert direct.stdout.splitlines() == ["pending", ":4"]
    # what the shell asks kubectl on `kubectl gpu pen<TAB>` (kubectl >= 1.26 runs kubectl_complete-gpu)
    through = subprocess.run(
        [KUBECTL or "kubectl", "__complete", "gpu", "pen"], capture_output=True, text=True, env=env
    )
    assert through.stdout.splitlines() == ["pending", ":4"], through.stdout + through.stderr
    flags = subprocess.run(
        [KUBECTL or "kubectl", "__complete", "gpu", "smi", "--stra"], capture_output=True, text=True, env=env
    )
    assert flags.stdout.splitlines() == ["--strategy", ":4"]


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("KUBECTL_GPU_DIST_TESTS") != "1",
    reason="builds and installs the package: KUBECTL_GPU_DIST_TESTS=1",
)
def test_pip_install_puts_both_executables_on_path(tmp_path: Path) -> None:
    """A real `pip install .` into a fresh virtual environment (slow: builds the wheel, installs the deps)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    root = Path(__file__).resolve().parents[2]
    pip = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(root)],
        capture_output=True,
        text=True,
    )
    if pip.returncode != 0:
        pytest.skip(f"pip install failed (no package index?): {pip.stderr[-300:]}")
    for name in ("kubectl-gpu", "kubectl_complete-gpu"):
        assert (venv / "bin" / name).exists(), name
    env = {"PATH": f"{venv / 'bin'}{os.pathsep}/usr/bin:/bin", "HOME": str(tmp_path)}
    found = subprocess.run(
        ["kubectl_complete-gpu", "pen"], capture_output=True, text=True, env=env, check=True
    )
    assert found.stdout == "pending\n:4\n"
    version = subprocess.run(
        ["kubectl-gpu", "--version"], capture_output=True, text=True, env=env, check=True
    )
    assert version.stdout.startswith("kubectl-gpu ")
