"""Disruption budgets: cron windows in UTC (day, week, month and year boundaries), percentages rounded up,
reasons, the most restrictive budget, failing closed, and when disruption is next allowed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_gpu.core.k8s.models import Budget
from kubectl_gpu.core.karpenter.budgets import UNBOUNDED, BudgetSpec, PoolBudgets, cron_error


def t(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def b(nodes: str, schedule: str | None = None, duration: str | None = None, *reasons: str) -> Budget:
    return Budget(nodes, schedule, duration, tuple(reasons))


def spec(nodes: str, schedule: str | None = None, duration: str | None = None, *reasons: str) -> BudgetSpec:
    return BudgetSpec.of(b(nodes, schedule, duration, *reasons), 0)


class TestActive:
    def test_without_schedule_always_active(self) -> None:
        s = spec("10%")
        assert s.error is None and s.always_active
        assert s.active(t("2026-11-27T16:30:00Z"))

    @pytest.mark.parametrize(
        ("at", "active"),
        [
            ("2026-11-27T08:59:59Z", False),
            ("2026-11-27T09:00:00Z", True),  # the hit itself opens the window
            ("2026-11-27T16:59:59Z", True),
            ("2026-11-27T17:00:00Z", False),  # [h, h + duration): the end is outside
        ],
    )
    def test_window_is_half_open(self, at: str, active: bool) -> None:
        assert spec("0", "0 9 * * *", "8h").active(t(at)) is active

    @pytest.mark.parametrize(
        ("at", "active"),
        [
            ("2026-11-29T21:59:00Z", False),
            ("2026-11-29T23:30:00Z", True),  # Sunday evening
            ("2026-11-30T01:59:00Z", True),  # past midnight, now Monday: same window
            ("2026-11-30T02:00:00Z", False),
        ],
    )
    def test_window_across_midnight_and_week(self, at: str, active: bool) -> None:
        assert spec("0", "0 22 * * *", "4h").active(t(at)) is active

    @pytest.mark.parametrize(
        ("at", "active"),
        [
            ("2026-11-27T17:59:00Z", False),  # Friday before the window
            ("2026-11-28T12:00:00Z", True),  # Saturday
            ("2026-11-29T23:59:00Z", True),  # Sunday night
            ("2026-11-30T05:59:00Z", True),  # Monday morning: still the Friday window
            ("2026-11-30T06:00:00Z", False),
        ],
    )
    def test_weekend_window_from_friday(self, at: str, active: bool) -> None:
        assert spec("0", "0 18 * * fri", "60h").active(t(at)) is active

    def test_sunday_is_zero_and_the_week_wraps(self) -> None:
        s = spec("0", "0 22 * * 0", "6h")  # Sunday 22:00 -> Monday 04:00
        assert s.active(t("2026-11-30T03:00:00Z"))
        assert not s.active(t("2026-11-30T04:00:00Z"))
        assert not s.active(t("2026-11-28T23:00:00Z"))  # Saturday night

    def test_weekday_names_and_ranges(self) -> None:
        s = spec("0", "0 0 * * mon-fri", "24h")
        assert s.active(t("2026-11-27T16:30:00Z"))  # Friday
        assert not s.active(t("2026-11-28T00:00:00Z"))  # Saturday 00:00: Friday's window just ended
        assert not s.active(t("2026-11-29T12:00:00Z"))  # Sunday
        assert s.active(t("2026-11-30T00:00:00Z"))  # Monday

    def test_year_boundary(self) -> None:
        s = spec("0", "0 23 31 12 *", "2h")
        assert s.active(t("2027-01-01T00:30:00Z"))
        assert not s.active(t("2027-01-01T01:00:00Z"))

    @pytest.mark.parametrize(
        ("schedule", "at", "active"),
        [
            ("@daily", "2026-11-27T00:30:00Z", True),
            ("@midnight", "2026-11-27T01:30:00Z", False),
            ("@weekly", "2026-11-29T00:10:00Z", True),  # Sunday 00:00
            ("@weekly", "2026-11-28T00:10:00Z", False),
            ("@hourly", "2026-11-27T13:59:00Z", True),  # every hour for 1h: always
            ("@monthly", "2026-12-01T00:59:00Z", True),
            ("@yearly", "2027-01-01T00:00:00Z", True),
            ("@annually", "2026-12-31T23:00:00Z", False),
        ],
    )
    def test_descriptors(self, schedule: str, at: str, active: bool) -> None:
        assert spec("0", schedule, "1h").active(t(at)) is active

    def test_overlapping_hits_merge_into_one_window(self) -> None:
        s = spec("0", "0 * * * *", "90m")
        windows = s.windows(t("2026-11-27T00:00:00Z"), t("2026-11-27T06:00:00Z"))
        assert len(windows) == 1
        assert windows[0].start <= t("2026-11-27T00:00:00Z") and windows[0].end == t("2026-11-27T07:30:00Z")


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(
    schedule=st.sampled_from(
        ["0 9 * * mon-fri", "0 22 * * *", "30 18 * * fri", "0 0 1 * *", "*/20 * * * *", "@daily", "@weekly"]
    ),
    duration=st.sampled_from(["30m", "4h", "8h", "24h", "60h", "1h30m"]),
    minutes=st.integers(min_value=0, max_value=60 * 24 * 70),
)
def test_active_agrees_with_windows(schedule: str, duration: str, minutes: int) -> None:
    """`active` (Karpenter's IsActive) and the merged windows describe the same instants."""
    s = spec("0", schedule, duration)
    at = datetime(2026, 10, 1, tzinfo=UTC) + timedelta(minutes=minutes, seconds=17)
    windows = s.windows(at - timedelta(days=4), at + timedelta(days=1))
    assert s.active(at) is any(w.contains(at) for w in windows)


class TestValidation:
    @pytest.mark.parametrize(
        ("schedule", "fragment"),
        [
            ("0 9 * * 7", "day-of-week must be 0-6"),
            ("0 9 * * 1-7", "day-of-week must be 0-6"),
            ("0 0 9 * * *", "5 fields"),
            ("@every 1h", "unsupported cron descriptor"),
            ("0 25 * * *", "does not parse"),
        ],
    )
    def test_cron_karpenter_rejects(self, schedule: str, fragment: str) -> None:
        error = cron_error(schedule)
        assert error is not None and fragment in error

    @pytest.mark.parametrize(
        "schedule", ["0 9 * * mon-fri", "*/15 2 * * 0", "0 0 1 1 *", "@daily", "@annually"]
    )
    def test_cron_valid(self, schedule: str) -> None:
        assert cron_error(schedule) is None

    @pytest.mark.parametrize(
        ("budget", "fragment"),
        [
            (b("10%", "0 9 * * *"), "'schedule' must be set with 'duration'"),
            (b("10%", None, "8h"), "without a 'schedule'"),
            (b("110%"), "neither a count nor a percentage"),
            (b("5.5"), "neither a count nor a percentage"),
            (b("0", "0 9 * * *", "1d"), "minutes/hours"),
            (b("0", "0 9 * * *", "90s"), "minutes/hours"),
        ],
    )
    def test_invalid_budgets(self, budget: Budget, fragment: str) -> None:
        error = BudgetSpec.of(budget, 0).error
        assert error is not None and fragment in error

    @pytest.mark.parametrize("duration", ["30m", "8h", "1h30m", "10h0m0s", "160h"])
    def test_valid_durations(self, duration: str) -> None:
        assert BudgetSpec.of(b("0", "0 9 * * *", duration), 0).error is None


class TestAllowed:
    @pytest.mark.parametrize(
        ("nodes", "total", "allowed"),
        [
            ("10%", 1, 1),
            ("10%", 10, 1),
            ("10%", 11, 2),  # 1.1 rounds up
            ("25%", 5, 2),  # 1.25 rounds up
            ("20%", 19, 4),  # the docs' example: 3.8 -> 4
            ("100%", 3, 3),
            ("0%", 5, 0),
            ("1%", 1, 1),
            ("3", 10, 3),
            ("0", 10, 0),
        ],
    )
    def test_percentages_round_up(self, nodes: str, total: int, allowed: int) -> None:
        assert PoolBudgets([b(nodes)]).allowed("Drifted", t("2026-11-27T12:00:00Z"), total) == allowed

    def test_most_restrictive_active_budget_wins(self) -> None:
        budgets = PoolBudgets([b("50%"), b("2"), b("0", "0 9 * * *", "8h")])
        assert budgets.allowed("Drifted", t("2026-11-27T08:00:00Z"), 10) == 2
        assert budgets.allowed("Drifted", t("2026-11-27T10:00:00Z"), 10) == 0

    def test_reasons_filter(self) -> None:
        budgets = PoolBudgets([b("0", None, None, "Drifted"), b("5", None, None, "Underutilized", "Empty")])
        now = t("2026-11-27T12:00:00Z")
        assert budgets.allowed("Drifted", now, 10) == 0
        assert budgets.allowed("Underutilized", now, 10) == 5
        assert budgets.allowed("Empty", now, 10) == 5

    def test_no_active_budget_is_unbounded(self) -> None:
        budgets = PoolBudgets([b("0", "0 9 * * *", "1h")])
        assert budgets.allowed("Drifted", t("2026-11-27T12:00:00Z"), 10) == UNBOUNDED
        assert budgets.effective("Drifted", t("2026-11-27T12:00:00Z"), 10, 3) == UNBOUNDED

    def test_disrupting_nodes_use_up_the_allowance(self) -> None:
        budgets = PoolBudgets([b("50%")])
        now = t("2026-11-27T12:00:00Z")
        assert budgets.effective("Drifted", now, 3, 1) == 1  # ceil(1.5) - 1
        assert budgets.effective("Drifted", now, 3, 5) == 0

    def test_invalid_budget_fails_closed_for_every_reason(self) -> None:
        budgets = PoolBudgets([b("10%"), b("100%", "0 9 * * 7", "1h", "Drifted")])
        now = t("2026-11-27T12:00:00Z")
        assert [budgets.allowed(r, now, 10) for r in ("Drifted", "Underutilized", "Empty")] == [0, 0, 0]
        assert budgets.next_allowed("Underutilized", now, 10) is None
        assert budgets.blocked_always("Empty")

    def test_default_budget_when_none(self) -> None:
        budgets = PoolBudgets([])
        assert budgets.defaulted and budgets.specs[0].default and budgets.specs[0].budget.nodes == "10%"
        assert budgets.allowed("Drifted", t("2026-11-27T12:00:00Z"), 11) == 2

    def test_blocked_always(self) -> None:
        budgets = PoolBudgets([b("0", None, None, "Drifted"), b("10%")])
        assert budgets.blocked_always("Drifted")
        assert not budgets.blocked_always("Underutilized")
        assert not budgets.has_window
        assert PoolBudgets([b("0", "0 0 * * mon-fri", "24h")]).has_window


class TestNextAllowed:
    def test_weekday_block_opens_saturday_midnight(self) -> None:
        budgets = PoolBudgets([b("0", "0 0 * * mon-fri", "24h"), b("1")])
        friday = t("2026-11-27T16:30:00Z")
        assert budgets.allowed("Drifted", friday, 2) == 0
        assert budgets.next_allowed("Drifted", friday, 2) == t("2026-11-28T00:00:00Z")
        state = budgets.states(friday)[0]
        assert state.active and state.active_until == t("2026-11-28T00:00:00Z")
        # Mon-Fri windows merge into one block, Monday 00:00 to Saturday 00:00.
        assert state.next_start == t("2026-11-30T00:00:00Z") and state.next_end == t("2026-12-05T00:00:00Z")

    def test_nightly_block_across_sunday_midnight(self) -> None:
        budgets = PoolBudgets([b("0", "0 22 * * *", "4h", "Underutilized")])
        sunday = t("2026-11-29T23:30:00Z")
        assert budgets.next_allowed("Underutilized", sunday, 3) == t("2026-11-30T02:00:00Z")
        assert budgets.next_allowed("Drifted", sunday, 3) == sunday

    def test_allowed_now(self) -> None:
        now = t("2026-11-27T12:00:00Z")
        assert PoolBudgets([b("10%")]).next_allowed("Drifted", now, 3) == now

    def test_scheduled_opening_window(self) -> None:
        """A permissive window does not lift an always-active zero: the most restrictive wins."""
        budgets = PoolBudgets([b("0"), b("100%", "0 2 * * sun", "4h")])
        assert budgets.next_allowed("Drifted", t("2026-11-27T12:00:00Z"), 3) is None

    def test_window_closes_a_permissive_default(self) -> None:
        budgets = PoolBudgets([b("1", "0 2 * * sun", "4h", "Drifted"), b("0", "0 0 * * mon-sat", "24h")])
        # Monday..Saturday blocked, Sunday open for drift (1 node at a time).
        at = t("2026-11-25T10:00:00Z")  # Wednesday
        assert budgets.next_allowed("Drifted", at, 3) == t("2026-11-29T00:00:00Z")

    def test_nothing_within_horizon(self) -> None:
        budgets = PoolBudgets([b("0", "0 0 * * *", "24h")])  # blocked every day, all day
        assert budgets.next_allowed("Drifted", t("2026-11-27T12:00:00Z"), 3) is None

    def test_disrupting_nodes_block_until_they_are_gone(self) -> None:
        budgets = PoolBudgets([b("1")])
        assert budgets.next_allowed("Drifted", t("2026-11-27T12:00:00Z"), 3, disrupting=1) is None
