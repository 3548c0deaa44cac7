"""Fleet mode as data: one command's answers from several clusters, and the exit code of the whole fleet.

Each cluster (a kubeconfig context, or one cluster's bundles in a `--snapshot` directory) is read and
analysed on its own, exactly as a single-cluster run would; this module only combines the results. It
never merges two clusters' objects: a fleet is a list of clusters, each with its own report or error.

The exit code of a fleet (docs/exit-codes.md#fleet-mode):

1. **1** when any cluster's report has findings (by the command's own rule): they are definite wherever
   they were found, and the JSON says which clusters could not be read;
2. else, when **no** cluster could be read at all, the worst of their errors (3 over 2), as a single
   cluster that cannot be read;
3. else **4** (could not look) when some cluster could not be read, or could not look at a kind (its own
   code is 4): what was read is clean, but the fleet was not looked at in full;
4. else **0**: every cluster read, nothing found.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from kubectl_gpu.core.errors import ExitCode, InvalidInput
from kubectl_gpu.core.report import envelope

__all__ = [
    "FLEET_KIND",
    "ClusterFailure",
    "ClusterResult",
    "FleetResult",
    "SeveralClusters",
    "combine",
    "fleet_exit_code",
]

FLEET_KIND = "FleetReport"


class SeveralClusters(InvalidInput):
    """`--snapshot` input holding bundles of several clusters. A single-cluster reader refuses it (exit 2);
    a command that has a fleet mode reads each cluster's files apart: `groups` is (context, files) per
    cluster, or empty when some file names no cluster (plain `kubectl get` output) and so cannot be
    assigned to one."""

    def __init__(
        self, message: str, hint: str | None = None, groups: Sequence[tuple[str, tuple[str, ...]]] = ()
    ) -> None:
        super().__init__(message, hint)
        self.groups = tuple(groups)


class ClusterFailure(msgspec.Struct, frozen=True):
    """Why a cluster has no report: the one-line error a single-cluster run would print, and its code."""

    message: str
    exit_code: ExitCode

    def to_dict(self) -> dict[str, Any]:
        return {"message": self.message, "exitCode": int(self.exit_code)}


class ClusterResult(msgspec.Struct, frozen=True):
    """One cluster of the fleet: its report's document and exit code, or the error that stopped it."""

    context: str  # the kubeconfig context (or the bundle's): the fleet's key and the CLUSTER column
    cluster: str | None = None  # the kubeconfig cluster entry it points at, when known
    # The report's JSON document (report.to_dict()); None when it failed, or is not needed (a table).
    document: Mapping[str, Any] | None = None
    exit_code: ExitCode = ExitCode.OK  # the report's code, as the single-cluster run would exit
    notes: Sequence[Mapping[str, Any]] = msgspec.field(default_factory=tuple)  # [{code, message, kind}]
    error: ClusterFailure | None = None

    @property
    def code(self) -> ExitCode:
        return self.error.exit_code if self.error is not None else self.exit_code

    def to_dict(self) -> dict[str, Any]:
        return {
            "context": self.context,
            "cluster": self.cluster,
            "exitCode": int(self.code),
            "error": self.error.to_dict() if self.error is not None else None,
            "notes": [dict(n) for n in self.notes],
            "report": dict(self.document) if self.document is not None else None,
        }


def fleet_exit_code(results: Sequence[ClusterResult]) -> ExitCode:
    """The exit code of the whole fleet (see the module's docstring)."""
    if not results:
        return ExitCode.OK
    codes = [r.code for r in results]
    if ExitCode.FINDINGS in (r.exit_code for r in results if r.error is None):
        return ExitCode.FINDINGS
    failed = [r.error.exit_code for r in results if r.error is not None]
    if len(failed) == len(results):
        return ExitCode.CLUSTER if ExitCode.CLUSTER in failed else max(failed)
    if failed or ExitCode.INCOMPLETE in codes:
        return ExitCode.INCOMPLETE
    return ExitCode.OK


class FleetResult(msgspec.Struct, frozen=True):
    """The fleet's answer: every cluster in the order asked, the report kind, the fleet's exit code."""

    command: str
    clusters: tuple[ClusterResult, ...]
    report_kind: str | None = None

    @property
    def exit_code(self) -> ExitCode:
        return fleet_exit_code(self.clusters)

    def to_dict(self) -> dict[str, Any]:
        return envelope(
            FLEET_KIND,
            {
                "command": self.command,
                "reportKind": self.report_kind,
                "exitCode": int(self.exit_code),
                "summary": {
                    "clusters": len(self.clusters),
                    "read": sum(1 for c in self.clusters if c.error is None),
                    "failed": sum(1 for c in self.clusters if c.error is not None),
                },
                "clusters": [c.to_dict() for c in self.clusters],
            },
        )


def combine(command: str, results: Sequence[ClusterResult]) -> FleetResult:
    """The fleet of `results` (kept in their order: the order the contexts were named, or sorted)."""
    kinds = {str(r.document.get("kind")) for r in results if r.document is not None}
    return FleetResult(command, tuple(results), next(iter(kinds)) if len(kinds) == 1 else None)
