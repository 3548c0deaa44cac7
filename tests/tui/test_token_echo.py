"""A server that echoes the Authorization header in its errors: the bearer token appears in no CLI output
and in no TUI screen or notice, with and without --debug (issue 18: one error seam, render.messages)."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_gpu.kube.source import SourceOptions
from kubectl_gpu.tui.app import GpuApp
from kubectl_gpu.tui.config import TuiConfig
from tests.kube.apiserver import FakeKubeAPI
from tests.tui.conftest import CRDS, DEMO_NOW, demo_objects, settle

REPO = Path(__file__).resolve().parents[2]
TOKEN = "k8s-aws-v1.ZWNoby10aGlzLXRva2VuLWJhY2s"


def _kubeconfig(path: Path, server: str, ca_pem: bytes) -> Path:
    """An https server's (kubectl and we send a token over TLS only)."""
    cluster = {"server": server, "certificate-authority-data": base64.b64encode(ca_pem).decode()}
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": cluster}],
                "users": [{"name": "u", "user": {"token": TOKEN}}],
                "contexts": [{"name": "test", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "test",
            }
        )
    )
    return path


@pytest.fixture
def leaky(tmp_path: Path) -> tuple[FakeKubeAPI, Path]:
    api = FakeKubeAPI(tls=True).start()
    api.install_crds(*CRDS)
    api.add(*demo_objects())
    api.require_token = TOKEN
    api.echo_authorization = re.compile(r"/pods$")
    yield api, _kubeconfig(tmp_path / "kubeconfig", api.url, api.ca_pem or b"")
    api.stop()


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "debug"])
@pytest.mark.parametrize("command", ["nodes", "pending", "diagnose"])
def test_the_cli_never_prints_the_echoed_token(
    leaky: tuple[FakeKubeAPI, Path], command: str, debug: bool
) -> None:
    api, kubeconfig = leaky
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "kubectl_gpu",
            command,
            "--kubeconfig",
            str(kubeconfig),
            *(["--debug"] * debug),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert any(r.path.endswith("/pods") for r in api.requests)  # the leaky path was asked
    assert TOKEN not in result.stdout + result.stderr
    assert result.returncode == 3, result.stderr


async def test_the_tui_never_shows_the_echoed_token(leaky: tuple[FakeKubeAPI, Path]) -> None:
    _, kubeconfig = leaky
    source = SourceOptions(kubeconfig=str(kubeconfig), context="test", request_timeout=5.0)
    app = GpuApp(TuiConfig(source, now=DEMO_NOW, refresh=None), clock=lambda: DEMO_NOW)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await settle(pilot, "r")  # a second refresh fails the same way
        assert app.notices, "the failed refresh said nothing"
        for _severity, title, message in app.notices:
            assert TOKEN not in title + message
        assert any("<redacted>" in message for _s, _t, message in app.notices), app.notices
        assert TOKEN not in app.export_screenshot()
