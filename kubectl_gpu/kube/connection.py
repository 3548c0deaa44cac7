"""The connection, resolved once: which server, as whom, over what TLS, in which namespace, with which timeout.

kubectl's rules (client-go's `clientcmd.DirectClientConfig`), applied to the kubeconfig merged as kubectl
merges it (`kube.kubeconfig`) and to kubectl's flags (`ConnectionFlags`), which override it:

- `--context` picks the context; `--cluster` and `--user` replace the context's cluster and user (a `--user`
  the kubeconfig lacks is bad input: `auth info "x" does not exist`; a cluster without a server too:
  `no server found for cluster "x"`).
- `-s/--server` replaces the cluster's server (with no kubeconfig or no current-context, it is the whole
  cluster, as kubectl's `DirectClientConfig` with an empty context), and then the cluster's `tls-server-name` too (with
  `--tls-server-name`, or none). `--certificate-authority` replaces the cluster's CA (file and data) and
  its `insecure-skip-tls-verify`; `--insecure-skip-tls-verify` drops the cluster's CA. A cluster left with
  a CA and `insecure-skip-tls-verify` both is refused with kubectl's words: `specifying a root certificates
  file with the insecure flag is not allowed`.
- `--token` becomes the user's token: an exec plugin or auth provider is then not run, a client
  certificate stays. As client-go, a `tokenFile` that can be read wins over a token (read again once its token is
  a minute old, as client-go's cached file token source: `kube.credentials.TokenFileHook`). A token with a username/password is refused as kubectl does.
- Impersonation: the user's `as`, `as-groups`, `as-uid`, `as-user-extra`, each replaced by `--as`,
  `--as-group` (repeatable), `--as-uid` when given; groups, uid or extra without a user are refused. They go
  to the server as client-go sends them (`Impersonation.headers`), over http too.
- **Credentials only over TLS**: as client-go reads a kubeconfig, the user's credentials (token,
  tokenFile, exec plugin, auth provider, username/password, client certificate) are used only when the
  server's URL is `https://`; to an `http://` server (or one without a scheme, which kubectl reads as
  http) nothing is sent, and no plugin is run. A warning says so when there was something to withhold.
- The namespace: `-n`, else the context's `namespace`, else `default` (`Connection.namespace`), checked to
  be a namespace name (`check_namespace`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.k8s.times import go_duration
from kubectl_gpu.core.lazy_pattern import lazy_pattern

if TYPE_CHECKING:
    from kubernetes import client

    from kubectl_gpu.kube.kubeconfig import Kubeconfig

__all__ = [
    "Connection",
    "ConnectionFlags",
    "Impersonation",
    "check_namespace",
    "context_label",
    "context_namespace",
    "go_quote",
    "namespace_problems",
    "resolve",
]

#: apimachinery's `IsDNS1123Label` message (`validation.RegexError` with its examples), v1.32.
DNS1123_LABEL_MESSAGE = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
    "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
_LABEL = lazy_pattern(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_LABEL_MAX = 63
_NAMESPACE_HINT = (
    "a namespace is lowercase letters, digits and '-', at most 63, starting and ending alphanumeric"
)
#: The user fields that identify the user (kubectl reads them only for an https server).
_CREDENTIALS = (
    "token",
    "tokenFile",
    "exec",
    "auth-provider",
    "username",
    "password",
    "client-certificate",
    "client-certificate-data",
    "client-key",
    "client-key-data",
)
_CA_FIELDS = ("certificate-authority", "certificate-authority-data")
_CA_WITH_INSECURE = "specifying a root certificates file with the insecure flag is not allowed"


def go_quote(text: str) -> str:
    """`text` as Go's `%q` writes it (kubectl's messages quote names so)."""
    named = {'"': '\\"', "\\": "\\\\", "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r"}
    named |= {"\t": "\\t", "\v": "\\v"}
    out = []
    for char in text:
        if char in named:
            out.append(named[char])
        elif char.isprintable():
            out.append(char)
        elif ord(char) < 0x80:
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'


def context_label(name: str | None) -> str:
    """A context as messages name it; none ("": `-s/--server` without a kubeconfig context) says so."""
    if name is None:
        return "the current context"
    return f"context {name!r}" if name else "the server of -s/--server (no kubeconfig context)"


def namespace_problems(name: str) -> list[str]:
    """What makes `name` no namespace name, in kubectl's words: first the path-segment rules kubectl checks
    before sending anything (`rest.IsValidPathSegmentName`), then apimachinery's DNS-1123 label rules
    (what the API server would answer)."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    segment = [f"may not contain '{char}'" for char in ("/", "%") if char in name]
    if segment:
        return segment
    problems = []
    if len(name) > _LABEL_MAX:
        problems.append(f"must be no more than {_LABEL_MAX} characters")
    if not _LABEL.fullmatch(name):
        problems.append(DNS1123_LABEL_MESSAGE)
    return problems


