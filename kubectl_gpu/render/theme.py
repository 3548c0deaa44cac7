"""The one look of every view: what each colour means, which colour each severity, verdict and state gets,
and the house table.

Colour only ever repeats what a cell already says in words, and it never reaches a pipe: off a terminal the
console has no colour system (`render.output.make_console`). The state maps are keyed by the values the
analyses use (their StrEnums are strings), so importing the theme imports no analysis.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Literal

from rich.table import Table

__all__ = [
    "COMPAT",
    "ERROR",
    "FIX",
    "GOOD",
    "HEADER",
    "INFO",
    "MUTED",
    "NVME_STATE",
    "RISK",
    "SEVERITY",
    "SURVIVAL",
    "WARNING",
    "check_style",
    "pending_verdict",
    "severity",
    "table",
]

# What a colour means. Views name these, never a colour.
ERROR = "bold red"  # fails, blocks, will not survive, broken hardware
WARNING = "yellow"  # at risk, inferred, half-working: look at it
GOOD = "green"  # healthy, passes, survives
INFO = "cyan"  # information; capacity on its way
MUTED = "dim"  # notes, footnotes, what is not known
HEADER = "bold"  # column headers, table titles, names that start a block
FIX = GOOD  # the fix under a finding

SEVERITY: Mapping[str, str] = {"error": ERROR, "warning": WARNING, "info": INFO}

# `pending` / `explain`: every verdict but these blocks the pod.
PENDING_VERDICT: Mapping[str, str] = {
    "PROVISIONING": INFO,
    "NO_BLOCKER_FOUND": WARNING,
    "SCHEDULED_NOT_STARTED": WARNING,
}
# `lifecycle`: a pod's risk of disruption, and whether it survives the time it needs (--needs).
RISK: Mapping[str, str] = {"high": ERROR, "medium": WARNING, "low": GOOD}
SURVIVAL: Mapping[str, str] = {"yes": GOOD, "no": ERROR, "at-risk": WARNING}
# `drivers`: the worst CUDA compatibility of a workload with the nodes it runs on or may land on.
COMPAT: Mapping[str, str] = {
    "no": ERROR,
    "minor-compat": WARNING,
    "unknown": MUTED,
    "driver-unknown": MUTED,
    "full": GOOD,
}
# `nvme`: whether a node's instance-store NVMe holds its ephemeral storage.
NVME_STATE: Mapping[str, str] = {
    "ACTIVE": GOOD,
    "LIKELY_ACTIVE": GOOD,
    "DEGRADED": ERROR,
    "NOT_USED": WARNING,
    "NO_NVME": MUTED,
    "UNKNOWN": MUTED,
}


def severity(value: str) -> str:
    """The style of a severity (a `core.report.Severity`, or the plain string of an `smi` finding)."""
    return SEVERITY.get(str(value), WARNING)


def pending_verdict(verdict: str) -> str:
    return PENDING_VERDICT.get(str(verdict), ERROR)


def check_style(ok: bool | None) -> str:
    """A check that passes, fails, or could not be decided."""
    return WARNING if ok is None else GOOD if ok else ERROR


def table(
    columns: Iterable[str] = (),
    *,
    wrap: Collection[str] | Literal["all"] = (),
    overflow: Literal["fold", "ellipsis"] = "fold",
    title: str | None = None,
    show_header: bool = True,
) -> Table:
    """The house table: no box and no edge padding, two spaces between columns, bold headers, the title
    bold on the left (as `kubectl get` prints, so `awk` and `cut` work on it).

    Columns keep their cells on one line unless named in `wrap` ("all": every column), which wrap at words.
    On a terminal too narrow for the table, a one-line cell is cut with an ellipsis, never silently, and a
    word longer than a wrapping column is folded onto the next line (`overflow="fold"`) or cut."""
    result = Table(
        title=title,
        title_justify="left",
        title_style=HEADER,
        box=None,
        pad_edge=False,
        show_edge=False,
        show_header=show_header,
        header_style=HEADER,
    )
    for column in columns:
        one_line = wrap != "all" and column not in wrap
        result.add_column(column, no_wrap=one_line, overflow="ellipsis" if one_line else overflow)
    return result
