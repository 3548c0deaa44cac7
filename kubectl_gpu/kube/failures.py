"""What a non-2xx answer from the API server (or whatever answered in its place) says, in one line.

A `Status` body gives its reason and message; an HTML page (a proxy, a load balancer) is named by its title;
anything else by its first characters. `ApiFailure` carries the HTTP status, that summary, and a
`Retry-After` when the answer had one.
"""

from __future__ import annotations

import html
import re
import time
from email.utils import parsedate_to_datetime
from typing import Any, NamedTuple

import orjson

from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = ["ApiFailure", "BodySummary", "body_summary"]


_TITLE = lazy_pattern(rb"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_TAG = lazy_pattern(rb"<[^>]+>")


def _line(text: str, limit: int) -> str:
    """One line of at most `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


class BodySummary(NamedTuple):
    reason: str  # a Status's reason, else ""
    message: str  # one line
    html: bool  # an HTML page (a proxy, a load balancer, a web server)
    status: bool  # a Kubernetes Status object: only an API server (or its aggregated APIs) writes one


def body_summary(data: bytes, content_type: str = "") -> BodySummary:
    """What an error body says, in one line: a `Status`'s reason and message, or a short description of
    anything else (an HTML page by its title, other text by its first characters)."""
    try:
        decoded = orjson.loads(data or b"{}")
    except orjson.JSONDecodeError:
        decoded = None
    if isinstance(decoded, dict):
        reason, message = decoded.get("reason"), decoded.get("message")
        is_status = decoded.get("kind") == "Status"
        if isinstance(message, str) or isinstance(reason, str):
            return BodySummary(_line(str(reason or ""), 60), _line(str(message or ""), 300), False, is_status)
        text = _line(data.decode("utf-8", "replace"), 120) if decoded else ""
        return BodySummary("", text, False, is_status)
    if "html" in content_type.lower() or data[:4096].lstrip()[:1] == b"<":
        found = _TITLE.search(data[:65536])
        title = _line(html.unescape(found.group(1).decode("utf-8", "replace")), 80) if found else ""
        if not title:
            title = _line(html.unescape(_TAG.sub(b" ", data[:4096]).decode("utf-8", "replace")), 80)
        page = f"an HTML page titled {title!r}" if title else "an HTML page"
        return BodySummary(
            "", f"{page} (not the API server: a proxy, load balancer or web server answered)", True, False
        )
    return BodySummary("", _line(data[:4096].decode("utf-8", "replace"), 120), False, False)


def _retry_after(headers: Any) -> float | None:
    """Seconds from a Retry-After header (seconds or an HTTP date), None without a usable one."""
    value = headers.get("Retry-After") if headers is not None else None
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(str(value))
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class ApiFailure(Exception):
    """A non-2xx answer: HTTP status, the Status reason and its message (one line), and how it looked."""

    def __init__(
        self,
        status: int,
        reason: str,
        message: str,
        *,
        html_page: bool = False,
        status_body: bool = False,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{status} {reason}: {message}" if message else f"{status} {reason}")
        self.status = status
        self.reason = reason
        self.message = message
        self.html = html_page
        self.status_body = status_body
        self.retry_after = retry_after

    @classmethod
    def of(cls, status: int, reason: str, headers: Any, data: bytes) -> ApiFailure:
        content_type = str(headers.get("Content-Type") or "") if headers is not None else ""
        summary = body_summary(data, content_type)
        return cls(
            status,
            summary.reason or _line(reason or "", 60) or "Error",
            summary.message,
            html_page=summary.html,
            status_body=summary.status,
            retry_after=_retry_after(headers),
        )

    @property
    def transient(self) -> bool:
        """Worth trying again later: throttled, or the server (or what is in front of it) failed."""
        return self.status == 429 or self.status >= 500
