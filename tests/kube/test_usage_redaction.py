"""Secrets in /metrics texts (issue 36, item 2): a redacted bundle (`snapshot --usage-window`, the default)
keeps what `usage` reads and loses what could be a credential, as every other field of a bundle
(kube/redaction.py `redact_metrics`). The texts: tests/core/usage/ours/ours__vllm-with-secrets.txt (the real
vLLM text with fake credentials added) and the real fixtures (tests/fixtures/metrics, PROVENANCE.jsonl)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

import kubectl_gpu.kube.usage.window as window_module
from kubectl_gpu.core.usage.inference import token_reading
from kubectl_gpu.core.usage.metrics import parse_metrics
from kubectl_gpu.kube.redaction import REDACTED, redact_metrics, redact_text
from tests.conftest import Result
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.test_usage_collect import DCGM_TEXT, _exporter, _vllm

Cli = Callable[..., Result]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "metrics"
SECRETS_TEXT = (
    Path(__file__).resolve().parents[1] / "core" / "usage" / "ours" / "ours__vllm-with-secrets.txt"
).read_text()
FAKE_SECRETS = (
    "sk-ours0fake0key0123456789abcdefABCDEF",  # an api_key label
    "ours-fake-bearer-0123456789abcdef",  # Authorization: Bearer ... in a HELP line
    "ours-fake-password",  # https://user:password@host in a label value
    "ours-fake-token-abcdef123456",  # token=... in a label value
    "AKIAOURSFAKEKEY01234",  # an AWS access key id in a comment
    "ours-fake-bearer-in-a-comment-99",  # Bearer ... in a comment
)


def test_every_fake_credential_goes_and_every_figure_stays() -> None:
    redacted = redact_metrics(SECRETS_TEXT)
    assert not [s for s in FAKE_SECRETS if s in redacted]
    assert 'api_key="<redacted>"' in redacted and "Authorization: <redacted>" in redacted
    before, after = parse_metrics(SECRETS_TEXT), parse_metrics(redacted)
    assert after.skipped == before.skipped and sorted(after.by_name) == sorted(before.by_name)
    assert [s.value for v in after.by_name.values() for s in v] == [
        s.value for v in before.by_name.values() for s in v
    ]
    assert token_reading(after) == token_reading(before)


@pytest.mark.parametrize("path", sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*.txt")))
def test_the_real_texts_are_kept_as_read(path: str) -> None:
    text = (FIXTURES / path).read_text()
    assert redact_metrics(text) == text


def test_a_one_line_error_loses_what_looks_like_a_credential() -> None:
    error = "the API server's proxy answered 500 InternalError: upstream said Authorization: Bearer abcdef0123456789"
    assert (
        redact_text(error)
        == f"the API server's proxy answered 500 InternalError: upstream said Authorization: {REDACTED}"
    )


@pytest.fixture
def no_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(window_module, "pause", lambda seconds: None)


def _cluster(api: FakeKubeAPI) -> None:
    api.add(_exporter("nvidia-dcgm-exporter-a", "gpu-1"), _exporter("nvidia-dcgm-exporter-b", "gpu-2"))
    api.add(_vllm("llama-0", "gpu-1"))
    api.pod_proxy.serve("gpu-operator", "nvidia-dcgm-exporter-a", 9400, DCGM_TEXT)
    api.pod_proxy.serve("inference", "llama-0", 8000, SECRETS_TEXT)
    page = b"upstream 500: sent with Authorization: Bearer ours-fake-bearer-0123456789abcdef"
    api.fault(
        path="/pods/nvidia-dcgm-exporter-b:9400/proxy/", status=500, raw=page, content_type="text/plain"
    )


def test_a_saved_window_holds_no_fake_credential(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, tmp_path: Path, no_wait: None
) -> None:
    _cluster(apiserver)
    bundle = tmp_path / "bundle.json"
    result = cli("snapshot", "--out", str(bundle), "--usage-window", "1m", "--kubeconfig", str(kubeconfig))
    assert result.code == 0, result.err
    raw = bundle.read_text()
    assert not [s for s in FAKE_SECRETS if s in raw]
    scrapes = orjson.loads(raw)["usage"]["scrapes"]
    errors = {s["error"] for s in scrapes if s["pod"] == "nvidia-dcgm-exporter-b"}
    assert errors == {
        "the API server's proxy answered 500 Internal Server Error: upstream 500: sent with Authorization: <redacted>"
    }
    texts = [s["text"] for s in scrapes if s["pod"] == "llama-0"]
    assert texts == [redact_metrics(SECRETS_TEXT)] * 2
    unredacted = tmp_path / "unredacted.json"
    args = ("snapshot", "--out", str(unredacted), "--usage-window", "1m", "--no-redact")
    assert cli(*args, "--kubeconfig", str(kubeconfig)).code == 0
    assert all(s in unredacted.read_text() for s in FAKE_SECRETS[:4])  # --no-redact keeps what was read
    # The redacted window answers as the unredacted one does.
    same = [cli("usage", "--snapshot", str(path), "-o", "json") for path in (bundle, unredacted)]
    assert [r.code for r in same] == [0, 0]
    figures = [orjson.loads(r.out)["inference"] for r in same]
    assert figures[0] == figures[1] and figures[0][0]["server"] == "vllm"
