"""Issue 36 item 3: the identity and TLS rules kubectl has, resolved once (`kube.connection`).

Every case that kubectl can answer is asked of the real kubectl too, on the same kubeconfig with the same
flags against the same fake API server, and both are held to the same answer: the same `Impersonate-*`
headers (each repeated one as often), the same `Authorization` (or none), the same refusal in the same words.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.errors import ClusterError, InvalidInput
from kubectl_gpu.kube.connection import ConnectionFlags, Impersonation, namespace_problems, resolve
from kubectl_gpu.kube.source import LiveClusterSource, SourceOptions
from tests.helpers import node
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import CLOSED_PORT_SERVER, KUBECTL
from tests.kube.wire import RecordedRequest

needs_kubectl = pytest.mark.skipif(not os.path.exists(KUBECTL), reason="kubectl is not installed")

IMPERSONATING = {
    "as": "alice",
    "as-groups": ["system:masters", "gpu-admins"],
    "as-uid": "u-1",
    "as-user-extra": {"scopes": ["view", "edit"], "example.com/team name%": ["ml"]},
}


def _kubeconfig(
    path: Path,
    server: str,
    user: dict[str, Any],
    *,
    ca_pem: bytes | None = None,
    cluster: dict[str, Any] | None = None,
    namespace: str | None = None,
) -> Path:
    """Context `test` (cluster `test`, user `test`); also a cluster `closed` (a closed port) and a user
    `other` (token `other-token-1`)."""
    body: dict[str, Any] = {"server": server, **(cluster or {})}
    if ca_pem is not None:
        body["certificate-authority-data"] = base64.b64encode(ca_pem).decode()
    context: dict[str, Any] = {"cluster": "test", "user": "test"}
    if namespace:
        context["namespace"] = namespace
    document = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": "test", "cluster": body},
            {"name": "closed", "cluster": {"server": CLOSED_PORT_SERVER}},
        ],
        "users": [{"name": "test", "user": user}, {"name": "other", "user": {"token": "other-token-1"}}],
        "contexts": [{"name": "test", "context": context}],
        "current-context": "test",
    }
    path.write_text(json.dumps(document))
    return path


def _kubectl(kubeconfig: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")} | {"HOME": str(tmp_path)}
    cmd = [KUBECTL, "--kubeconfig", str(kubeconfig), "--cache-dir", str(tmp_path / "kube-cache"), *args]
    return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, env=env)


def _identity(request: RecordedRequest) -> list[tuple[str, str]]:
    """The headers that say who asks: `Impersonate-*` as sent (Go's canonical names, each repeated one
    as often), `Authorization` by value (its name's case is the client's)."""
    lines = [(k, v) for k, v in request.header_lines if k.lower().startswith("impersonate-")]
    lines += [("Authorization", v) for k, v in request.header_lines if k.lower() == "authorization"]
    return sorted(lines)


def _nodes_request(api: FakeKubeAPI) -> RecordedRequest:
    (request,) = [r for r in api.requests if r.path == "/api/v1/nodes"]
    return request


def _ours(api: FakeKubeAPI, kubeconfig: Path, flags: ConnectionFlags) -> list[tuple[str, str]]:
    api.requests.clear()
    LiveClusterSource(SourceOptions(kubeconfig=str(kubeconfig), flags=flags)).load(["nodes"])
    return _identity(_nodes_request(api))


def _kubectls(api: FakeKubeAPI, kubeconfig: Path, tmp_path: Path, *args: str) -> list[tuple[str, str]]:
    api.requests.clear()
    done = _kubectl(kubeconfig, tmp_path, "get", "nodes", *args)
    assert done.returncode == 0, done.stderr
    return _identity(_nodes_request(api))


@pytest.fixture
def both() -> Iterator[tuple[FakeKubeAPI, FakeKubeAPI]]:
    """An https server and an http one."""
    with FakeKubeAPI(tls=True) as https, FakeKubeAPI() as http:
        for api in (https, http):
            api.add(node("n1"))
        yield https, http


FLAG_CASES = [
    pytest.param(ConnectionFlags(), [], id="kubeconfig"),
    pytest.param(
        ConnectionFlags(as_user="bob", as_groups=("a", "b", "a"), token="flag-token-1"),
        ["--as", "bob", "--as-group", "a", "--as-group", "b", "--as-group", "a", "--token", "flag-token-1"],
        id="flags-over-kubeconfig",
    ),
    pytest.param(ConnectionFlags(as_uid="u-2"), ["--as-uid", "u-2"], id="uid-flag"),
    pytest.param(ConnectionFlags(user="other"), ["--user", "other"], id="other-user"),
]


@needs_kubectl
@pytest.mark.parametrize("scheme", ["https", "http"])
@pytest.mark.parametrize(("flags", "args"), FLAG_CASES)
def test_identity_headers_are_kubectls(
    both: tuple[FakeKubeAPI, FakeKubeAPI],
    tmp_path: Path,
    scheme: str,
    flags: ConnectionFlags,
    args: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Same kubeconfig, same flags: the same Impersonate-* headers and the same Authorization (none over
    http) reach the server from kubectl and from us."""
    api = both[0] if scheme == "https" else both[1]
    user = {"token": "kubeconfig-token-1", **IMPERSONATING}
    kubeconfig = _kubeconfig(tmp_path / "kubeconfig", api.url, user, ca_pem=api.ca_pem)
    theirs = _kubectls(api, kubeconfig, tmp_path, *args)
    assert _ours(api, kubeconfig, flags) == theirs
    authorization = [v for k, v in theirs if k == "Authorization"]
    if scheme == "http":
        assert authorization == []
    else:
        expected = "other-token-1" if flags.user else flags.token or "kubeconfig-token-1"
        assert authorization == [f"Bearer {expected}"]
    if flags.user != "other":
        groups = [v for k, v in theirs if k == "Impersonate-Group"]
        assert groups == sorted(flags.as_groups or IMPERSONATING["as-groups"])
        assert ("Impersonate-Extra-Example.com%2fteam%20name%25", "ml") in theirs
    capsys.readouterr()


