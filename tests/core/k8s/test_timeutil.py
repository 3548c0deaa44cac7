from datetime import UTC, datetime, timedelta

import pytest

from kubectl_gpu.core.k8s.times import TimeError, format_age, parse_duration, parse_time


def test_parse_time_z_and_offset() -> None:
    assert parse_time("2026-11-29T12:00:00Z") == datetime(2026, 11, 29, 12, tzinfo=UTC)
    assert parse_time("2026-11-29T14:00:00+02:00") == datetime(2026, 11, 29, 12, tzinfo=UTC)


@pytest.mark.parametrize("text", ["", "yesterday", "2026-11-29T12:00:00", "2026-13-01T00:00:00Z"])
def test_parse_time_rejects(text: str) -> None:
    with pytest.raises(TimeError):
        parse_time(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("336h", timedelta(hours=336)),
        ("24h0m0s", timedelta(hours=24)),
        ("1h30m", timedelta(minutes=90)),
        ("11d", timedelta(days=11)),
        ("90s", timedelta(seconds=90)),
        ("1.5h", timedelta(minutes=90)),
    ],
)
def test_parse_duration(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text", ["", "h", "10", "10x", "5h garbage", "Never"])
def test_parse_duration_rejects(text: str) -> None:
    with pytest.raises(TimeError):
        parse_duration(text)


@pytest.mark.parametrize(
    ("delta", "expected"),
    [
        (timedelta(seconds=5), "5s"),
        (timedelta(minutes=5), "5m"),
        (timedelta(minutes=45), "45m"),
        (timedelta(hours=5, minutes=3), "5h3m"),
        (timedelta(hours=20), "20h"),
        (timedelta(days=3, hours=4), "3d4h"),
        (timedelta(days=13), "13d"),
    ],
)
def test_format_age(delta: timedelta, expected: str) -> None:
    assert format_age(delta) == expected
