"""The kubeconfig's credentials, as kubectl handles them, through the official client.

- A token (`token`, `tokenFile`, an exec plugin's) is trimmed of surrounding whitespace, as client-go
  does: a `tokenFile` ending in a newline is the usual way one is written, and the raw value is not a
  valid HTTP header.
- An exec credential plugin (`aws eks get-token`) runs with a timeout (the request timeout): one waiting
  for an SSO login or a slow STS must not hang the command. The client's own runner has none, so ours
  replaces it (`_BoundedExecProvider`), for every plugin run: the first and each refresh on expiry.
- A `tokenFile` is read again once its token is a minute old (client-go's `NewCachedFileTokenSource`), so a
  rotated token (a projected service-account token) is picked up by a long-running TUI; a read that fails
  keeps the last token, as client-go's caching token source does.
- Every credential loaded is remembered by `secret_text`, so that no message, warning or traceback
  prints it; what the client logs about a failing plugin is captured, never printed as `ERROR:root`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar

from kubernetes import client, config
from kubernetes.config import kube_config
from kubernetes.config.config_exception import ConfigException
from kubernetes.config.exec_provider import ExecProvider

from kubectl_gpu.core.errors import ClusterError
from kubectl_gpu.kube import secret_text
from kubectl_gpu.kube.kubeconfig import Kubeconfig

if TYPE_CHECKING:
    from kubectl_gpu.kube.connection import Connection

__all__ = [
    "PLUGIN_TIMEOUT_MARK",
    "TOKEN_FILE_PERIOD",
    "TokenFileHook",
    "connect",
    "impersonate",
    "load_client",
]

_BEARER = "Bearer "
#: In the message of a plugin that timed out (how the hint tells it from one that failed).
PLUGIN_TIMEOUT_MARK = "did not answer within"
_FAILED_HINT = "run the kubeconfig's exec command yourself to see why (for EKS: log in to AWS again)"
_TIMEOUT_HINT = (
    "run the kubeconfig's exec command yourself: it may be waiting for a login (for EKS: aws sso login); "
    "or raise --request-timeout"
)


class _BoundedExecProvider(ExecProvider):
    """The client's exec plugin runner, with a timeout. `timeout` is per process: one kubeconfig, one
    request timeout. The protocol is the client's: KUBERNETES_EXEC_INFO in, an ExecCredential out."""

    timeout: ClassVar[float | None] = None

    def run(self, previous_response: Any = None) -> Any:
        interactive = hasattr(sys.stdout, "isatty") and sys.stdout.isatty()
        info: dict[str, Any] = {
            "apiVersion": self.api_version,
            "kind": "ExecCredential",
            "spec": {"interactive": interactive},
        }
        if previous_response:
            info["spec"]["response"] = previous_response
        if self.cluster:
            info["spec"]["cluster"] = self.cluster.value
        self.env["KUBERNETES_EXEC_INFO"] = json.dumps(info)
        name = os.path.basename(str(self.args[0]))
        # Its own process group (not when it may prompt on the terminal: a background group cannot read
        # it), so that a timeout ends the plugin and whatever it started: `#!/bin/sh` wrappers around
        # `aws` or `aws-vault` fork their work.
        grouped = not interactive and hasattr(os, "killpg")
        try:
            process = subprocess.Popen(
                self.args,
                stdout=subprocess.PIPE,
                stderr=sys.stderr if interactive else subprocess.PIPE,
                stdin=sys.stdin if interactive else subprocess.DEVNULL,
                cwd=self.cwd,
                env=self.env,
                text=True,
                shell=bool(getattr(self, "shell", False)),  # True on Windows only, as the client does
                process_group=0 if grouped else None,
            )
        except OSError as exc:
            raise ConfigException(f"exec: cannot run {name}: {exc.strerror or exc}") from None
        try:
            stdout, stderr = process.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            _end(process, grouped)
            raise ConfigException(
                f"exec: the credential plugin {name} {PLUGIN_TIMEOUT_MARK} {self.timeout:g}s"
            ) from None
        return self._status(name, process.returncode, stdout, stderr)

    def _status(self, name: str, code: int, stdout: str, stderr: str | None) -> Any:
        if code != 0:
            detail = " ".join((stderr or "").split())[:300]
            raise ConfigException(f"exec: {name} exited with {code}" + (f": {detail}" if detail else ""))
        try:
            data = json.loads(stdout)
        except ValueError:
            raise ConfigException(f"exec: {name} printed no ExecCredential JSON") from None
        if not isinstance(data, dict) or not all(k in data for k in ("apiVersion", "kind", "status")):
            raise ConfigException(f"exec: {name} printed no ExecCredential (apiVersion, kind, status)")
        if data["apiVersion"] != self.api_version:
            raise ConfigException(
                f"exec: {name} answered apiVersion {data['apiVersion']}, not {self.api_version}"
            )
        status = data["status"]
        if isinstance(status, dict):
            secret_text.remember(status.get("token"), status.get("clientKeyData"))
        return status


