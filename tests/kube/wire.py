"""The HTTP side of the fake API server: threads, keep-alive, optional TLS, faults on the wire, Status bodies.

`HttpServer` serves a `Backend` (the API logic) on 127.0.0.1 with an ephemeral port. It records every
request, applies injected faults (delay, error status, truncated body) and shuts down without leaving a
thread behind: `stop()` wakes handlers sleeping in a delay and those waiting on kept-alive connections.

TLS exists because kubectl (client-go) never sends credentials (token, exec plugin, auth provider) to a
plain-HTTP server (kubernetes/kubectl#744); the certificate is self-signed, made with the `openssl` CLI.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

Obj = dict[str, Any]

REASONS = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    406: "NotAcceptable",
    409: "Conflict",
    410: "Expired",
    415: "UnsupportedMediaType",
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
}


def status_body(code: int, message: str, reason: str | None = None, details: Obj | None = None) -> Obj:
    """A `Status` failure body as the real API server writes it."""
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason or REASONS.get(code, "Unknown"),
        "details": details or {},
        "code": code,
    }


class ApiError(Exception):
    """Raised while handling a request to answer with a `Status` body."""

    def __init__(self, code: int, message: str, reason: str | None = None, details: Obj | None = None):
        super().__init__(message)
        self.code = code
        self.body = status_body(code, message, reason, details)


@dataclass
class Response:
    code: int
    body: bytes
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    #: a body sent chunk by chunk as the iterator yields (chunked encoding), until it ends, the server stops
    #: or the client hangs up; `body` is then ignored. The iterator must end by itself (bounded in count).
    stream: Callable[[], Iterator[bytes]] | None = None


def json_response(code: int, obj: Obj) -> Response:
    return Response(code, json.dumps(obj).encode())


@dataclass
class RecordedRequest:
    """One request as the server received it; `query` keeps the last value of each parameter and header
    names are lower-case (the last value of a name); `header_lines` are the headers as sent, in order, each
    repeated name (one `Impersonate-Group` per group) and its spelling kept."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    header_lines: list[tuple[str, str]] = field(default_factory=list)

    def all_values(self, name: str) -> list[str]:
        """Every value sent under header `name` (any case), in order."""
        return [value for key, value in self.header_lines if key.lower() == name.lower()]


@dataclass
class Fault:
    """An injected misbehaviour: see `FakeKubeAPI.fault`."""

    method: str
    path: re.Pattern[str]
    status: int | None
    body: Obj | None
    delay: float
    truncate: bool
    times: int | None
    raw: bytes | None = None  # a body sent as it is (HTML, broken JSON), with `content_type`
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    drop: bool = False  # close the connection without answering
    seconds: float | None = None  # active this long after the first request it matched
    until: float | None = None  # set at the first match when `seconds` is given
    stream: Callable[[], Iterator[bytes]] | None = None  # a body sent chunk by chunk (see Response.stream)

    def matches(self, method: str, path: str) -> bool:
        return self.method in ("*", method) and self.path.search(path) is not None

    def expired(self) -> bool:
        """A `seconds` fault past its window (the window opens at its first match)."""
        if self.seconds is None:
            return False
        now = time.monotonic()
        if self.until is None:
            self.until = now + self.seconds
        return now >= self.until

    def response(self, method: str, path: str) -> Response:
        """The answer this fault gives in place of the server's (status set, or a raw body)."""
        code = self.status if self.status is not None else 200
        if self.stream is not None:
            return Response(code, b"", self.content_type, dict(self.headers), stream=self.stream)
        if self.raw is not None:
            return Response(code, self.raw, self.content_type, dict(self.headers))
        message = f"injected fault: {method} {path}"
        body = json.dumps(self.body or status_body(code, message)).encode()
        return Response(code, body, "application/json", dict(self.headers))


class Backend(Protocol):
    def record(self, request: RecordedRequest) -> None: ...
    def take_fault(self, method: str, path: str) -> Fault | None: ...
    def handle(
        self, method: str, path: str, query: dict[str, str], headers: dict[str, str], body: bytes
    ) -> Response: ...


