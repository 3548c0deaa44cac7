"""Credentials this process holds, kept out of every line it prints.

The live source remembers each credential it loads (a bearer token from `token`, `tokenFile` or an exec
plugin, a basic-auth password, the header built from them); `scrub` replaces them in any text about to
reach the terminal: an error line, a warning, a `--debug` traceback. Messages are written not to quote
credentials in the first place; this is the net under them. Light on purpose: `cli.app.main` imports it
while printing an error, so it imports nothing but `re` and `threading`.
"""

from __future__ import annotations

import threading

from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = ["REDACTED", "forget_all", "remember", "scrub", "strip_userinfo"]

REDACTED = "<redacted>"
#: Shorter strings are not remembered: scrubbing "abc" from every message would mangle them, and a
#: credential that short is no secret anyway.
_MIN_LENGTH = 6

_lock = threading.Lock()
_secrets: set[str] = set()
_USERINFO = lazy_pattern(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]*@")


def remember(*values: object) -> None:
    """Keep `values` (strings; anything else is ignored) out of what `scrub` returns. A value is also
    remembered without surrounding whitespace and without an auth scheme (`Bearer `, `Basic `)."""
    found: set[str] = set()
    for value in values:
        if not isinstance(value, str):
            continue
        for form in (value, value.strip(), value.partition(" ")[2].strip()):
            if len(form) >= _MIN_LENGTH and not form.isspace():
                found.add(form)
    if found:
        with _lock:
            _secrets.update(found)


def forget_all() -> None:
    """For tests: start again with nothing remembered."""
    with _lock:
        _secrets.clear()


def strip_userinfo(text: str) -> str:
    """`https://user:password@host` -> `https://<redacted>@host`, wherever a URL appears in `text`."""
    return _USERINFO.sub(lambda m: f"{m.group('scheme')}{REDACTED}@", text)


def scrub(text: str) -> str:
    """`text` with every remembered credential (and a URL's user:password) replaced by `<redacted>`;
    also their `repr` forms (`\\n` written out), as a `ValueError` about a header quotes them."""
    with _lock:
        secrets = sorted(_secrets, key=len, reverse=True)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
        escaped = repr(secret)[1:-1]
        if escaped != secret and escaped in text:
            text = text.replace(escaped, REDACTED)
    return strip_userinfo(text)
