"""The Prometheus text exposition format, parsed by `prometheus_client`'s own parser. Pure.

`prometheus_client` is imported on the first parse (it costs ~100 ms: its package imports its HTTP
exposition too), so no other command pays for it. A text the library refuses as a whole (a truncated
read, a docs excerpt with `...` lines, one malformed series) is read again line by line: the series that
parse are kept and the others counted in `skipped`, so one bad line never hides a GPU.

The parser appends `_total` to the samples of a family typed `counter` (DCGM's
`DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION` comes back as `..._TOTAL_ENERGY_CONSUMPTION_total`); `Metrics.get`
looks a name up with and without that suffix, so callers use the names the exporters document.

Values are what a pod wrote, so they are checked before anything adds them up: `NaN`, `+Inf`, `-Inf` (valid
in the format) and a magnitude of 2^63 or more (no exporter's counter or gauge reaches it: `1e308` is a lie,
and two of them overflow a sum) are dropped and counted in `unusable`, never raised. Each field's own range
(a utilisation from 0 to 100, a counter never below 0) is its reader's to check (`dcgm`, `inference`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping

import msgspec

__all__ = ["ABSURD", "Metrics", "Series", "parse_metrics", "usable"]

#: A value this large (or larger, either sign) is not believed: past int64, where every exporter counts.
ABSURD = float(2**63)


def usable(value: float) -> bool:
    """Finite and below `ABSURD` in magnitude: a value worth reading at all."""
    return math.isfinite(value) and -ABSURD < value < ABSURD


class Series(msgspec.Struct, frozen=True):
    """One sample line: its name, labels and value (always `usable`: the others are dropped)."""

    name: str
    labels: Mapping[str, str]
    value: float


class Metrics(msgspec.Struct, frozen=True):
    """The series of one `/metrics` text, by name; `skipped`: lines that did not parse; `unusable`: samples
    dropped for a value that is not `usable` (NaN, an infinity, 1e308)."""

    by_name: Mapping[str, tuple[Series, ...]] = msgspec.field(default_factory=dict)
    skipped: int = 0
    unusable: int = 0
    unusable_names: frozenset[str] = frozenset()  # the names of those samples

    def get(self, name: str) -> tuple[Series, ...]:
        """The series named `name` (also found as `name_total`, or without `_total`)."""
        for candidate in (name, f"{name}_total", name.removesuffix("_total")):
            found = self.by_name.get(candidate)
            if found:
                return found
        return ()

    def had_unusable(self, name: str) -> bool:
        """Whether a sample named `name` (or `name_total`, or without `_total`) was dropped as not usable."""
        return any(n in self.unusable_names for n in (name, f"{name}_total", name.removesuffix("_total")))

    def has_prefix(self, prefix: str) -> bool:
        return any(name.startswith(prefix) for name in self.by_name)

    def total(self, name: str, **labels: str) -> float | None:
        """The sum of the series named `name` whose labels include `labels`; None when there is none."""
        values = [s.value for s in self.get(name) if all(s.labels.get(k) == v for k, v in labels.items())]
        return math.fsum(values) if values else None


def _families(text: str) -> Iterable[Series | str]:
    """Each sample of `text`; the name alone of one whose value is not `usable`."""
    from prometheus_client.parser import text_string_to_metric_families

    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            try:
                value = float(sample.value)
            except (OverflowError, ValueError, TypeError):  # an integer past any float
                yield sample.name
                continue
            yield Series(sample.name, dict(sample.labels), value) if usable(value) else sample.name


def _line_by_line(text: str) -> tuple[list[Series | str], int]:
    series: list[Series | str] = []
    skipped = 0
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            series.extend(_families(stripped + "\n"))
        except (ValueError, IndexError, KeyError, TypeError, OverflowError):
            skipped += 1
    return series, skipped


def parse_metrics(text: str) -> Metrics:
    """Every series of `text`; lines that do not parse are skipped and counted, values that are not
    `usable` dropped and counted; nothing is raised."""
    try:
        series, skipped = list(_families(text)), 0
    except (ValueError, IndexError, KeyError, TypeError, OverflowError):
        series, skipped = _line_by_line(text)
    by_name: dict[str, list[Series]] = defaultdict(list)
    unusable: list[str] = []
    for one in series:
        if isinstance(one, str):
            unusable.append(one)
        else:
            by_name[one.name].append(one)
    found = {name: tuple(found) for name, found in by_name.items()}
    return Metrics(found, skipped, len(unusable), frozenset(unusable))