def self_signed_tls() -> tuple[ssl.SSLContext, bytes]:
    """A server context with a fresh certificate for 127.0.0.1/localhost, and that certificate (PEM), which
    is its own CA for `certificate-authority-data`."""
    openssl = shutil.which("openssl")
    if openssl is None:
        raise RuntimeError("FakeKubeAPI(tls=True) needs the openssl CLI to make a certificate")
    with tempfile.TemporaryDirectory(prefix="fake-kube-api-") as tmp:
        key, cert = Path(tmp, "key.pem"), Path(tmp, "cert.pem")
        subprocess.run(
            [
                openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=fake-kube-api",
                "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            ],
            check=True,
            capture_output=True,
        )  # fmt: skip
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        return context, cert.read_bytes()


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # server_close() joins handler threads, so stop() leaves none behind
    block_on_close = True
    owner: HttpServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that time out or hang up are part of the tests; anything else is still printed."""
        if not isinstance(sys.exc_info()[1], OSError):  # ssl.SSLError is an OSError too
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"  # keep-alive, as both clients expect
    # Headers and body go out in separate writes: without TCP_NODELAY each small response waits ~40 ms
    # for the client's delayed ACK.
    disable_nagle_algorithm = True

    def setup(self) -> None:
        self.server.owner.track(self.request, open_=True)
        if isinstance(self.request, ssl.SSLSocket):
            self.request.do_handshake()  # here, not in accept(): a silent client must not block the server
        super().setup()

    def finish(self) -> None:
        self.server.owner.track(self.request, open_=False)
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, *args: Any) -> None:
        pass  # requests are recorded instead

    def _serve(self) -> None:
        owner = self.server.owner
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        headers = {k.lower(): v for k, v in self.headers.items()}
        lines = list(self.headers.items())
        owner.backend.record(RecordedRequest(self.command, url.path, query, headers, body, lines))
        fault = owner.backend.take_fault(self.command, url.path)
        if fault is not None and fault.delay and owner.stopping.wait(fault.delay):
            self.close_connection = True  # the server is stopping: answer nothing
            return
        if fault is not None and fault.drop:
            self.close_connection = True  # no status line at all: the client sees the connection end
            with contextlib.suppress(OSError):
                self.request.shutdown(socket.SHUT_RDWR)
            return
        if fault is not None and (fault.status is not None or fault.raw is not None or fault.stream):
            response = fault.response(self.command, url.path)
        else:
            response = owner.backend.handle(self.command, url.path, query, headers, body)
        self._send(response, truncate=fault is not None and fault.truncate)

    def _send_stream(self, response: Response, chunks: Iterator[bytes]) -> None:
        self.send_response(response.code)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.close_connection = True
        try:
            for chunk in chunks:
                if self.server.owner.stopping.is_set():
                    return
                if chunk:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        except OSError:  # the client hung up: what a client that gives up a stream does
            return

    def _send(self, response: Response, truncate: bool) -> None:
        if response.stream is not None:
            self._send_stream(response, response.stream())
            return
        self.send_response(response.code)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(response.body)))
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.end_headers()
        if not truncate:
            self.wfile.write(response.body)
            return
        self.wfile.write(response.body[: len(response.body) // 2])  # less than the declared length...
        self.wfile.flush()
        self.close_connection = True
        self.request.shutdown(socket.SHUT_WR)  # ...then end of stream

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve


class HttpServer:
    """Serves `backend` over HTTP(S) on 127.0.0.1 from a background thread."""

    def __init__(self, backend: Backend, tls: bool = False) -> None:
        self.backend = backend
        self.stopping = threading.Event()
        self.ca_pem: bytes | None = None
        self._connections: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        if tls:
            context, self.ca_pem = self_signed_tls()
            self._httpd.socket = context.wrap_socket(
                self._httpd.socket, server_side=True, do_handshake_on_connect=False
            )
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="fake-kube-api", daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"{'https' if self.ca_pem else 'http'}://{host!s}:{port}"

    def track(self, conn: socket.socket, open_: bool) -> None:
        with self._lock:
            if open_:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)

    def start(self) -> HttpServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self.stopping.set()  # wakes handlers sleeping in a delay fault
        with self._lock:
            connections = list(self._connections)
        for conn in connections:  # wakes handlers waiting for the next request on a kept-alive connection
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        self._httpd.server_close()  # joins the handler threads
        self._thread.join()
