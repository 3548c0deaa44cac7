"""The bundle's `usage` key: a ScrapeSet round-trips, bad shapes are one line, and a snapshot reads it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.usage import Scrape, ScrapeSet
from kubectl_gpu.core.usage.bundle import merge_scrapes, scrapes_from_dict, scrapes_to_dict
from kubectl_gpu.kube.snapshot import build_bundle, load_snapshot, write_bundle

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

SET = ScrapeSet(
    window_s=300,
    scrapes=(
        Scrape("dcgm", "gpu-operator", "nvidia-dcgm-exporter-abcde", T0, node="n1", port=9400, text="a 1\n"),
        Scrape("inference", "ml", "vllm-0", T0, port=8000, server="vllm", error="timed out after 5s"),
        Scrape("dcgm", "gpu-operator", "x", T0, error="forbidden: pods/proxy", forbidden=True),
    ),
    notes=("--sample not given",),
)


def test_round_trip() -> None:
    data = scrapes_to_dict(SET)
    assert data["scrapes"][0]["takenAt"] == "2026-12-01T12:00:00Z"
    assert scrapes_from_dict(data, "usage") == SET


@pytest.mark.parametrize(
    ("obj", "says"),
    [
        ([], "usage: must be an object"),
        ({"windowSeconds": "5m"}, "windowSeconds must be a number"),
        ({"windowSeconds": True}, "windowSeconds must be a number"),
        ({"windowSeconds": 1, "looked": "yes"}, "looked must be true or false"),
        ({"windowSeconds": 1, "notes": [1]}, "notes must be a list of strings"),
        ({"windowSeconds": 1, "scrapes": {}}, "scrapes must be a list"),
        ({"windowSeconds": 1, "scrapes": [1]}, "scrapes[0]: must be an object"),
        ({"windowSeconds": 1, "scrapes": [{"source": "x"}]}, "source must be one of"),
        ({"windowSeconds": 1, "scrapes": [{"source": "dcgm", "namespace": "a", "pod": "b"}]}, "takenAt"),
        (
            {
                "windowSeconds": 1,
                "scrapes": [{"source": "dcgm", "namespace": "a", "pod": "b", "takenAt": "x"}],
            },
            "takenAt: not an RFC 3339 time",
        ),
        (
            {"windowSeconds": 1, "scrapes": [{"source": "dcgm", "namespace": "a", "pod": "b", "port": 0}]},
            "port must be an integer",
        ),
        (
            {
                "windowSeconds": 1,
                "scrapes": [
                    {
                        "source": "dcgm",
                        "namespace": "a",
                        "pod": "b",
                        "takenAt": "2026-01-01T00:00:00Z",
                        "text": 3,
                    }
                ],
            },
            "text must be a string or null",
        ),
    ],
)
def test_bad_shapes_are_one_line(obj: object, says: str) -> None:
    with pytest.raises(InvalidInput) as exc:
        scrapes_from_dict(obj, "usage")
    assert says in exc.value.line()
    assert "\n" not in exc.value.line()


def test_merge_keeps_every_scrape() -> None:
    other = ScrapeSet(window_s=600, scrapes=SET.scrapes[:1], looked=False, notes=("--sample not given", "b"))
    merged = merge_scrapes(SET, other)
    assert (merged.window_s, merged.looked, merged.notes) == (600, False, ("--sample not given", "b"))
    assert len(merged.scrapes) == 4


def _bundle(usage: ScrapeSet | None) -> dict[str, object]:
    return build_bundle([], captured_at=T0, context="c", notes=[], absent=(), usage=usage)


def test_snapshot_reads_the_usage_key(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    bundle = _bundle(SET)
    assert list(bundle)[-1] == "objects"  # the layout bundle_stream reads: objects last
    write_bundle(bundle, path)
    assert load_snapshot([path]).scrapes == SET
    write_bundle(_bundle(None), path)
    assert "usage" not in _bundle(None)
    assert load_snapshot([path]).scrapes is None


def test_snapshot_with_a_bad_usage_key_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    bundle = _bundle(SET)
    bundle["usage"] = {"windowSeconds": -1}
    write_bundle(bundle, path)
    with pytest.raises(InvalidInput, match=r"b\.json: usage: windowSeconds"):
        load_snapshot([path])
