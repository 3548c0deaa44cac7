"""Issue 21 items 1-2: the cluster, context and namespace are the ones kubectl would use on the same files.

Each case writes kubeconfig files, asks the real kubectl (`config current-context`, `config view --minify`)
and asks us (`kube.kubeconfig`, `kube_contexts`, the commands against the suite's API server)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.kube.contexts import kube_contexts
from kubectl_gpu.kube.kubeconfig import load_kubeconfig
from tests.conftest import Result
from tests.helpers import node, pod
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import CLOSED_PORT_SERVER, KUBECTL

Cli = Callable[..., Result]
pytestmark = pytest.mark.skipif(not os.path.exists(KUBECTL), reason="kubectl is not installed")


def _config(
    clusters: dict[str, str],
    contexts: dict[str, dict[str, str]],
    current: str | None = None,
    users: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    document: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": n, "cluster": {"server": s}} for n, s in clusters.items()],
        "users": [{"name": n, "user": u} for n, u in ({"u": {}} if users is None else users).items()],
        "contexts": [{"name": n, "context": {"user": "u", **c}} for n, c in contexts.items()],
    }
    if current is not None:
        document["current-context"] = current
    return document


def _write(tmp_path: Path, *documents: dict[str, Any]) -> str:
    paths = []
    for index, document in enumerate(documents):
        path = tmp_path / f"config-{index}"
        path.write_text(json.dumps(document))
        paths.append(str(path))
    return os.pathsep.join(paths)


def _kubectl(tmp_path: Path, listed: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")}
    env |= {"HOME": str(tmp_path), "KUBECONFIG": listed}
    return subprocess.run(
        [KUBECTL, *args], capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=60
    )


def _kubectl_minified(tmp_path: Path, listed: str, context: str | None = None) -> dict[str, Any]:
    args = ["config", "view", "--minify", "--raw", "-o", "json", *(["--context", context] if context else [])]
    result = _kubectl(tmp_path, listed, *args)
    assert result.returncode == 0, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    return document


LIVE = "http://LIVE"  # replaced by the API server's URL


CASES: dict[str, list[dict[str, Any]]] = {
    # The case: the first file's current-context wins; the Python client took the last one.
    "first current-context wins": [
        _config({"dead": CLOSED_PORT_SERVER}, {"dead": {"cluster": "dead"}}, "dead"),
        _config({"live": LIVE}, {"live": {"cluster": "live", "namespace": "ml"}}, "live"),
    ],
    # An empty current-context sets nothing: the next file's counts.
    "empty current-context is unset": [
        _config({"dead": CLOSED_PORT_SERVER}, {"dead": {"cluster": "dead"}}, ""),
        _config({"live": LIVE}, {"live": {"cluster": "live", "namespace": "ml"}}, "live"),
    ],
    # A context and a cluster named in both files: the first file's entry, whole.
    "same names: first entry wins whole": [
        _config({"c": LIVE}, {"ctx": {"cluster": "c"}}, "ctx"),
        _config({"c": CLOSED_PORT_SERVER}, {"ctx": {"cluster": "c", "namespace": "ml"}}, "ctx"),
    ],
    # A context whose cluster only a later file defines.
    "context in one file, cluster in another": [
        _config({}, {"ctx": {"cluster": "c", "namespace": "team-a"}}, "ctx"),
        _config({"c": LIVE}, {}, "other"),
    ],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_context_cluster_and_namespace_are_kubectls(
    case: str, apiserver: FakeKubeAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    documents = json.loads(json.dumps(CASES[case]).replace(LIVE, apiserver.url))
    listed = _write(tmp_path, *documents)
    expected = _kubectl_minified(tmp_path, listed)
    current = _kubectl(tmp_path, listed, "config", "current-context").stdout.strip()
    monkeypatch.setenv("KUBECONFIG", listed)
    merged = load_kubeconfig(None)
    assert merged.current_context == current == expected["current-context"]
    (context,) = expected["contexts"]
    (cluster,) = expected["clusters"]
    assert merged.choose(None) == context["name"]
    assert merged.namespace(context["name"]) == context["context"].get("namespace", "default")
    assert merged.cluster_of(context["name"]) == cluster["name"]
    assert merged.clusters[cluster["name"]]["server"] == cluster["cluster"]["server"]
    assert kube_contexts(None).current == current


def test_nodes_reads_the_cluster_kubectl_reads(
    cli: Cli, apiserver: FakeKubeAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """KUBECONFIG=a:b with a's current context dead: kubectl is refused, and so must we be."""
    apiserver.add(node("i-0live", capacity={"nvidia.com/gpu": "1"}))
    documents = json.loads(json.dumps(CASES["first current-context wins"]).replace(LIVE, apiserver.url))
    listed = _write(tmp_path, *documents)
    assert _kubectl(tmp_path, listed, "get", "nodes", "--request-timeout", "5s").returncode != 0
    monkeypatch.setenv("KUBECONFIG", listed)
    refused = cli("nodes", "-o", "json")
    assert refused.code == 3 and "127.0.0.1:1" in refused.err, refused.err
    assert cli("snapshot", "--out", str(tmp_path / "b.json")).code == 3
    # --context overrides current-context, as kubectl's does.
    chosen = cli("nodes", "-o", "json", "--context", "live")
    assert chosen.code == 0, chosen.err
    assert [row["name"] for row in json.loads(chosen.out)["nodes"]] == ["i-0live"]
    # --kubeconfig is that file alone: its own current-context.
    alone = cli("nodes", "-o", "json", "--kubeconfig", listed.split(os.pathsep)[1])
    assert alone.code == 0, alone.err


