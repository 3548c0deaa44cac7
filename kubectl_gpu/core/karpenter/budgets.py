"""Karpenter NodePool disruption budgets: when each budget is active (cron in UTC), how many nodes a pool may
disrupt for a reason at a given instant, and when that number next becomes non-zero.

Semantics mirrored from `kubernetes-sigs/karpenter` (read at `pkg/apis/v1/nodepool.go` @013941a, and the
AWS provider's `website/content/en/preview/concepts/disruption.md` @01f93d2, "NodePool Disruption Budgets"):

* `Budget.IsActive`: a budget without `schedule` and `duration` is always active. Otherwise the schedule is
  parsed as `cron.ParseStandard("TZ=UTC " + schedule)` and the budget is active at `now` when the first
  schedule hit after `now - duration` is not after `now`: each hit `h` opens the half-open window
  `[h, h + duration)`; overlapping windows merge.
* `Budget.GetAllowedDisruptions`: an inactive budget allows MaxInt32; an active one allows `nodes`, a
  percentage rounded **up** (`intstr.GetScaledValueFromIntOrPercent(..., roundUp=true)`) of the pool's node
  count, or the literal number.
* `NodePool.GetAllowedDisruptionsByReason`: the minimum over the budgets whose `reasons` is empty (= every
  reason) or lists the reason. Any budget that fails to evaluate (bad cron, bad `nodes`) makes
  `MustGetAllowedDisruptions` return 0 for *every* reason: Karpenter fails closed.
* `BuildDisruptionBudgetMapping` (`pkg/controllers/disruption/helpers.go`): the node count is the pool's
  initialized nodes; nodes that are NotReady or marked for deletion are subtracted from the allowance
  (`max(allowed - disrupting, 0)`).
* Budgets rate-limit the *graceful* methods only (drift, consolidation: `Drifted`, `Underutilized`, `Empty`;
  newer releases also `Unhealthy`). "NodePool Disruption Budgets do not prevent Karpenter from terminating
  expired nodes" (disruption.md): expiry is not evaluated here.

Cron dialect: robfig/cron `ParseStandard` takes five fields (minute hour day-of-month month day-of-week,
names like `mon-fri` allowed, day-of-week 0-6 only: `7` is rejected) or a descriptor; the CRD admits
`@annually @yearly @monthly @weekly @daily @midnight @hourly`. `croniter` evaluates the expression after
those checks (it would also accept a sixth seconds field and `7` for Sunday, which Karpenter does not).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from math import ceil
from typing import TYPE_CHECKING

import msgspec

from kubectl_gpu.core.k8s.models import Budget
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.k8s.times import TimeError, parse_duration
from kubectl_gpu.core.karpenter.lifecycle import instance_terminating, is_deleting
from kubectl_gpu.core.lazy_pattern import lazy_pattern

if TYPE_CHECKING:
    from croniter import croniter

# croniter (and dateutil under it) is imported where a schedule is read, not with this module: most pools
# have no scheduled budget, and every analysis command imports this one.

__all__ = [
    "DEFAULT_BUDGET",
    "REASONS",
    "UNBOUNDED",
    "BudgetSpec",
    "BudgetState",
    "PoolBudgets",
    "Window",
    "cron_error",
    "pool_disruption_counts",
]

REASONS = ("Drifted", "Underutilized", "Empty")
UNBOUNDED = 2**31 - 1  # Go math.MaxInt32: "no active budget limits this reason"
DEFAULT_BUDGET = Budget(nodes="10%", schedule=None, duration=None, reasons=())
# How far ahead "when is disruption next allowed" looks, and how many cron hits one budget may produce.
HORIZON = timedelta(days=35)
_MAX_HITS = 20000

_MACROS = frozenset({"@annually", "@yearly", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})
_NODES = lazy_pattern(r"^((100|[0-9]{1,2})%|[0-9]+)$")
_DURATION = lazy_pattern(r"^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$")
_DOW_NUMBER = lazy_pattern(r"\d+")


def cron_error(schedule: str) -> str | None:
    """Why Karpenter would reject this budget schedule, or None when it is valid."""
    text = schedule.strip()
    if text.startswith("@"):
        return None if text in _MACROS else f"unsupported cron descriptor {text!r}"
    fields = text.split()
    if len(fields) != 5:
        return f"cron schedule {schedule!r} must have 5 fields (minute hour day-of-month month day-of-week)"
    if any(int(n) > 6 for n in _DOW_NUMBER.findall(fields[4])):
        return (
            f"cron schedule {schedule!r}: day-of-week must be 0-6 (Sunday is 0; Karpenter's cron rejects 7)"
        )
    from croniter import croniter

    if not croniter.is_valid(text):
        return f"cron schedule {schedule!r} does not parse"
    return None


class Window(msgspec.Struct, frozen=True):
    """A half-open interval `[start, end)` during which a scheduled budget is active."""

    start: datetime
    end: datetime

    def contains(self, t: datetime) -> bool:
        return self.start <= t < self.end


class BudgetSpec(msgspec.Struct, frozen=True):
    """One budget, validated. `error` set: Karpenter cannot evaluate it and blocks the whole pool."""

    budget: Budget
    index: int
    default: bool
    duration: timedelta | None
    error: str | None

    @classmethod
    def of(cls, budget: Budget, index: int, *, default: bool = False) -> BudgetSpec:
        error: str | None = None
        duration: timedelta | None = None
        if not _NODES.match(budget.nodes):
            error = f"nodes {budget.nodes!r} is neither a count nor a percentage like 10%"
        if budget.duration is not None:
            if not _DURATION.match(budget.duration):
                error = error or f"duration {budget.duration!r} must be minutes/hours like 30m, 8h, 1h30m"
            try:
                duration = parse_duration(budget.duration)
            except TimeError as exc:
                error = error or str(exc)
        if budget.schedule is not None:
            error = error or cron_error(budget.schedule)
            if budget.duration is None:
                error = error or "'schedule' must be set with 'duration'"
        elif budget.duration is not None:
            error = error or "'duration' is set without a 'schedule'"
        return cls(budget, index, default, duration, error)

    @property
    def scheduled(self) -> bool:
        return self.budget.schedule is not None

    @property
    def always_active(self) -> bool:
        return self.budget.schedule is None and self.budget.duration is None

    def applies_to(self, reason: str) -> bool:
        return not self.budget.reasons or reason in self.budget.reasons

    def scaled(self, num_nodes: int) -> int:
        """Nodes this budget allows while active: a percentage rounds up, a number is taken as is."""
        nodes = self.budget.nodes
        if nodes.endswith("%"):
            return ceil(int(nodes[:-1]) * num_nodes / 100)
        return int(nodes)

    @property
    def zero(self) -> bool:
        """`nodes` 0 or 0% (also written 00): while active, the reasons it covers are not allowed at all."""
        return self.error is None and int(self.budget.nodes.rstrip("%")) == 0

    @property
    def blocks_always(self) -> bool:
        """A zero budget with no schedule: the reasons it covers are never allowed."""
        return self.zero and self.always_active

    def _cron(self, start: datetime) -> croniter:
        from croniter import croniter

        assert self.budget.schedule is not None
        return croniter(self.budget.schedule.strip(), start)

    def active(self, t: datetime) -> bool:
        """Karpenter's `IsActive` at `t` (only meaningful when `error` is None)."""
        if self.always_active:
            return True
        if self.error is not None or self.duration is None:
            return False
        from croniter import CroniterBadDateError

        checkpoint = t - self.duration
        try:
            hit: datetime = self._cron(checkpoint).get_next(datetime)
        except CroniterBadDateError:  # a schedule that never fires (`0 0 31 2 *`): never active
            return False
        return hit <= t

    def windows(self, start: datetime, end: datetime) -> list[Window]:
        """The merged active windows that overlap `[start, end]` (scheduled budgets only)."""
        if self.error is not None or not self.scheduled or self.duration is None or not self.duration:
            return []
        from croniter import CroniterBadDateError

        out: list[Window] = []
        it = self._cron(start - self.duration)
        for _ in range(_MAX_HITS):
            try:
                hit: datetime = it.get_next(datetime)
            except CroniterBadDateError:
                break
            if hit > end:
                break
            window_end = hit + self.duration
            if out and hit <= out[-1].end:
                out[-1] = Window(out[-1].start, max(out[-1].end, window_end))
            else:
                out.append(Window(hit, window_end))
        return [w for w in out if w.end > start]

    def describe(self) -> str:
        parts = [f"nodes {self.budget.nodes}"]
        if self.budget.schedule:
            parts.append(f"from {self.budget.schedule!r} (UTC) for {self.budget.duration}")
        parts.append(f"for {', '.join(self.budget.reasons)}" if self.budget.reasons else "for every reason")
        return " ".join(parts)