def check_namespace(name: str, hint: str | None = None) -> str:
    """`name`, or bad input as kubectl words it: `invalid namespace "a/b": [may not contain '/']`."""
    problems = namespace_problems(name)
    if problems:
        raise InvalidInput(
            f"invalid namespace {go_quote(name)}: [{' '.join(problems)}]", hint or _NAMESPACE_HINT
        )
    return name


class Impersonation(msgspec.Struct, frozen=True):
    """Who the server is asked to treat us as (kubectl's `--as`, `--as-group`, `--as-uid`)."""

    user: str = ""
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (key, values), keys in the kubeconfig's order

    @property
    def active(self) -> bool:
        return bool(self.user or self.uid or self.groups or self.extra)

    def headers(self) -> list[tuple[str, str]]:
        """The headers as client-go's `ImpersonatingRoundTripper` sends them: one `Impersonate-Group` per
        group, one `Impersonate-Extra-<key>` per value, the key %-escaped and every name in Go's canonical
        form (`textproto.CanonicalMIMEHeaderKey`)."""
        if not self.active:
            return []
        headers = [("Impersonate-User", self.user)]
        if self.uid:
            headers.append(("Impersonate-Uid", self.uid))
        headers += [("Impersonate-Group", group) for group in self.groups]
        for key, values in self.extra:
            name = _canonical("Impersonate-Extra-" + _escape_key(key))
            headers += [(name, value) for value in values]
        return headers

    def describe(self) -> str:
        if not self.active:
            return "none"
        parts = [repr(self.user)]
        if self.groups:
            parts.append("groups " + ", ".join(map(repr, self.groups)))
        if self.uid:
            parts.append(f"uid {self.uid!r}")
        if self.extra:
            parts.append("extra " + ", ".join(f"{k}={','.join(v)}" for k, v in self.extra))
        return "; ".join(parts)


