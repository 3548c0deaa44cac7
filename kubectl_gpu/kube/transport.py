"""One request to the API server, through the official client's `ApiClient`, for the live source and the
debug-pod API alike.

What every request gets here: a timeout no later than the command's deadline; `429 Too Many Requests`
(and a 503 that says `Retry-After`) waited out and retried a few times; a failure in one line, whatever
the body was (a `Status`, an HTML page from a load balancer, a proxy's JSON); a hint that fits the cause
(credentials for 401, RBAC for 403, the control plane for 5xx); and no credential in any of it.
Non-2xx answers raise `ApiFailure` (the caller knows what a 403 or a 404 means for it), the rest
`ClusterError` (exit 3).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import orjson
import urllib3
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from kubectl_gpu.core.errors import ClusterError
from kubectl_gpu.core.k8s.times import go_duration
from kubectl_gpu.kube.budget import LIST_BUDGET, RequestBudget
from kubectl_gpu.kube.connection import context_label
from kubectl_gpu.kube.failures import ApiFailure, BodySummary, body_summary
from kubectl_gpu.kube.secret_text import strip_userinfo
from kubectl_gpu.kube.worker_threads import start_worker

__all__ = [
    "DEADLINE_FACTOR",
    "DEFAULT_MAX_BYTES",
    "ERROR_MAX_BYTES",
    "RETRY_AFTER_MAX",
    "RETRY_LIMIT",
    "ApiFailure",
    "BodySummary",
    "Deadline",
    "DeadlineExceeded",
    "LineStream",
    "RequestTimedOut",
    "ResponseTooLarge",
    "Transport",
    "body_summary",
    "gather",
]

#: How often a 429 (or a 503 with Retry-After) is retried before it is an error.
RETRY_LIMIT = 4
#: A longer Retry-After is waited this long at most (and never past the deadline).
RETRY_AFTER_MAX = 10.0
#: Reading a cluster (every request of a read-only command together) may take this many --request-timeout.
DEADLINE_FACTOR = 10
#: The most a response body may hold when the caller names no cap (discovery, a GET of one object: an object
#: is at most ~1.5 MiB in etcd). Lists name their own (`live.LIST_PAGE_MAX_BYTES`).
DEFAULT_MAX_BYTES = 16 * 1024 * 1024
#: What is read of an error body (a Status is a few hundred bytes; a proxy's HTML page a few KiB).
ERROR_MAX_BYTES = 256 * 1024
_CHUNK = 256 * 1024  # bytes read at a time: the cap is checked between reads

_CREDENTIALS_HINT = "refresh them (for EKS: aws eks update-kubeconfig, or log in to AWS again)"
_SERVER_HINT = "the control plane, or a proxy or load balancer in front of it, failed: retry, and check the cluster's health"
_THROTTLED_HINT = "the API server is shedding load (API Priority and Fairness): retry in a minute"


class RequestTimedOut(ClusterError):
    """One request got no answer within its timeout."""


class ResponseTooLarge(ClusterError):
    """A response (or one line of a stream) was larger than its cap; the rest of it was not read."""

    def __init__(self, message: str, hint: str | None = None, *, limit: int) -> None:
        super().__init__(message, hint)
        self.limit = limit


def _size(count: int) -> str:
    """A byte count in the unit a person reads it in."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:g} {unit}"
    return f"{count} bytes"


class DeadlineExceeded(ClusterError):
    """The command as a whole ran out of time."""


