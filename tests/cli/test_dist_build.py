"""The standalone build (scripts/build-dist): the archive for this machine, installed as krew installs it,
runs with nothing but the archive: no Python, no packages, an empty environment, an empty directory.

Slow (the PyInstaller build takes minutes), so opt-in: `KUBECTL_GPU_DIST_TESTS=1 pytest tests/cli/test_dist_build.py`
builds it; `KUBECTL_GPU_DIST_ARCHIVE=dist/kubectl-gpu_v0.1.0_linux_amd64.tar.gz` tests an archive already built
(the release workflow does that on every platform)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.conftest import Result
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import KUBECTL, write_kubeconfig
from tests.kube.kubelet import gpu_node
from tests.test_krew_manifest import TEMPLATE, install, render

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "automode-gpu-demo.json"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("KUBECTL_GPU_DIST_TESTS") != "1" and not os.environ.get("KUBECTL_GPU_DIST_ARCHIVE"),
        reason="builds the standalone executable (minutes): KUBECTL_GPU_DIST_TESTS=1",
    ),
]


@pytest.fixture(scope="module")
def archive() -> Path:
    given = os.environ.get("KUBECTL_GPU_DIST_ARCHIVE")
    if given:
        return Path(given).resolve()
    subprocess.run([sys.executable, str(ROOT / "scripts" / "build-dist")], check=True, cwd=ROOT)
    from kubectl_gpu import __version__

    system = {"Linux": "linux", "Darwin": "darwin"}[platform.system()]
    machine = {"x86_64": "amd64", "aarch64": "arm64", "arm64": "arm64"}[platform.machine().lower()]
    return ROOT / "dist" / f"kubectl-gpu_v{__version__}_{system}_{machine}.tar.gz"


@pytest.fixture(scope="module")
def krew_bin(archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Installed from the rendered manifest as krew does, linked as kubectl-gpu_doctor in a bin directory."""
    tag = archive.name.split("_")[1]
    uri = f"https://github.com/kubectl-gpu/kubectl-gpu/releases/download/{tag}/{archive.name}"
    manifest = yaml.safe_load(render(TEMPLATE.read_text(), tag, _others(tag, archive)))
    (entry,) = [p for p in manifest["spec"]["platforms"] if p["uri"] == uri]
    root = tmp_path_factory.mktemp("krew")
    installed = install(entry, {uri: archive}, root)
    bin_dir = root / "bin"
    bin_dir.mkdir()
    (bin_dir / "kubectl-gpu_doctor").symlink_to(installed / entry["bin"])
    (bin_dir / "kubectl_complete-gpu_doctor").symlink_to(installed / entry["bin"])  # the caveats' link
    return bin_dir


def _others(tag: str, archive: Path) -> dict[str, Path]:
    """The other platforms' URIs, answered with this archive (only this platform is installed)."""
    base = f"https://github.com/kubectl-gpu/kubectl-gpu/releases/download/{tag}/kubectl-gpu_{tag}"
    return {f"{base}_{o}_{a}.tar.gz": archive for o in ("linux", "darwin") for a in ("amd64", "arm64")}


def run(krew_bin: Path, *argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """env -i PATH=<krew bin>:/usr/bin:/bin, from an empty directory: no Python packages anywhere near."""
    env = {"PATH": f"{krew_bin}:/usr/bin:/bin", "HOME": str(cwd)}
    return subprocess.run(list(argv), env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


def test_version_and_the_demo_bundle(krew_bin: Path, tmp_path: Path, cli: Callable[..., Result]) -> None:
    version = run(krew_bin, "kubectl-gpu_doctor", "--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("kubectl-gpu "), version.stderr
    nodes = run(krew_bin, "kubectl-gpu_doctor", "nodes", "--snapshot", str(DEMO), cwd=tmp_path)
    assert nodes.returncode == 0, nodes.stderr
    assert nodes.stdout == cli("nodes", "--snapshot", str(DEMO)).out  # the same program
    diagnose = run(
        krew_bin, "kubectl-gpu_doctor", "diagnose", "--snapshot", str(DEMO), "-o", "json", cwd=tmp_path
    )
    assert diagnose.returncode == 1 and '"kind": "DiagnoseReport"' in diagnose.stdout, diagnose.stderr


def test_a_live_cluster_and_a_debug_pod_dry_run(krew_bin: Path, tmp_path: Path) -> None:
    with FakeKubeAPI() as api:
        api.add(gpu_node("i-0aaa"))
        kubeconfig = str(write_kubeconfig(tmp_path / "kubeconfig", api.url))
        nodes = run(krew_bin, "kubectl-gpu_doctor", "nodes", "--kubeconfig", kubeconfig, cwd=tmp_path)
        assert nodes.returncode == 0 and "i-0aaa" in nodes.stdout, nodes.stderr
        dry = run(
            krew_bin,
            "kubectl-gpu_doctor",
            "smi",
            "i-0aaa",
            "--dry-run",
            "--kubeconfig",
            kubeconfig,
            cwd=tmp_path,
        )
        assert dry.returncode == 0 and "public.ecr.aws/docker/library/debian" in dry.stdout, dry.stderr


@pytest.mark.skipif(not os.path.exists(KUBECTL), reason="kubectl is not installed")
def test_through_kubectl_with_completion(krew_bin: Path, tmp_path: Path) -> None:
    listed = run(krew_bin, KUBECTL, "plugin", "list", cwd=tmp_path)
    assert str(krew_bin / "kubectl-gpu_doctor") in listed.stdout
    helped = run(krew_bin, KUBECTL, "gpu-doctor", "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "pending" in helped.stdout
    completed = run(krew_bin, KUBECTL, "__complete", "gpu-doctor", "pen", cwd=tmp_path)
    assert completed.stdout.splitlines() == ["pending", ":4"], completed.stderr