class BudgetState(msgspec.Struct, frozen=True):
    """One budget at an instant: active or not, and the window that holds `now` or comes next."""

    spec: BudgetSpec
    active: bool
    active_until: datetime | None
    next_start: datetime | None
    next_end: datetime | None


class PoolBudgets:
    """A NodePool's budgets (the CRD default `[{nodes: 10%}]` when the object has none)."""

    def __init__(self, budgets: Sequence[Budget]) -> None:
        self.defaulted = not budgets
        items = budgets or (DEFAULT_BUDGET,)
        self.specs = tuple(BudgetSpec.of(b, i, default=self.defaulted) for i, b in enumerate(items))
        self._next: dict[tuple[str, datetime, int, int, timedelta], datetime | None] = {}
        self._points: dict[tuple[datetime, datetime], list[datetime]] = {}

    @property
    def errors(self) -> list[BudgetSpec]:
        return [s for s in self.specs if s.error is not None]

    @property
    def has_window(self) -> bool:
        """At least one budget with a (valid) cron schedule: disruption is steered to or away from a window."""
        return any(s.scheduled and s.error is None for s in self.specs)

    def blocked_always(self, reason: str) -> bool:
        """Karpenter can never disrupt for `reason` (a permanent zero budget, or a broken budget)."""
        return bool(self.errors) or any(s.blocks_always and s.applies_to(reason) for s in self.specs)

    def allowed(self, reason: str, t: datetime, num_nodes: int) -> int:
        """`MustGetAllowedDisruptions` at `t`: UNBOUNDED when no active budget covers the reason."""
        if self.errors:
            return 0
        allowed = UNBOUNDED
        for spec in self.specs:
            if spec.applies_to(reason) and spec.active(t):
                allowed = min(allowed, spec.scaled(num_nodes))
        return allowed

    def effective(self, reason: str, t: datetime, num_nodes: int, disrupting: int) -> int:
        """What the disruption controller may still start: `max(allowed - disrupting, 0)`."""
        allowed = self.allowed(reason, t, num_nodes)
        return allowed if allowed == UNBOUNDED else max(allowed - disrupting, 0)

    def _boundaries(self, start: datetime, end: datetime) -> list[datetime]:
        cached = self._points.get((start, end))
        if cached is None:
            points: set[datetime] = set()
            for spec in self.specs:
                for window in spec.windows(start, end):
                    points.update(p for p in (window.start, window.end) if start < p <= end)
            cached = self._points[(start, end)] = sorted(points)
        return cached

    def next_allowed(
        self,
        reason: str,
        start: datetime,
        num_nodes: int,
        disrupting: int = 0,
        *,
        horizon: timedelta = HORIZON,
    ) -> datetime | None:
        """The first instant at or after `start` when at least one node may be disrupted for `reason`, or
        None when that does not happen within `horizon` (e.g. a permanent `nodes: "0"`)."""
        key = (reason, start, num_nodes, disrupting, horizon)
        if key not in self._next:
            self._next[key] = self._next_allowed(reason, start, num_nodes, disrupting, horizon)
        return self._next[key]

    def _next_allowed(
        self, reason: str, start: datetime, num_nodes: int, disrupting: int, horizon: timedelta
    ) -> datetime | None:
        if self.errors or self.blocked_always(reason):
            return None
        if self.effective(reason, start, num_nodes, disrupting) > 0:
            return start
        for point in self._boundaries(start, start + horizon):
            if self.effective(reason, point, num_nodes, disrupting) > 0:
                return point
        return None

    def states(self, now: datetime, *, horizon: timedelta = HORIZON) -> list[BudgetState]:
        out = []
        for spec in self.specs:
            if spec.error is not None:
                out.append(BudgetState(spec, False, None, None, None))
                continue
            if spec.always_active:
                out.append(BudgetState(spec, True, None, None, None))
                continue
            windows = spec.windows(now, now + horizon)
            current = next((w for w in windows if w.contains(now)), None)
            upcoming = next((w for w in windows if w.start > now), None)
            out.append(
                BudgetState(
                    spec,
                    current is not None,
                    current.end if current else None,
                    upcoming.start if upcoming else None,
                    upcoming.end if upcoming else None,
                )
            )
        return out


def pool_disruption_counts(state: ClusterState, pool: str) -> tuple[int, int]:
    """(nodes, disrupting) of one pool as `BuildDisruptionBudgetMapping` counts them: a node whose NodeClaim
    has `InstanceTerminating` is not counted at all; one that is NotReady or deleting (`is_deleting`) is
    disrupting. The nodes are those labelled with the pool (Karpenter also skips uninitialized ones)."""
    total = disrupting = 0
    for node in state.nodes_by_pool.get(pool, ()):
        claim = state.nodeclaim_by_node.get(node.name)
        if instance_terminating(claim):
            continue
        total += 1
        if not node.ready or is_deleting(node, claim):
            disrupting += 1
    return total, disrupting