class Deadline:
    """The instant by which a command's requests must be done; None: no deadline (--request-timeout 0)."""

    def __init__(
        self, seconds: float | None, *, what: str = "", clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.seconds = seconds
        self.what = what
        self.clock = clock
        self._end = None if seconds is None else clock() + seconds

    @classmethod
    def for_reading(cls, request_timeout: float | None) -> Deadline:
        """The deadline of a read-only command: DEADLINE_FACTOR times its request timeout."""
        seconds = None if request_timeout is None else request_timeout * DEADLINE_FACTOR
        return cls(seconds, what="reading the cluster")

    def remaining(self) -> float | None:
        return None if self._end is None else self._end - self.clock()

    def expired(self) -> bool:
        remaining = self.remaining()
        return remaining is not None and remaining <= 0

    def error(self, server: str) -> DeadlineExceeded:
        what = self.what or "the command"
        return DeadlineExceeded(
            f"{what} from {server} took longer than {go_duration(self.seconds or 0)} "
            f"({DEADLINE_FACTOR} times --request-timeout), and was stopped",
            "raise --request-timeout (a large cluster or a slow link), or check what slows the API server",
        )

    def timeout(self, request_timeout: float | None, server: str) -> float | None:
        """The timeout of the next request: `request_timeout`, cut to what is left; raises when none is."""
        remaining = self.remaining()
        if remaining is None:
            return request_timeout
        if remaining <= 0:
            raise self.error(server)
        return remaining if request_timeout is None else min(request_timeout, remaining)


class Transport:
    """Requests through the official client's `ApiClient` (auth, TLS, exec plugins): one attempt each at
    the socket level (urllib3 would silently repeat a timed-out read), Retry-After honoured here, a token
    of the request budget taken first, and every body read under a time cap and a byte cap: a read that is
    given up closes its connection, so nothing goes on reading it."""

    def __init__(
        self,
        api: client.ApiClient,
        *,
        request_timeout: float | None,
        context: str | None,
        deadline: Deadline | None = None,
        budget: RequestBudget | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.api = api
        self.request_timeout = request_timeout
        self.context = context
        self.deadline = deadline or Deadline(None)
        self.budget = budget or RequestBudget(LIST_BUDGET)
        self.budget.label = self.budget.label or self.server
        self.sleep = sleep
        self.clock = clock
        api.configuration.retries = False
        api.rest_client.pool_manager.connection_pool_kw["retries"] = False

    @property
    def server(self) -> str:
        return strip_userinfo(str(self.api.configuration.host))

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Sequence[tuple[str, str | int]] = (),
        body: dict[str, Any] | None = None,
        timeout: float | None = None,
        max_bytes: int | None = None,
    ) -> bytes:
        """The body of a 2xx answer (ResponseTooLarge past `max_bytes`, default DEFAULT_MAX_BYTES); ApiFailure
        for any other answer, ClusterError when there was none. The whole answer, body included, must come
        within the request's timeout, as kubectl's --request-timeout bounds it."""
        cap = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
        for attempt in range(RETRY_LIMIT + 1):
            raw, limit = self._send(method, path, query, body, timeout)
            if 200 <= raw.status < 300:
                return self._read(raw, cap, limit, method, path, strict=True)
            data = self._read(raw, ERROR_MAX_BYTES, limit, method, path, strict=False)
            failure = ApiFailure.of(raw.status, str(raw.reason or ""), raw.headers, data)
            wait = self._retry_wait(failure, attempt)
            if wait is None:
                raise failure
            self.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def stream(
        self,
        path: str,
        *,
        query: Sequence[tuple[str, str | int]] = (),
        seconds: float,
        max_line_bytes: int = DEFAULT_MAX_BYTES,
    ) -> LineStream:
        """A GET answered as a stream of lines (a watch), read as the lines arrive, for `seconds` at most;
        ApiFailure for a non-2xx answer. Close it (or use it in a `with`) to stop reading."""
        raw, limit = self._send("GET", path, query, None, seconds)
        if not 200 <= raw.status < 300:
            data = self._read(raw, ERROR_MAX_BYTES, limit, "GET", path, strict=False)
            raise ApiFailure.of(raw.status, str(raw.reason or ""), raw.headers, data)
        return LineStream(self, raw, path, seconds=seconds, max_line_bytes=max_line_bytes)

    def _retry_wait(self, failure: ApiFailure, attempt: int) -> float | None:
        """Seconds to wait before trying again, or None: give up. As client-go: a 429 or a 5xx that says
        Retry-After is retried (RETRY_LIMIT times at most, never past the deadline); anything else is not."""
        if failure.retry_after is None or not failure.transient or attempt >= RETRY_LIMIT:
            return None
        wait = min(failure.retry_after, RETRY_AFTER_MAX)
        remaining = self.deadline.remaining()
        if remaining is not None and wait >= remaining:
            return None
        return wait

    def _send(
        self,
        method: str,
        path: str,
        query: Sequence[tuple[str, str | int]],
        body: dict[str, Any] | None,
        timeout: float | None,
    ) -> tuple[Any, float | None]:
        """Send one request, once a token of the budget is there; the response with its body unread (a
        urllib3 response) and the request's time limit."""
        headers = {"Accept": "application/json, */*"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        limit = self.deadline.timeout(timeout if timeout is not None else self.request_timeout, self.server)
        if not self.budget.take(self.deadline.remaining()):
            raise self.deadline.error(self.server)
        verb, url, header_params, payload, post = self.api.param_serialize(
            method=method,
            resource_path=path,
            query_params=list(query),
            header_params=headers,
            body=body,
            auth_settings=["BearerToken"],
        )
        try:
            response = self.api.call_api(
                verb, url, header_params=header_params, body=payload, post_params=post, _request_timeout=limit
            )
        except ApiException as exc:  # the client wraps TLS failures as status 0
            raise self.transport_error(exc, method, path, limit) from None
        except urllib3.exceptions.HTTPError as exc:
            raise self.transport_error(exc, method, path, limit) from None
        except ValueError as exc:  # http.client refuses a header value; its message quotes the value
            raise self._header_error(exc) from None
        return response.response, limit

    def _read(
        self, raw: Any, cap: int, limit: float | None, method: str, path: str, *, strict: bool
    ) -> bytes:
        """The body, read a chunk at a time under `cap` bytes and `limit` seconds. Past the cap: strict,
        ResponseTooLarge; else what was read so far (an error body is only summarised). Either way, and on
        any failure, the connection is closed rather than handed back with unread bytes on it."""
        chunks: list[bytes] = []
        total = 0
        end = None if limit is None else self.clock() + limit
        try:
            while True:
                chunk = raw.read1(_CHUNK)
                if not chunk:
                    break
                total += len(chunk)
                if total > cap:
                    raw.close()
                    if strict:
                        raise self.too_large(method, path, cap)
                    chunks.append(chunk[: len(chunk) - (total - cap)])
                    break
                chunks.append(chunk)
                if end is not None and self.clock() > end:
                    raw.close()
                    raise self._too_slow(method, path, limit)
        except urllib3.exceptions.HTTPError as exc:
            raw.close()
            raise self.transport_error(exc, method, path, limit) from None
        except OSError as exc:
            raw.close()
            raise self.transport_error(exc, method, path, limit) from None
        raw.release_conn()
        return b"".join(chunks)

    def too_large(self, method: str, path: str, cap: int) -> ResponseTooLarge:
        return ResponseTooLarge(
            f"{method} {path}: the answer from {self.server} was larger than {_size(cap)}, and was not read "
            "further",
            "a proxy or a misbehaving server may be sending without end; retry, or check what is in front of "
            "the API server",
            limit=cap,
        )

    def _too_slow(self, method: str, path: str, limit: float | None) -> ClusterError:
        if self.deadline.expired():
            return self.deadline.error(self.server)
        return RequestTimedOut(
            f"{method} {path}: the answer from {self.server} did not end within {go_duration(limit or 0)}",
            "raise --request-timeout or check your network path to the cluster",
        )

    def _header_error(self, exc: ValueError) -> ClusterError:
        if isinstance(exc, UnicodeError) or "header" in str(exc).lower():
            return ClusterError(
                f"the credentials of {context_label(self.context)} cannot be sent: they hold a character an "
                "HTTP header cannot carry (a line break or a control character inside the token)",
                "check the token, tokenFile or credential plugin of the kubeconfig user",
            )
        return ClusterError(f"cannot send a request to {self.server}: {type(exc).__name__}")

    def json(self, method: str, path: str, **kw: Any) -> dict[str, Any]:
        data = self.request(method, path, **kw)
        try:
            decoded = orjson.loads(data or b"{}")
        except orjson.JSONDecodeError:
            raise ClusterError(
                f"the API server at {self.server} sent a malformed or truncated response for {path}",
                "retry; if it persists, check proxies between you and the cluster",
            ) from None
        if not isinstance(decoded, dict):
            raise ClusterError(f"the API server at {self.server} sent an unexpected response for {path}")
        return decoded

    # --- messages ------------------------------------------------------------------------------

    def transport_error(
        self, exc: BaseException, method: str, path: str, limit: float | None
    ) -> ClusterError:
        """No answer at all: TLS, refused, timed out, cut off. One line, with what to do."""
        reason = getattr(exc, "reason", None) or exc
        text = " ".join(str(reason).split())
        context = f"check that {context_label(self.context)} points at a running cluster, or use --snapshot"
        if isinstance(reason, urllib3.exceptions.SSLError) or "SSL" in text or "certificate" in text:
            return ClusterError(
                f"TLS error talking to {self.server}: {text[:200]}",
                "check certificate-authority-data in your kubeconfig",
            )
        # NewConnectionError subclasses ConnectTimeoutError in urllib3: test for it first.
        if isinstance(reason, urllib3.exceptions.NewConnectionError) or "refused" in text:
            return ClusterError(
                f"cannot connect to the API server at {self.server} (connection refused or unreachable)",
                context,
            )
        if isinstance(reason, (urllib3.exceptions.TimeoutError, TimeoutError)) or "timed out" in text:
            if self.deadline.expired():
                return self.deadline.error(self.server)
            within = f" within {go_duration(limit)}" if limit else ""
            return RequestTimedOut(
                f"{method} {path}: the API server at {self.server} did not answer{within}",
                "raise --request-timeout or check your network path to the cluster",
            )
        if (
            isinstance(reason, urllib3.exceptions.ProtocolError)
            or "IncompleteRead" in text
            or "aborted" in text
        ):
            return ClusterError(
                f"{method} {path}: the connection to {self.server} broke mid-response (truncated or dropped)",
                "retry; if it persists, check proxies between you and the cluster",
            )
        return ClusterError(
            f"{method} {path}: cannot talk to the API server at {self.server}: {text[:200]}", context
        )

    def failure_error(
        self, failure: ApiFailure, what: str, *, forbidden_hint: str | None = None
    ) -> ClusterError:
        """`what` failed with `failure`: one line and the hint for its cause (a 401 is about the credentials,
        whatever was asked)."""
        if failure.status == 401:
            return ClusterError(
                f"unauthorized: the API server at {self.server} rejected the credentials of "
                f"{context_label(self.context)}",
                _CREDENTIALS_HINT,
            )
        if failure.status == 403 and not failure.html:
            return ClusterError(f"{what}: forbidden: {failure.message or failure.reason}", forbidden_hint)
        if failure.status == 429:
            return ClusterError(
                f"{what}: the API server at {self.server} answered {failure}", _THROTTLED_HINT
            )
        hint = _SERVER_HINT if failure.status >= 500 or failure.html else None
        return ClusterError(f"{what}: the API server at {self.server} answered {failure}", hint)


class LineStream:
    """The lines of a streamed answer (a watch), each under a byte cap, for a time at most: reading stops
    (and the connection is closed) at the first of the end of the stream, the time running out, a line too
    long, or `close()`. Iterating yields each complete line as it arrives (never a partial one)."""

    def __init__(
        self, transport: Transport, raw: Any, path: str, *, seconds: float, max_line_bytes: int
    ) -> None:
        self.transport = transport
        self.raw = raw
        self.path = path
        self.seconds = seconds
        self.max_line_bytes = max_line_bytes
        self.timed_out = False  # the time ran out before the server ended the stream
        self.bytes_read = 0

    def __enter__(self) -> LineStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with contextlib.suppress(Exception):  # a response that already broke
            self.raw.close()

    def __iter__(self) -> Iterator[bytes]:
        end = self.transport.clock() + self.seconds
        pending = b""
        try:
            while True:
                if self.transport.clock() > end:
                    self.timed_out = True
                    return
                try:
                    chunk = self.raw.read1(_CHUNK)
                except (urllib3.exceptions.ReadTimeoutError, TimeoutError):
                    self.timed_out = True
                    return
                except (urllib3.exceptions.HTTPError, OSError) as exc:
                    raise self.transport.transport_error(exc, "GET", self.path, self.seconds) from None
                if not chunk:
                    if pending.strip():
                        yield pending
                    return
                self.bytes_read += len(chunk)
                pending += chunk
                *lines, pending = pending.split(b"\n")
                yield from (line for line in lines if line.strip())
                if len(pending) > self.max_line_bytes:
                    raise self.transport.too_large("GET", self.path, self.max_line_bytes)
        finally:
            self.close()


T = TypeVar("T")


def gather(
    tasks: Sequence[Callable[[], T]], *, workers: int, deadline: Deadline, server: str
) -> list[T | Exception]:
    """Run `tasks` on up to `workers` daemon threads; their results (or the exception each raised), in
    order. Past `deadline` this raises at once: the threads are abandoned, not waited for (they only
    read, and a daemon thread does not keep the process alive on a request that never ends)."""
    results: dict[int, T | Exception] = {}
    queue = list(range(len(tasks)))
    done = threading.Condition()

    def work() -> None:
        while True:
            with done:
                if not queue:
                    return
                index = queue.pop(0)
            try:
                outcome: T | Exception = tasks[index]()
            except Exception as exc:
                outcome = exc
            with done:
                results[index] = outcome
                done.notify_all()

    for number in range(max(1, min(workers, len(tasks)))):
        start_worker(work, name=f"kubectl-gpu-list-{number}")
    with done:
        while len(results) < len(tasks):
            remaining = deadline.remaining()
            if remaining is not None and remaining <= 0:
                raise deadline.error(server)
            done.wait(0.5 if remaining is None else min(remaining, 0.5))
    return [results[i] for i in range(len(tasks))]
