"""--request-timeout reads what kubectl reads (client-go's ParseTimeout: whole seconds or a Go duration), and
durations in messages are spelled as Go spells them, never `1e-05s` (issue 41, item 1)."""

from __future__ import annotations

import pytest

from kubectl_gpu.cli.options import GlobalOptions
from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.k8s.times import go_duration


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("25h", 90000.0),
        ("1h30m", 5400.0),
        ("90", 90.0),
        ("+5", 5.0),
        ("500ms", 0.5),
        ("10us", 1e-5),
        ("0", None),
        ("0s", None),
        ("-1s", None),  # kubectl's HTTP client sets no deadline for a negative one
        ("2562047h", None),  # Go's longest: beyond what a socket takes, as none
    ],
)
def test_request_timeout_as_kubectl_reads_it(value: str, seconds: float | None) -> None:
    assert GlobalOptions(request_timeout=value).timeout_seconds == pytest.approx(seconds)


@pytest.mark.parametrize("value", ["1.5", "-5", "abc", "1d", "²", "", "1 s", "99999999999h"])
def test_request_timeout_kubectl_rejects(value: str) -> None:
    with pytest.raises(InvalidInput, match="--request-timeout: invalid timeout value"):
        GlobalOptions(request_timeout=value).timeout_seconds  # noqa: B018


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0s"),
        (1e-5, "10µs"),
        (1e-9, "1ns"),
        (0.5, "500ms"),
        (1.5, "1.5s"),
        (30, "30s"),
        (90, "1m30s"),
        (5400, "1h30m0s"),
        (90000, "25h0m0s"),
        (-1, "-1s"),
    ],
)
def test_go_duration_spelling(seconds: float, text: str) -> None:
    assert go_duration(seconds) == text
