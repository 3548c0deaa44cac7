"""The Prometheus text exposition format, parsed by `prometheus_client`'s own parser. Pure.

`prometheus_client` is imported on the first parse (it costs ~100 ms: its package imports its HTTP
exposition too), so no other command pays for it. A text the library refuses as a whole (a truncated
read, a docs excerpt with `...` lines, one malformed series) is read again line by line: the series that
parse are kept and the others counted in `skipped`, so one bad line never hides a GPU.

The parser appends `_total` to the samples of a family typed `counter` (DCGM's
`DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION` comes back as `..._TOTAL_ENERGY_CONSUMPTION_total`); `Metrics.get`
looks a name up with and without that suffix, so callers use the names the exporters document.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping

import msgspec

__all__ = ["Metrics", "Series", "parse_metrics"]


class Series(msgspec.Struct, frozen=True):
    """One sample line: its name, labels and value (never NaN: those are dropped as unknown)."""

    name: str
    labels: Mapping[str, str]
    value: float


class Metrics(msgspec.Struct, frozen=True):
    """The series of one `/metrics` text, by name; `skipped`: lines that did not parse."""

    by_name: Mapping[str, tuple[Series, ...]] = msgspec.field(default_factory=dict)
    skipped: int = 0

    def get(self, name: str) -> tuple[Series, ...]:
        """The series named `name` (also found as `name_total`, or without `_total`)."""
        for candidate in (name, f"{name}_total", name.removesuffix("_total")):
            found = self.by_name.get(candidate)
            if found:
                return found
        return ()

    def has_prefix(self, prefix: str) -> bool:
        return any(name.startswith(prefix) for name in self.by_name)

    def total(self, name: str, **labels: str) -> float | None:
        """The sum of the series named `name` whose labels include `labels`; None when there is none."""
        values = [s.value for s in self.get(name) if all(s.labels.get(k) == v for k, v in labels.items())]
        return math.fsum(values) if values else None


def _families(text: str) -> Iterable[Series]:
    from prometheus_client.parser import text_string_to_metric_families

    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            value = float(sample.value)
            if not math.isnan(value):
                yield Series(sample.name, dict(sample.labels), value)


def _line_by_line(text: str) -> tuple[list[Series], int]:
    series: list[Series] = []
    skipped = 0
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            series.extend(_families(stripped + "\n"))
        except (ValueError, IndexError, KeyError, TypeError):
            skipped += 1
    return series, skipped


def parse_metrics(text: str) -> Metrics:
    """Every series of `text`; lines that do not parse are skipped and counted, never raised."""
    try:
        series, skipped = list(_families(text)), 0
    except (ValueError, IndexError, KeyError, TypeError):
        series, skipped = _line_by_line(text)
    by_name: dict[str, list[Series]] = defaultdict(list)
    for one in series:
        by_name[one.name].append(one)
    return Metrics({name: tuple(found) for name, found in by_name.items()}, skipped)