def test_a_relative_token_file_is_read_beside_its_kubeconfig(
    cli: Cli, tls_apiserver: FakeKubeAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """client-go resolves relative paths against the file the entry came from, not the working directory
    (the token file's and the CA's; a token goes to an https server only, as kubectl's)."""
    tls_apiserver.require_token = "s3cret-token"
    second = tmp_path / "elsewhere"
    second.mkdir()
    (second / "token").write_text("s3cret-token\n")
    (second / "ca.pem").write_bytes(tls_apiserver.ca_pem or b"")
    first = _config({}, {"ctx": {"cluster": "c"}}, "ctx", users={})
    user = _config({"c": tls_apiserver.url}, {}, users={"u": {"tokenFile": "token"}})
    user["clusters"][0]["cluster"]["certificate-authority"] = "ca.pem"
    (tmp_path / "first").write_text(json.dumps(first))
    (second / "config").write_text(json.dumps(user))
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(tmp_path / "first"), str(second / "config")]))
    monkeypatch.chdir(tmp_path)
    result = cli("nodes", "-o", "json")
    assert result.code == 0, result.err


def test_a_name_twice_in_one_file_is_refused_as_kubectl_does(tmp_path: Path) -> None:
    document = _config({"c": CLOSED_PORT_SERVER}, {"ctx": {"cluster": "c"}}, "ctx")
    document["clusters"].append({"name": "c", "cluster": {"server": "http://127.0.0.1:2"}})
    listed = _write(tmp_path, document)
    assert _kubectl(tmp_path, listed, "config", "current-context").returncode != 0
    with pytest.raises(InvalidInput, match="duplicate name 'c' in clusters"):
        load_kubeconfig(listed)


# --- item 2: the context's namespace ------------------------------------------------------------------


def _namespaced(tmp_path: Path, server: str) -> Path:
    path = tmp_path / "kubeconfig"
    path.write_text(json.dumps(_config({"c": server}, {"ctx": {"cluster": "c", "namespace": "ml"}}, "ctx")))
    return path


def test_explain_finds_a_pod_in_the_contexts_namespace(
    cli: Cli, apiserver: FakeKubeAPI, tmp_path: Path
) -> None:
    apiserver.add(pod("batch-spot", "ml", phase="Pending", requests={"nvidia.com/gpu": "1"}))
    kubeconfig = _namespaced(tmp_path, apiserver.url)
    found = _kubectl(tmp_path, str(kubeconfig), "get", "pod", "batch-spot", "-o", "name")
    assert found.stdout.strip() == "pod/batch-spot", found.stderr
    result = cli("explain", "batch-spot", "--kubeconfig", str(kubeconfig), "-o", "json")
    assert result.code in (0, 1) and "not found" not in result.err, result.err
    assert [p["namespace"] for p in json.loads(result.out)["pods"]] == ["ml"]
    # -n still overrides it, as kubectl's does.
    other = cli("explain", "batch-spot", "--kubeconfig", str(kubeconfig), "-n", "default")
    assert other.code == 2 and "pod default/batch-spot not found" in other.err


def test_debug_pods_go_to_the_contexts_namespace(cli: Cli, apiserver: FakeKubeAPI, tmp_path: Path) -> None:
    apiserver.add(node("i-0gpu", capacity={"nvidia.com/gpu": "1"}))
    kubeconfig = _namespaced(tmp_path, apiserver.url)
    result = cli("shell", "i-0gpu", "--dry-run", "--kubeconfig", str(kubeconfig))
    assert result.code == 0, result.err
    assert "namespace: ml" in result.out, result.out