#: The bytes Go allows in a header name (`httpguts.IsTokenRune`); client-go %-escapes the rest, and '%'.
_TOKEN = frozenset(b"!#$&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def _escape_key(key: str) -> str:
    return "".join(chr(b) if b in _TOKEN else f"%{b:02X}" for b in key.encode())


def _canonical(name: str) -> str:
    return "-".join(part[:1].upper() + part[1:].lower() for part in name.split("-"))


class ConnectionFlags(msgspec.Struct, frozen=True):
    """kubectl's flags that override the kubeconfig (client-go's `ConfigOverrides`), as given; `debug`
    prints the resolved connection on stderr."""

    cluster: str | None = None
    user: str | None = None
    server: str | None = None
    token: str | None = None
    certificate_authority: str | None = None
    insecure_skip_tls_verify: bool = False
    tls_server_name: str | None = None
    as_user: str | None = None
    as_groups: tuple[str, ...] = ()
    as_uid: str | None = None
    namespace: str | None = None
    debug: bool = False

    def argv(self) -> list[str]:
        """The same flags for a `kubectl` we run (`kubectl exec` of `shell`), so it connects as we do."""
        args: list[str] = []
        for flag, value in (
            ("--cluster", self.cluster),
            ("--user", self.user),
            ("--server", self.server),
            ("--token", self.token),
            ("--certificate-authority", self.certificate_authority),
            ("--tls-server-name", self.tls_server_name),
            ("--as", self.as_user),
            ("--as-uid", self.as_uid),
        ):
            if value:
                args += [flag, value]
        for group in self.as_groups:
            args += ["--as-group", group]
        if self.insecure_skip_tls_verify:
            args.append("--insecure-skip-tls-verify")
        return args

    def pinned(self) -> list[str]:
        """The flags that point every context at one cluster or one identity (refused in fleet mode)."""
        names = {
            "--cluster": self.cluster,
            "--user": self.user,
            "-s/--server": self.server,
            "--token": self.token,
            "--certificate-authority": self.certificate_authority,
            "--tls-server-name": self.tls_server_name,
        }
        return [name for name, value in names.items() if value]


TlsMode = Literal["none (http)", "verified", "insecure"]


class Connection(msgspec.Struct, frozen=True, dict=True):
    """One resolved connection: what `resolve` decided, and the client built from it (`client()`)."""

    kubeconfig: Kubeconfig  # the merged files, as read
    context: str
    cluster_name: str
    user_name: str
    cluster: dict[str, Any]  # the effective cluster entry (flags applied)
    user: dict[str, Any]  # the effective user entry (flags applied, credentials withheld over http)
    impersonation: Impersonation
    request_timeout: float | None
    flags: ConnectionFlags
    default_namespace: str  # -n, else the context's, else `default`, as given (see `namespace`)
    namespace_from: Literal["-n", "context", "default"] = "default"
    withheld: tuple[str, ...] = ()  # the user's credential fields not sent (an http server)

    @property
    def server(self) -> str:
        return str(self.cluster.get("server") or "")

    @property
    def namespace(self) -> str:
        """Where namespaced requests go (debug pods, `explain NAME`); bad input when it is no namespace
        name (a context's is checked here, when used, as kubectl checks it per request)."""
        hint = None
        if self.namespace_from == "context":
            hint = f"the namespace of context {self.context!r}: fix it in the kubeconfig, or pass -n"
        return check_namespace(self.default_namespace, hint)

    @property
    def tls(self) -> TlsMode:
        if not self.server.lower().startswith("https://"):
            return "none (http)"
        return "insecure" if self.cluster.get("insecure-skip-tls-verify") is True else "verified"

    def auth(self) -> str:
        """How the user is identified, in words (never the credential)."""
        user = self.user
        if self.withheld:
            return "none: the server is not https, the user's credentials are not sent"
        found = []
        if user.get("token") or user.get("tokenFile"):
            token_from = "--token" if self.flags.token and not user.get("tokenFile") else None
            token_from = token_from or ("tokenFile" if user.get("tokenFile") else "token")
            found.append(f"bearer token ({token_from})")
        elif user.get("exec"):
            command = (user.get("exec") or {}).get("command")
            found.append(f"exec plugin {os.path.basename(str(command))}")
        elif user.get("auth-provider"):
            found.append(f"auth provider {(user.get('auth-provider') or {}).get('name')}")
        if user.get("username"):
            found.append("basic auth")
        if user.get("client-certificate") or user.get("client-certificate-data"):
            found.append("client certificate")
        return ", ".join(found) or "none (anonymous)"

    def describe(self) -> list[str]:
        """The connection in a few lines for `--debug` (no credential: the server's userinfo is stripped)."""
        from kubectl_gpu.kube.secret_text import scrub

        tls: str = self.tls
        if tls == "verified":
            ca = self.cluster.get("certificate-authority") or (
                "inline data" if self.cluster.get("certificate-authority-data") else "the system's roots"
            )
            tls = f"verified against {ca}"
        name = self.cluster.get("tls-server-name")
        if name and self.tls != "none (http)":
            tls += f", server name {name}"
        timeout = "none" if self.request_timeout is None else go_duration(self.request_timeout)
        lines = [
            f"context {self.context!r}: cluster {self.cluster_name!r}, server {self.server}",
            f"user {self.user_name or '(none)'!r}: {self.auth()}",
            f"impersonating: {self.impersonation.describe()}",
            f"TLS: {tls}",
            f"namespace: {self.default_namespace} (from {self.namespace_from}); request timeout {timeout}",
        ]
        return [scrub(f"debug: connection: {line}") for line in lines]

    def client(self) -> client.ApiClient:
        """An ApiClient for this connection (`kube.credentials.connect`)."""
        from kubectl_gpu.kube.credentials import connect

        return connect(self)


def resolve(
    kubeconfig: str | None,
    context: str | None,
    request_timeout: float | None,
    flags: ConnectionFlags | None = None,
) -> Connection:
    """The connection kubectl would make with these flags (see the module's docstring)."""
    from kubectl_gpu.kube.kubeconfig import load_kubeconfig

    flags = flags or ConnectionFlags()
    merged = load_kubeconfig(kubeconfig)
    name = merged.choose(context, server_given=bool(flags.server))
    body = merged.contexts.get(name) or {}
    cluster_name = flags.cluster or str(body.get("cluster") or "")
    user_name = flags.user or str(body.get("user") or "")
    if flags.user and flags.user not in merged.users:
        raise InvalidInput(f"auth info {go_quote(flags.user)} does not exist", _known("users", merged.users))
    cluster = _cluster(merged.clusters.get(cluster_name), cluster_name, flags)
    user = _user(merged.users.get(user_name), user_name, flags)
    impersonation = _impersonation(user, user_name, flags)
    withheld: tuple[str, ...] = ()
    if not str(cluster["server"]).lower().startswith("https://"):
        withheld = tuple(field for field in _CREDENTIALS if user.get(field))
        user = {k: v for k, v in user.items() if k not in _CREDENTIALS}
    namespace, where = _namespace(flags.namespace, body.get("namespace"))
    return Connection(
        kubeconfig=merged,
        context=name,
        cluster_name=cluster_name,
        user_name=user_name,
        cluster=cluster,
        user=user,
        impersonation=impersonation,
        request_timeout=request_timeout,
        flags=flags,
        default_namespace=namespace,
        namespace_from=where,
        withheld=withheld,
    )


def _known(what: str, entries: Mapping[str, Any]) -> str:
    return f"the kubeconfig's {what}: {', '.join(sorted(entries)) or 'none'}"


def _namespace(flag: str | None, from_context: Any) -> tuple[str, Literal["-n", "context", "default"]]:
    if flag:
        return check_namespace(flag), "-n"
    if isinstance(from_context, str) and from_context:
        return from_context, "context"
    return "default", "default"


def _cluster(entry: dict[str, Any] | None, name: str, flags: ConnectionFlags) -> dict[str, Any]:
    """The cluster entry with the flags applied, as `DirectClientConfig.getCluster` applies them."""
    cluster = dict(entry or {})
    if flags.server:
        cluster["server"] = flags.server
    server = str(cluster.get("server") or "")
    if server and "://" not in server:  # `host:port`: kubectl reads it as http (no credentials go there)
        cluster["server"] = "http://" + server
    if flags.insecure_skip_tls_verify or flags.certificate_authority:
        for field in _CA_FIELDS:
            cluster.pop(field, None)
        cluster["insecure-skip-tls-verify"] = flags.insecure_skip_tls_verify
        if flags.certificate_authority:
            cluster["certificate-authority"] = os.path.abspath(flags.certificate_authority)
    if flags.tls_server_name or flags.server:  # --server clears the kubeconfig's tls-server-name
        cluster.pop("tls-server-name", None)
        if flags.tls_server_name:
            cluster["tls-server-name"] = flags.tls_server_name
    if not cluster.get("server"):
        raise InvalidInput(
            f"no server found for cluster {go_quote(name)}",
            "check the context's cluster, or pass -s/--server",
        )
    if cluster.get("insecure-skip-tls-verify") is True and any(cluster.get(f) for f in _CA_FIELDS):
        raise InvalidInput(
            _CA_WITH_INSECURE,
            f"cluster {name!r} has a certificate-authority and insecure-skip-tls-verify: drop one "
            "(--insecure-skip-tls-verify drops the kubeconfig's CA, as kubectl's)",
        )
    ca_file = cluster.get("certificate-authority")
    if flags.certificate_authority and not os.path.isfile(str(ca_file)):
        raise InvalidInput(f"unable to read certificate-authority {ca_file} for {name}: no such file")
    return cluster


def _user(entry: dict[str, Any] | None, name: str, flags: ConnectionFlags) -> dict[str, Any]:
    """The user entry with `--token` applied, the token as client-go picks it."""
    user = dict(entry or {})
    if flags.token:
        user["token"] = flags.token
        user.pop("exec", None)  # client-go runs no plugin when a token is given
        user.pop("auth-provider", None)
    if user.get("token") and user.get("tokenFile"):  # client-go reads the file for every request
        readable = os.access(str(user["tokenFile"]), os.R_OK)
        user.pop("token" if readable else "tokenFile")
    if user.get("token") and (user.get("username") or user.get("password")):
        raise InvalidInput(
            f"more than one authentication method found for {name}; found [token basicAuth], only one is allowed",
            "drop --token, or the username and password of the kubeconfig user",
        )
    return user


def _impersonation(user: dict[str, Any], name: str, flags: ConnectionFlags) -> Impersonation:
    """The user's `as*` fields, each replaced by its flag when given (mergo's override, as kubectl)."""
    groups = user.get("as-groups") or ()
    extra = user.get("as-user-extra") or {}
    if not isinstance(groups, list | tuple) or not isinstance(extra, dict):
        raise InvalidInput(f"malformed kubeconfig: user {name!r}: as-groups is a list, as-user-extra a map")
    found = Impersonation(
        user=flags.as_user or str(user.get("as") or ""),
        uid=flags.as_uid or str(user.get("as-uid") or ""),
        groups=flags.as_groups or tuple(str(g) for g in groups),
        extra=tuple((str(k), tuple(str(v) for v in (vs or ()))) for k, vs in extra.items()),
    )
    if (found.uid or found.groups or found.extra) and not found.user:
        raise InvalidInput(
            f"requesting uid, groups or user-extra for {name} without impersonating a user",
            "name the user to impersonate: --as NAME",
        )
    for header, value in found.headers():
        if any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
            raise InvalidInput(f"{header}: a control character cannot be sent in a header")
    return found


def context_namespace(explicit: str | None, context: str | None) -> str:
    """The namespace kubectl uses without `-n`: that of `context` (else the current one), else `default`,
    checked to be a namespace name."""
    return resolve(explicit, context, None).namespace