def test_impersonation_headers_in_client_gos_form() -> None:
    found = Impersonation("alice", "u-1", ("g1", "g2"), (("scopes", ("a", "b")), ("x/Y z", ("v",))))
    assert found.headers() == [
        ("Impersonate-User", "alice"),
        ("Impersonate-Uid", "u-1"),
        ("Impersonate-Group", "g1"),
        ("Impersonate-Group", "g2"),
        ("Impersonate-Extra-Scopes", "a"),
        ("Impersonate-Extra-Scopes", "b"),
        ("Impersonate-Extra-X%2fy%20z", "v"),
    ]
    assert Impersonation().headers() == []


@needs_kubectl
@pytest.mark.parametrize("how", ["token", "tokenFile", "exec", "flag"])
def test_no_credential_goes_to_an_http_server_as_kubectl(
    both: tuple[FakeKubeAPI, FakeKubeAPI], tmp_path: Path, how: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """kubectl reads the user's credentials only for an https server: nothing over http, no plugin run.
    We do the same, and say so once."""
    _, api = both
    ran = tmp_path / "plugin-ran"
    plugin = tmp_path / "plugin.py"
    plugin.write_text(f"import pathlib\npathlib.Path({str(ran)!r}).write_text('1')\n")
    token_file = tmp_path / "token"
    token_file.write_text("file-token-1\n")
    users = {
        "token": {"token": "kubeconfig-token-1"},
        "tokenFile": {"tokenFile": str(token_file)},
        "exec": {
            "exec": {
                "apiVersion": "client.authentication.k8s.io/v1",
                "command": sys.executable,
                "args": [str(plugin)],
                "interactiveMode": "Never",
            }
        },
        "flag": {},
    }
    kubeconfig = _kubeconfig(tmp_path / "kubeconfig", api.url, users[how])
    args = ["--token", "flag-token-1"] if how == "flag" else []
    assert _kubectls(api, kubeconfig, tmp_path, *args) == []
    flags = ConnectionFlags(token="flag-token-1" if how == "flag" else None)
    assert _ours(api, kubeconfig, flags) == []
    assert not ran.exists()
    (warning,) = capsys.readouterr().err.splitlines()
    assert warning.startswith(f"warning: {api.url} is not https: the ") and "not sent" in warning
    assert "token-1" not in warning


@needs_kubectl
def test_a_server_without_a_scheme_is_http_as_kubectl_reads_it(
    both: tuple[FakeKubeAPI, FakeKubeAPI], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, api = both
    kubeconfig = _kubeconfig(tmp_path / "kubeconfig", CLOSED_PORT_SERVER, {"token": "kubeconfig-token-1"})
    bare = api.url.removeprefix("http://")
    assert _kubectls(api, kubeconfig, tmp_path, "--server", bare) == []
    assert _ours(api, kubeconfig, ConnectionFlags(server=bare)) == []
    capsys.readouterr()


@needs_kubectl
@pytest.mark.parametrize(
    ("user", "args", "sent"),
    [
        pytest.param(
            {"exec": {"command": "/bin/false"}}, ["--token", "flag-token-1"], "flag-token-1", id="exec"
        ),
        pytest.param(
            {"tokenFile": "TOKEN_FILE"}, ["--token", "flag-token-1"], "file-token-1", id="tokenFile"
        ),
        pytest.param(
            {"token": "kubeconfig-token-1"}, ["--token", "flag-token-1"], "flag-token-1", id="token"
        ),
    ],
)
def test_token_flag_precedence_is_kubectls(
    both: tuple[FakeKubeAPI, FakeKubeAPI], tmp_path: Path, user: dict[str, Any], args: list[str], sent: str
) -> None:
    """--token over the kubeconfig's user: an exec plugin is not run; a readable tokenFile still wins (client-go
    reads it for every request)."""
    api, _ = both
    token_file = tmp_path / "token"
    token_file.write_text("file-token-1\n")
    if "exec" in user:
        user = {
            "exec": {
                "apiVersion": "client.authentication.k8s.io/v1",
                "interactiveMode": "Never",
                **user["exec"],
            }
        }
    if user.get("tokenFile"):
        user = {"tokenFile": str(token_file)}
    kubeconfig = _kubeconfig(tmp_path / "kubeconfig", api.url, user, ca_pem=api.ca_pem)
    assert _kubectls(api, kubeconfig, tmp_path, *args) == [("Authorization", f"Bearer {sent}")]
    assert _ours(api, kubeconfig, ConnectionFlags(token=args[1])) == [("Authorization", f"Bearer {sent}")]


@needs_kubectl
def test_server_flag_replaces_the_clusters(both: tuple[FakeKubeAPI, FakeKubeAPI], tmp_path: Path) -> None:
    """-s/--server over a cluster whose server is a closed port, and whose tls-server-name would fail:
    --server clears it, as kubectl's."""
    api, _ = both
    cluster = {"tls-server-name": "wrong.example"}
    kubeconfig = _kubeconfig(
        tmp_path / "kubeconfig", CLOSED_PORT_SERVER, {"token": "t-123456"}, cluster=cluster
    )
    config = json.loads(kubeconfig.read_text())
    config["clusters"][0]["cluster"]["certificate-authority-data"] = base64.b64encode(
        api.ca_pem or b""
    ).decode()
    kubeconfig.write_text(json.dumps(config))
    assert _kubectls(api, kubeconfig, tmp_path, "--server", api.url) == [("Authorization", "Bearer t-123456")]
    assert _ours(api, kubeconfig, ConnectionFlags(server=api.url)) == [("Authorization", "Bearer t-123456")]


def test_tls_server_name_is_the_name_verified(both: tuple[FakeKubeAPI, FakeKubeAPI], tmp_path: Path) -> None:
    """The certificate is for 127.0.0.1 and localhost: --tls-server-name localhost verifies, another name
    does not (a TLS error, exit 3)."""
    api, _ = both
    kubeconfig = _kubeconfig(tmp_path / "kubeconfig", api.url, {"token": "t-123456"}, ca_pem=api.ca_pem)
    assert _ours(api, kubeconfig, ConnectionFlags(tls_server_name="localhost"))
    with pytest.raises(ClusterError, match="TLS error"):
        _ours(api, kubeconfig, ConnectionFlags(tls_server_name="wrong.example"))


@needs_kubectl
def test_certificate_authority_flag_and_insecure_flag(
    both: tuple[FakeKubeAPI, FakeKubeAPI], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api, _ = both
    ca = tmp_path / "ca.pem"
    ca.write_bytes(api.ca_pem or b"")
    untrusted = _kubeconfig(tmp_path / "kubeconfig", api.url, {"token": "t-123456"})
    with pytest.raises(ClusterError, match="TLS error"):
        _ours(api, untrusted, ConnectionFlags())
    expected = [("Authorization", "Bearer t-123456")]
    assert _kubectls(api, untrusted, tmp_path, "--certificate-authority", str(ca)) == expected
    assert _ours(api, untrusted, ConnectionFlags(certificate_authority=str(ca))) == expected
    # --insecure-skip-tls-verify over a kubeconfig with a CA (a wrong one here): the CA is dropped
    other = FakeKubeAPI(tls=True).start()
    try:
        wrong_ca = _kubeconfig(tmp_path / "wrong-ca", api.url, {"token": "t-123456"}, ca_pem=other.ca_pem)
    finally:
        other.stop()
    assert _kubectls(api, wrong_ca, tmp_path, "--insecure-skip-tls-verify") == expected
    capsys.readouterr()
    assert _ours(api, wrong_ca, ConnectionFlags(insecure_skip_tls_verify=True)) == expected
    assert "is not verified (--insecure-skip-tls-verify)" in capsys.readouterr().err


@needs_kubectl
@pytest.mark.parametrize(
    ("cluster", "user", "args", "flags"),
    [
        pytest.param({"insecure-skip-tls-verify": True}, {}, [], ConnectionFlags(), id="kubeconfig-both"),
        pytest.param(
            {}, {}, ["--insecure-skip-tls-verify", "--certificate-authority", "CA"], None, id="flags-both"
        ),
        pytest.param(
            {"insecure-skip-tls-verify": True},
            {},
            ["--insecure-skip-tls-verify=false"],
            ConnectionFlags(),
            id="false",
        ),
        pytest.param({}, IMPERSONATING | {"as": ""}, [], ConnectionFlags(), id="groups-without-user"),
        pytest.param(
            {}, {}, ["--as-group", "g"], ConnectionFlags(as_groups=("g",)), id="as-group-flag-alone"
        ),
        pytest.param(
            {}, {"username": "u", "password": "p"}, ["--token", "x"], ConnectionFlags(token="x"), id="basic"
        ),
        pytest.param({}, {}, ["--user", "nope"], ConnectionFlags(user="nope"), id="unknown-user"),
        pytest.param({}, {}, ["--cluster", "nope"], ConnectionFlags(cluster="nope"), id="unknown-cluster"),
    ],
)
def test_refusals_are_kubectls_words(
    both: tuple[FakeKubeAPI, FakeKubeAPI],
    tmp_path: Path,
    cluster: dict[str, Any],
    user: dict[str, Any],
    args: list[str],
    flags: ConnectionFlags | None,
) -> None:
    """What kubectl refuses before sending anything, we refuse as bad input (exit 2), in its words."""
    api, _ = both
    ca = tmp_path / "ca.pem"
    ca.write_bytes(api.ca_pem or b"")
    args = [str(ca) if a == "CA" else a for a in args]
    flags = flags or ConnectionFlags(insecure_skip_tls_verify=True, certificate_authority=str(ca))
    user = user or {"token": "t-123456"}  # (kubectl asks an anonymous https user for a name first)
    kubeconfig = _kubeconfig(tmp_path / "kubeconfig", api.url, user, ca_pem=api.ca_pem, cluster=cluster)
    theirs = _kubectl(kubeconfig, tmp_path, "get", "nodes", *args)
    assert theirs.returncode == 1
    said = theirs.stderr.strip().removeprefix("error: ")
    with pytest.raises(InvalidInput) as refused:
        resolve(str(kubeconfig), None, 30.0, flags)
    assert refused.value.message == said
    assert refused.value.exit_code == 2


def test_certificate_authority_flag_overrides_a_kubeconfig_with_both(
    both: tuple[FakeKubeAPI, FakeKubeAPI], tmp_path: Path
) -> None:
    api, _ = both
    ca = tmp_path / "ca.pem"
    ca.write_bytes(api.ca_pem or b"")
    cluster = {"insecure-skip-tls-verify": True}
    kubeconfig = _kubeconfig(
        tmp_path / "kubeconfig", api.url, {"token": "t-123456"}, ca_pem=api.ca_pem, cluster=cluster
    )
    with pytest.raises(InvalidInput, match="root certificates file with the insecure flag"):
        resolve(str(kubeconfig), None, 30.0)
    flags = ConnectionFlags(certificate_authority=str(ca))
    assert _ours(api, kubeconfig, flags) == [("Authorization", "Bearer t-123456")]
    assert resolve(str(kubeconfig), None, 30.0, flags).tls == "verified"


@needs_kubectl
@pytest.mark.parametrize("name", ["a/../x", "..", ".", "ns%2F", "a/%"])
def test_a_namespace_that_is_no_path_segment_is_refused_in_kubectls_words(
    both: tuple[FakeKubeAPI, FakeKubeAPI], tmp_path: Path, name: str
) -> None:
    _, api = both
    kubeconfig = _kubeconfig(tmp_path / "kubeconfig", api.url, {})
    theirs = _kubectl(kubeconfig, tmp_path, "get", "pods", "-n", name)
    assert theirs.returncode == 1
    with pytest.raises(InvalidInput) as refused:
        resolve(str(kubeconfig), None, 30.0, ConnectionFlags(namespace=name))
    assert refused.value.message == theirs.stderr.strip()


@pytest.mark.parametrize(
    ("name", "problems"),
    [
        ("ml", []),
        ("a-1", []),
        ("x" * 63, []),
        ("x" * 64, ["must be no more than 63 characters"]),
        ("ML", ["a lowercase RFC 1123 label"]),
        ("a_b", ["a lowercase RFC 1123 label"]),
        ("-a", ["a lowercase RFC 1123 label"]),
        ("a-", ["a lowercase RFC 1123 label"]),
        ("a.b", ["a lowercase RFC 1123 label"]),
        ("..", ["may not be '..'"]),
        ("a/b%", ["may not contain '/'", "may not contain '%'"]),
    ],
)
def test_namespace_names(name: str, problems: list[str]) -> None:
    found = namespace_problems(name)
    assert len(found) == len(problems) and all(f.startswith(p) for f, p in zip(found, problems, strict=True))


def test_the_namespace_is_decided_in_one_place(tmp_path: Path) -> None:
    """-n, else the context's namespace, else default; a context's bad namespace is refused when used."""
    plain = _kubeconfig(tmp_path / "plain", CLOSED_PORT_SERVER, {})
    in_ml = _kubeconfig(tmp_path / "ml", CLOSED_PORT_SERVER, {}, namespace="ml")
    bad = _kubeconfig(tmp_path / "bad", CLOSED_PORT_SERVER, {}, namespace="Bad_NS")
    assert resolve(str(plain), None, 30.0).namespace == "default"
    assert resolve(str(in_ml), None, 30.0).namespace == "ml"
    assert resolve(str(in_ml), None, 30.0, ConnectionFlags(namespace="other")).namespace == "other"
    connection = resolve(str(bad), None, 30.0)
    assert connection.default_namespace == "Bad_NS"
    with pytest.raises(InvalidInput, match='invalid namespace "Bad_NS"') as refused:
        _ = connection.namespace
    assert "the namespace of context 'test'" in str(refused.value.hint)
    assert resolve(str(bad), None, 30.0, ConnectionFlags(namespace="ml")).namespace == "ml"


def test_describe_names_the_connection_and_no_credential(tmp_path: Path) -> None:
    user = {"token": "kubeconfig-token-1", **IMPERSONATING}
    kubeconfig = _kubeconfig(tmp_path / "kubeconfig", "https://admin:hunter22@127.0.0.1:1", user)
    flags = ConnectionFlags(
        token="flag-token-1", as_groups=("g",), insecure_skip_tls_verify=True, namespace="ml"
    )
    text = "\n".join(resolve(str(kubeconfig), None, 5.0, flags).describe())
    for secret in ("kubeconfig-token-1", "flag-token-1", "hunter22"):
        assert secret not in text
    assert "server https://<redacted>@127.0.0.1:1" in text
    assert "user 'test': bearer token (--token)" in text
    assert "impersonating: 'alice'; groups 'g'; uid 'u-1'" in text
    assert "TLS: insecure" in text and "namespace: ml (from -n); request timeout 5s" in text
    http = "\n".join(
        resolve(str(kubeconfig), None, None, ConnectionFlags(server="http://127.0.0.1:1")).describe()
    )
    assert "TLS: none (http)" in http and "credentials are not sent" in http and "timeout none" in http


@needs_kubectl
def test_server_flag_alone_needs_no_kubeconfig_as_kubectl(
    both: tuple[FakeKubeAPI, FakeKubeAPI], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """KUBECONFIG names a file that does not exist, and ~/.kube/config is absent: `--server URL
    --insecure-skip-tls-verify --token T` is the whole connection for kubectl (client-go's DirectClientConfig
    with an empty context), and for us."""
    api, _ = both
    missing = str(tmp_path / "no-such-kubeconfig")
    args = ["--server", api.url, "--insecure-skip-tls-verify", "--token", "flag-token-1"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")}
    env |= {"HOME": str(tmp_path), "KUBECONFIG": missing}
    api.requests.clear()
    done = subprocess.run(
        [KUBECTL, "--cache-dir", str(tmp_path / "cache"), "get", "nodes", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert _identity(_nodes_request(api)) == [("Authorization", "Bearer flag-token-1")]
    monkeypatch.setenv("KUBECONFIG", missing)
    monkeypatch.setenv("HOME", str(tmp_path))
    api.requests.clear()
    flags = ConnectionFlags(server=api.url, insecure_skip_tls_verify=True, token="flag-token-1")
    LiveClusterSource(SourceOptions(flags=flags)).load(["nodes"])
    assert _identity(_nodes_request(api)) == [("Authorization", "Bearer flag-token-1")]


def test_no_kubeconfig_and_no_server_is_still_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "no-such-kubeconfig"))
    with pytest.raises(ClusterError, match="no kubeconfig file found"):
        resolve(None, None, None)


def test_a_token_file_is_read_again_once_its_token_is_a_minute_old(
    both: tuple[FakeKubeAPI, FakeKubeAPI], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """client-go's cached file token source: a rotated token (a projected service-account token) reaches
    the server once the one read is a minute old; a file that cannot be read then keeps the last token."""
    from kubernetes import client

    from kubectl_gpu.kube import credentials

    api, _ = both
    now = [1000.0]
    monkeypatch.setattr(credentials, "_monotonic", lambda: now[0])
    token_file = tmp_path / "token"
    token_file.write_text("rotated-token-1\n")
    kubeconfig = _kubeconfig(
        tmp_path / "kubeconfig", api.url, {"tokenFile": str(token_file)}, ca_pem=api.ca_pem
    )
    nodes = client.CoreV1Api(credentials.connect(resolve(str(kubeconfig), None, None)))

    def sent() -> list[tuple[str, str]]:
        api.requests.clear()
        nodes.list_node(_preload_content=False).release_conn()
        # The last one: urllib3 sends a GET again on a new connection when the kept-alive one was closed
        # under it, and the server saw both (once in CI, on a busy machine); both carry the same token.
        *_, last = [r for r in api.requests if r.path == "/api/v1/nodes"]
        return _identity(last)

    assert sent() == [("Authorization", "Bearer rotated-token-1")]
    token_file.write_text("rotated-token-2\n")
    now[0] += credentials.TOKEN_FILE_PERIOD - 1
    assert sent() == [("Authorization", "Bearer rotated-token-1")]  # not yet a minute old
    now[0] += 1
    assert sent() == [("Authorization", "Bearer rotated-token-2")]
    token_file.unlink()
    now[0] += credentials.TOKEN_FILE_PERIOD
    assert sent() == [("Authorization", "Bearer rotated-token-2")]
