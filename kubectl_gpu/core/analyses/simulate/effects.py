"""One difference a change makes, in one shape for every area, so the text, the JSON and the exit code
read the same list."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import msgspec

from kubectl_gpu.core.report import ObjectRef

__all__ = ["Direction", "Effect"]


class Direction(StrEnum):
    BETTER = "better"
    WORSE = "worse"
    UNCHANGED = "unchanged"  # a difference that is neither (a verdict that moved, a count that did not)


class Effect(msgspec.Struct, frozen=True):
    area: str  # pending | findings | lifecycle | cost | drift | validation
    direction: Direction
    object: ObjectRef
    message: str
    fix: str | None = None
    detail: dict[str, Any] = msgspec.field(default_factory=dict)

    def sort_key(self) -> tuple[int, str, str, str]:
        order = (Direction.WORSE, Direction.BETTER, Direction.UNCHANGED).index(self.direction)
        return (order, self.area, str(self.object), self.message)

    def to_dict(self) -> dict[str, Any]:
        return {
            "area": self.area,
            "direction": str(self.direction),
            "object": self.object.to_dict(),
            "message": self.message,
            "fix": self.fix,
            "detail": self.detail,
        }