def _end(process: subprocess.Popen[str], grouped: bool) -> None:
    """Kill a plugin that timed out, with its process group, and never wait on its pipes again: a child it
    forked outside the group (or, ungrouped, any child) may hold them open for minutes."""
    if grouped:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
    process.kill()
    for pipe in (process.stdout, process.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
    process.wait()  # the plugin itself is killed: this returns at once


_warned: set[str] = set()


def _warn_unverified(server: str, why: str) -> None:
    """`insecure-skip-tls-verify`: one line, once per server, instead of urllib3's warning (with its
    advice URL) on every request, 14 lines for one command. `why`: where it was set."""
    import urllib3

    warnings.filterwarnings("ignore", category=urllib3.exceptions.InsecureRequestWarning)
    with _install_lock:
        if server in _warned:
            return
        _warned.add(server)
    sys.stderr.write(f"warning: the TLS certificate of {secret_text.scrub(server)} is not verified ({why})\n")


_install_lock = threading.Lock()


def _install(plugin_timeout: float | None) -> None:
    with _install_lock:
        _BoundedExecProvider.timeout = plugin_timeout
        kube_config.ExecProvider = _BoundedExecProvider  # type: ignore[attr-defined]


class _Collected(logging.Handler):
    """The client's errors logged by this thread only: fleet mode loads several contexts at once, and one
    context's failed plugin must not be taken for another's."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []
        self.thread = threading.get_ident()

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread != self.thread:
            return
        self.messages.append(secret_text.scrub(" ".join(record.getMessage().split())))


@contextmanager
def _client_log() -> Iterator[list[str]]:
    """What the kubernetes client logs meanwhile, kept off stderr. A failed exec credential plugin is only
    logged (through the root logger, which prints `ERROR:root:...`), then the client carries on without
    credentials; a handler on the root logger also stops `logging.error` from configuring one on stderr."""
    handler = _Collected()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler.messages
    finally:
        root.removeHandler(handler)


def _normalise(configuration: client.Configuration) -> None:
    """Trim the token as client-go does, and remember every credential the configuration holds."""
    keys = configuration.api_key or {}
    value = keys.get("BearerToken")
    if isinstance(value, str):
        secret_text.remember(value)
        scheme = _BEARER if value.startswith(_BEARER) else ""
        value = scheme + value[len(scheme) :].strip()
        keys["BearerToken"] = value
        secret_text.remember(value)
    secret_text.remember(configuration.password, *keys.values())


def _check(context: str | None, logged: list[str]) -> None:
    if logged:
        first = logged[0][:300]
        hint = _TIMEOUT_HINT if PLUGIN_TIMEOUT_MARK in first else _FAILED_HINT
        raise ClusterError(f"cannot get credentials for context {context!r}: {first}", hint)


def _checked(refresh: Callable[[Any], None], context: str | None) -> Callable[[Any], None]:
    """The client's refresh hook (it re-runs the plugin when its token expires), with the same checks.

    The client's hook reinstalls itself (and the untrimmed token) on every call: ours takes the new one
    as the next inner hook and puts itself back."""
    inner = refresh

    def hook(configuration: Any) -> None:
        nonlocal inner
        with _client_log() as logged:
            inner(configuration)
        installed = configuration.refresh_api_key_hook
        if installed is not hook and installed is not None:
            inner = installed
        configuration.refresh_api_key_hook = hook
        _check(context, logged)
        _normalise(configuration)

    return hook


#: client-go's file token source: its token expires a minute after it was read, and is read again then.
TOKEN_FILE_PERIOD = 60.0
_monotonic = time.monotonic  # what TokenFileHook's age is measured by (a test gives its own)


class TokenFileHook:
    """The client's refresh hook for a `tokenFile` user: the file read again when its token is
    `TOKEN_FILE_PERIOD` seconds old; an unreadable or empty file keeps the token read last. The client's
    own hook (which puts back the token it read first, on every request) runs before it."""

    def __init__(
        self, path: str, inner: Callable[[Any], None] | None, clock: Callable[[], float] | None = None
    ) -> None:
        self.path, self.inner, self.clock = path, inner, clock or _monotonic
        self.read_at = self.clock()
        self.token: str | None = None  # the token read again, once it has been

    def __call__(self, configuration: Any) -> None:
        if self.inner is not None:
            self.inner(configuration)
            installed = configuration.refresh_api_key_hook
            self.inner = installed if installed is not self else None
            configuration.refresh_api_key_hook = self
        now = self.clock()
        if now - self.read_at >= TOKEN_FILE_PERIOD:
            self.read_at = now
            self._read()
        if self.token:
            configuration.api_key["BearerToken"] = _BEARER + self.token

    def _read(self) -> None:
        try:
            with open(self.path, encoding="utf-8") as handle:
                token = handle.read().strip()
        except (OSError, UnicodeDecodeError):
            return
        if token:
            secret_text.remember(token)
            self.token = token


def load_client(
    kubeconfig: Kubeconfig, context: str, plugin_timeout: float | None, *, unverified: str | None = None
) -> client.ApiClient:
    """An ApiClient for `context` of the merged `kubeconfig` (`kube.kubeconfig`: kubectl's merge);
    `unverified`: where `insecure-skip-tls-verify` was set, for its warning (default: the context)."""
    _install(plugin_timeout)
    try:
        with _client_log() as logged:
            api: client.ApiClient = config.new_client_from_config_dict(  # type: ignore[no-untyped-call]
                config_dict=kubeconfig.client_dict(), context=context, persist_config=False
            )
        _check(context, logged)
    except ConfigException as exc:  # exec credential plugins fail here too
        raise ClusterError(f"cannot use context {context!r}: {secret_text.scrub(str(exc))}") from None
    except OSError as exc:
        raise ClusterError(f"cannot use context {context!r}: {exc.strerror or exc}") from None
    _normalise(api.configuration)
    if not api.configuration.verify_ssl:
        _warn_unverified(
            str(api.configuration.host), unverified or f"insecure-skip-tls-verify in context {context!r}"
        )
    refresh = api.configuration.refresh_api_key_hook
    if refresh is not None:  # re-runs the plugin when its token expires: the same failure, later
        api.configuration.refresh_api_key_hook = _checked(refresh, context)
    return api


def connect(connection: Connection) -> client.ApiClient:
    """An ApiClient for a resolved connection (`kube.connection.resolve`): its effective cluster and user
    as a one-context kubeconfig for the official client, and its impersonation headers on every request."""
    context = connection.context or "(--server)"  # no context: the flags alone (kubectl's empty context)
    cluster = connection.cluster_name or "cluster"
    user = connection.user_name or ("user" if connection.user else "")  # --token with no kubeconfig user
    body = {"cluster": cluster} | ({"user": user} if user else {})
    single = Kubeconfig(
        files=connection.kubeconfig.files,
        clusters={cluster: connection.cluster},
        users={user: connection.user} if user else {},
        contexts={context: body},
        current_context=context,
    )
    secret_text.remember(connection.flags.token)
    if connection.flags.debug:
        sys.stderr.write("".join(line + "\n" for line in connection.describe()))
    if connection.withheld:
        _warn_withheld(connection.server, connection.user_name, connection.withheld)
    flag = connection.flags.insecure_skip_tls_verify
    api = load_client(
        single, context, connection.request_timeout, unverified="--insecure-skip-tls-verify" if flag else None
    )
    entry = connection.user
    if entry.get("tokenFile") and not (entry.get("exec") or entry.get("auth-provider")):
        hook = api.configuration.refresh_api_key_hook
        api.configuration.refresh_api_key_hook = TokenFileHook(str(entry["tokenFile"]), hook)
    impersonate(api, connection.impersonation.headers())
    return api


_warned_http: set[str] = set()


def _warn_withheld(server: str, user: str, fields: tuple[str, ...]) -> None:
    """Credentials not sent to an http server: one line, once per server (kubectl is silent, and the
    401 or 403 that follows would not say why)."""
    with _install_lock:
        if server in _warned_http:
            return
        _warned_http.add(server)
    sys.stderr.write(
        f"warning: {secret_text.scrub(server)} is not https: the {'/'.join(fields)} of user {user!r} is not "
        "sent (as kubectl, credentials go over TLS only)\n"
    )


class _Impersonating:
    """A pool manager's `urlopen` that adds the impersonation headers to every request, several of the
    same name where client-go sends several (one `Impersonate-Group` per group): the client's own
    headers are a dict, one value a name. A request that names its own `Impersonate-User` is left alone,
    as client-go's `ImpersonatingRoundTripper` leaves it."""

    def __init__(self, urlopen: Callable[..., Any], headers: list[tuple[str, str]]) -> None:
        self.urlopen = urlopen
        self.headers = headers

    def __call__(self, method: str, url: str, *args: Any, **kw: Any) -> Any:
        import urllib3

        headers = urllib3.HTTPHeaderDict(kw.get("headers") or {})
        if "Impersonate-User" not in headers:
            for name, value in self.headers:
                headers.add(name, value)
        kw["headers"] = headers
        return self.urlopen(method, url, *args, **kw)


def impersonate(api: client.ApiClient, headers: list[tuple[str, str]]) -> None:
    """Send `headers` (`Impersonation.headers`) with every request of `api`."""
    if headers:
        manager = api.rest_client.pool_manager
        manager.urlopen = _Impersonating(manager.urlopen, headers)  # type: ignore[method-assign]
