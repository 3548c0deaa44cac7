"""Fixtures around the fake Kubernetes API server: the server, kubeconfigs, a kubectl runner, a client."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest
from kubernetes import client, config

from tests.kube.apiserver import FakeKubeAPI

#: The real kubectl (v1.32 here; CI installs one on PATH; macOS has no writable /usr/bin).
KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"
CLOSED_PORT_SERVER = "http://127.0.0.1:1"  # nothing listens on port 1: connection refused at once


def _kubeconfig(server: str, user: dict[str, Any], ca_pem: bytes | None) -> dict[str, Any]:
    cluster: dict[str, Any] = {"server": server}
    if ca_pem is not None:
        cluster["certificate-authority-data"] = base64.b64encode(ca_pem).decode()
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": "test", "cluster": cluster},
            {"name": "other", "cluster": {"server": CLOSED_PORT_SERVER}},
        ],
        "users": [{"name": "test", "user": user}],
        "contexts": [
            {"name": "test", "context": {"cluster": "test", "user": "test"}},
            {"name": "other", "context": {"cluster": "other", "user": "test"}},
        ],
        "current-context": "test",
    }


def write_kubeconfig(
    path: Path, server: str, *, ca_pem: bytes | None = None, token: str | None = None
) -> Path:
    """Kubeconfig with context `test` (`server`, trusting `ca_pem` if given) and `other` (a closed port),
    current `test`. JSON is valid YAML, so both kubectl and the kubernetes client read it.

    The user is anonymous unless `token` is given; note that kubectl prompts for a username when an
    anonymous user talks to an https server (`run_kubectl` gives it no stdin, so that fails at once)."""
    path.write_text(json.dumps(_kubeconfig(server, {"token": token} if token else {}, ca_pem), indent=2))
    return path


def write_exec_kubeconfig(path: Path, server: str, token: str, *, ca_pem: bytes | None = None) -> Path:
    """Kubeconfig whose user gets its token from an `exec` credential plugin, as `aws eks get-token` does.

    The plugin is a small Python script written next to `path` that prints a
    `client.authentication.k8s.io/v1` ExecCredential with `token`. kubectl runs the plugin only for an
    https server, and so does kubectl-gpu (`kube.connection`): pass `FakeKubeAPI(tls=True)`'s `url` and
    `ca_pem`."""
    plugin = path.with_name(path.stem + "-credential.py")
    credential = {
        "apiVersion": "client.authentication.k8s.io/v1",
        "kind": "ExecCredential",
        "status": {"token": token},
    }
    plugin.write_text(f"import json\nprint(json.dumps({credential!r}))\n")
    user = {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1",
            "command": sys.executable,
            "args": [str(plugin)],
            "interactiveMode": "Never",  # required by the v1 exec API
        }
    }
    path.write_text(json.dumps(_kubeconfig(server, user, ca_pem), indent=2))
    return path


class RunKubectl(Protocol):
    def __call__(
        self, *args: str, kubeconfig: Path | None = None, timeout: float = 30.0
    ) -> subprocess.CompletedProcess[str]: ...


@pytest.fixture
def apiserver() -> Iterator[FakeKubeAPI]:
    """A started fake API server, stopped (threads joined) after the test."""
    with FakeKubeAPI() as api:
        yield api


@pytest.fixture
def tls_apiserver() -> Iterator[FakeKubeAPI]:
    """A started fake API server on https (self-signed; trust `ca_pem`), for credential tests."""
    with FakeKubeAPI(tls=True) as api:
        yield api


@pytest.fixture
def kubeconfig(apiserver: FakeKubeAPI, tmp_path: Path) -> Path:
    return write_kubeconfig(tmp_path / "kubeconfig", apiserver.url)


@pytest.fixture
def run_kubectl(kubeconfig: Path, tmp_path: Path) -> RunKubectl:
    """Run the real kubectl against the fake server with a per-test discovery cache and HOME.

    `kubeconfig=` overrides the fixture's kubeconfig (e.g. one from `write_exec_kubeconfig`)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")} | {"HOME": str(home)}
    default_kubeconfig, cache_dir = kubeconfig, tmp_path / "kube-cache"

    def run(
        *args: str, kubeconfig: Path | None = None, timeout: float = 30.0
    ) -> subprocess.CompletedProcess[str]:
        cmd = [KUBECTL, "--kubeconfig", str(kubeconfig or default_kubeconfig), "--cache-dir", str(cache_dir)]
        return subprocess.run(
            [*cmd, *args], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout, env=env
        )

    return run


@pytest.fixture
def kube_client(kubeconfig: Path) -> Iterator[client.ApiClient]:
    """A `kubernetes` ApiClient for the fake server, built from the kubeconfig without touching the
    client's global default configuration."""
    api_client = config.new_client_from_config(config_file=str(kubeconfig), context="test")
    try:
        yield api_client
    finally:
        api_client.close()
