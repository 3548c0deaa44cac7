"""Issue 21 item 7: a malformed inline key is bad input naming the field (exit 2), not an internal error;
`insecure-skip-tls-verify` is one warning line, not urllib3's warning on every request."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import node
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import write_kubeconfig

REPO = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")}
    return subprocess.run(
        [sys.executable, "-m", "kubectl_gpu", *args], cwd=REPO, env=env, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("client-key-data", "!!!not base64", "is not base64"),
        ("client-key-data", base64.b64encode(b"not a key").decode(), "holds no PEM data"),
        ("client-certificate-data", "bm90IGEgY2VydA=", "is not base64"),
    ],
)
def test_malformed_inline_credentials_are_bad_input_naming_the_field(
    tls_apiserver: FakeKubeAPI, tmp_path: Path, field: str, value: str, problem: str
) -> None:
    path = write_kubeconfig(tmp_path / "kubeconfig", tls_apiserver.url, ca_pem=tls_apiserver.ca_pem)
    config = json.loads(path.read_text())
    pem = base64.b64encode(tls_apiserver.ca_pem or b"").decode()  # real PEM where the other field needs one
    config["users"][0]["user"] = {"client-certificate-data": pem, "client-key-data": pem, field: value}
    path.write_text(json.dumps(config))
    result = _run("nodes", "--kubeconfig", str(path))
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert f"user 'test': {field} {problem}" in line and "internal error" not in line, line


def test_insecure_skip_tls_verify_is_one_warning_line(tls_apiserver: FakeKubeAPI, tmp_path: Path) -> None:
    gpus = {"nvidia.com/gpu": "1"}
    tls_apiserver.add(node("n1", capacity=gpus), node("n2", capacity=gpus))
    path = write_kubeconfig(tmp_path / "kubeconfig", tls_apiserver.url, token="t")
    config = json.loads(path.read_text())
    config["clusters"][0]["cluster"]["insecure-skip-tls-verify"] = True
    path.write_text(json.dumps(config))
    result = _run("nodes", "--kubeconfig", str(path), "-o", "json")
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"warning: the TLS certificate of {tls_apiserver.url} is not verified "
        "(insecure-skip-tls-verify in context 'test')"
    ], result.stderr
    assert len(json.loads(result.stdout)["nodes"]) == 2
