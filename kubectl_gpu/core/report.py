"""What every analysis returns: a `Report` with findings, one JSON envelope and one exit rule.

One finding type is shared by every analysis, so `diagnose` can merge them worst first. Codes are stable
(runbooks match on them); each analysis owns a prefix-free set of UPPER_SNAKE names, listed in
docs/codes.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import msgspec

from kubectl_gpu.core.errors import ExitCode

__all__ = [
    "API_VERSION",
    "FailOn",
    "Finding",
    "ObjectRef",
    "Report",
    "ReportBase",
    "Severity",
    "envelope",
    "severity_counts",
]

API_VERSION = "kubectl-gpu/v1"


class Severity(StrEnum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return _RANKS[
            self
        ]  # a dict, not a tuple's index of `.value`: findings are sorted by it by the thousand

    def at_least(self, other: Severity) -> bool:
        return self.rank >= other.rank


_RANKS: dict[str, int] = {"info": 0, "warning": 1, "error": 2}


class ObjectRef(msgspec.Struct, frozen=True, order=True):
    kind: str  # Node | NodePool | NodeClass | EC2NodeClass | Pod | Namespace | ...
    name: str
    namespace: str | None = None

    def __str__(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind.lower()}/{where}{self.name}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "namespace": self.namespace}


class Finding(msgspec.Struct, frozen=True):
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


class FailOn(StrEnum):
    """`--fail-on`: the least severe finding that makes a command exit 1."""

    warning = "warning"
    error = "error"

    @property
    def severity(self) -> Severity:
        return Severity(self.value)


def envelope(kind: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """The versioned JSON document every report writes: apiVersion, kind, then the report's own fields."""
    return {"apiVersion": API_VERSION, "kind": kind, **body}


class Report(Protocol):
    """The contract between an analysis and the front ends."""

    @property
    def kind(self) -> str: ...

    @property
    def findings(self) -> Sequence[Finding]: ...

    def to_dict(self) -> dict[str, Any]: ...

    def exit_code(self, fail_on: FailOn | None = None) -> ExitCode: ...


class ReportBase:
    """`to_dict` and `exit_code` for reports whose findings decide the exit code.

    A report names its `kind`, writes its own fields in `body()` and says which findings fail it by
    default (`default_fail_on`; None: findings are information and the command exits 0).
    """

    __slots__ = ()
    kind: ClassVar[str]
    default_fail_on: ClassVar[FailOn | None] = FailOn.error

    if TYPE_CHECKING:  # Subclasses have `findings` (a field or a property). Only declared for the type
        # checker: at run time a dataclass would take an inherited attribute for its field's default.
        @property
        def findings(self) -> Sequence[Finding]: ...

    def body(self) -> dict[str, Any]:
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        return envelope(self.kind, self.body())

    def exit_code(self, fail_on: FailOn | None = None) -> ExitCode:
        threshold = fail_on or self.default_fail_on
        if threshold is None:
            return ExitCode.OK
        failing = any(f.severity.at_least(threshold.severity) for f in self.findings)
        return ExitCode.FINDINGS if failing else ExitCode.OK


def severity_counts(findings: Sequence[Finding]) -> dict[str, int]:
    return {str(s): sum(1 for f in findings if f.severity is s) for s in Severity}
