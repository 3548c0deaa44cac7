"""`leftover.judge`: which debug pods `cleanup` may delete without being told their name."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kubectl_gpu.core.debugpod.leftover import Creator, creator_value, judge, parse_creator

NOW = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
ME = Creator("laptop", 4242, "777")


def _pod(**fields: Any) -> dict[str, Any]:
    annotations = {"kubectl-gpu/creator": fields.pop("creator")} if "creator" in fields else {}
    return {
        "metadata": {
            "creationTimestamp": fields.pop("created", "2026-11-28T08:59:57Z"),
            "annotations": annotations,
            **({"deletionTimestamp": "2026-11-28T08:59:59Z"} if fields.pop("deleting", False) else {}),
        },
        "spec": {"activeDeadlineSeconds": fields.pop("deadline", 14400)},
        "status": {"phase": fields.pop("phase", "Running"), **fields},
    }


@pytest.mark.parametrize(
    ("pod", "alive", "left_behind", "why"),
    [
        (_pod(creator=creator_value(ME)), True, False, "its creator pid 4242 on laptop is running, deadline in 3h59m"),
        (_pod(creator=creator_value(ME)), None, False, "cannot tell from here"),
        (_pod(creator=creator_value(ME)), False, True, "its creator, pid 4242 on laptop, is gone"),
        (_pod(), False, False, "creator not recorded"),
        (_pod(phase="Failed"), True, True, "finished (Failed)"),
        (_pod(phase="Succeeded", creator=creator_value(ME)), True, True, "finished (Succeeded)"),
        (_pod(deleting=True, creator=creator_value(ME)), True, True, "being deleted"),
        (_pod(created="2026-11-28T08:00:00Z", deadline=300), True, True, "past its deadline by 55m"),
        # The deadline counts from startTime when the kubelet set one.
        (_pod(created="2026-11-28T08:00:00Z", startTime="2026-11-28T08:58:00Z", deadline=300), True, False, "deadline in 3m"),
        (_pod(creator="host=\x1b[31m pid=1"), False, False, "creator not recorded"),  # not of our writing
    ],
)  # fmt: skip
def test_judge(pod: dict[str, Any], alive: bool | None, left_behind: bool, why: str) -> None:
    verdict = judge(pod, NOW, lambda creator: alive)
    assert verdict.left_behind is left_behind and why in verdict.why, verdict


def test_creator_round_trips() -> None:
    assert parse_creator(creator_value(ME)) == ME
    assert parse_creator(creator_value(Creator("mac", 9))) == Creator("mac", 9, "")
    assert parse_creator("pid=12") is None and parse_creator(None) is None
