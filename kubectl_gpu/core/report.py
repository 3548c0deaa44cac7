"""One finding type shared by every analysis, so `diagnose` can merge them worst first.

Codes are stable (runbooks match on them); each analysis owns a prefix-free set of UPPER_SNAKE names
and documents them in README.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = ["Finding", "ObjectRef", "Severity"]


class Severity(StrEnum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return ("info", "warning", "error").index(self.value)

    def at_least(self, other: Severity) -> bool:
        return self.rank >= other.rank


@dataclass(frozen=True, slots=True, order=True)
class ObjectRef:
    kind: str  # Node | NodePool | NodeClass | EC2NodeClass | Pod | Namespace | ...
    name: str
    namespace: str | None = None

    def __str__(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind.lower()}/{where}{self.name}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "namespace": self.namespace}


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    severity: Severity
    object: ObjectRef
    message: str
    fix: str | None = None
    source: str = ""  # the analysis that produced it: nodes, pending, drivers, nvme, lifecycle, lint, cost

    def sort_key(self) -> tuple[int, str, str, str]:
        """Worst first, then by code and object, so reports are stable."""
        return (-self.severity.rank, self.code, str(self.object), self.message)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": str(self.severity),
            "object": self.object.to_dict(),
            "message": self.message,
            "fix": self.fix,
            "source": self.source,
        }
