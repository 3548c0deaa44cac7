"""What `kubectl gpu snapshot` reads (`capture`), and `snapshot --contexts a,b --out DIR` (or
`--all-contexts`): one bundle per cluster.

The contexts are read as every fleet command reads them (`kube.fleet.gather`: in parallel, bounded, each
within its deadline); each bundle is written as soon as its cluster is read, as `DIR/<context>.json`
(characters a file name should not hold become `_`). `--snapshot DIR` then reads them back as a fleet,
one cluster per bundle, never merged. The exit code is the fleet's (docs/exit-codes.md#fleet-mode): 0 when
every bundle is written; 4 when some context could not be captured (the others' bundles are written);
3 (or 2) when none could.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from kubectl_gpu.cli.fleet import Member, deadline, failure, live_members
from kubectl_gpu.cli.global_options import GlobalOptions
from kubectl_gpu.cli.run import source_options
from kubectl_gpu.core.clusters import ClusterResult, fleet_exit_code
from kubectl_gpu.core.errors import ExitCode, InvalidInput
from kubectl_gpu.core.lazy_pattern import lazy_pattern

if TYPE_CHECKING:
    from kubectl_gpu.core.k8s.state import Note
    from kubectl_gpu.core.usage.scrape import ScrapeSet

__all__ = ["Capture", "bundle_names", "capture", "snapshot_fleet"]


class Capture(msgspec.Struct, frozen=True):
    """One cluster as read for a bundle: its objects (redacted unless asked not to), context and notes."""

    objects: list[dict[str, Any]]
    context: str | None
    notes: list[Note]
    absent: set[str]
    listed: set[str] = msgspec.field(default_factory=set)

    def bundle(
        self,
        captured_at: datetime,
        *,
        redacted: bool,
        probes: dict[str, Any] | None = None,
        usage: ScrapeSet | None = None,
    ) -> Any:
        from kubectl_gpu.kube.snapshot import build_bundle

        return build_bundle(
            self.objects,
            captured_at=captured_at,
            context=self.context,
            notes=[{"code": n.code, "message": n.message, "kind": n.kind} for n in self.notes],
            absent=self.absent,
            listed=self.listed,
            probes=probes,
            redacted=redacted,
            usage=usage,
        )


def capture(opts: GlobalOptions, *, redacted: bool) -> Capture:
    """Read the cluster of `opts` (its --context) for a bundle."""
    from kubectl_gpu.kube.snapshot import redact
    from kubectl_gpu.kube.source import LiveClusterSource

    source = LiveClusterSource(source_options(opts)).live
    fetched = source.fetch()
    objects = [redact(o) for o in fetched.objects] if redacted else fetched.objects
    return Capture(objects, source.context, list(fetched.notes), set(fetched.absent), set(fetched.listed))


_UNSAFE = lazy_pattern(r"[^A-Za-z0-9._-]+")


def bundle_names(contexts: list[str]) -> dict[str, str]:
    """context -> file name in the --out directory: the context with `_` for what a file name should not
    hold (an EKS context is an ARN: `arn_aws_eks_us-west-2_1111_cluster_prod.json`), distinct."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for context in contexts:
        stem = _UNSAFE.sub("_", context).strip("._") or "context"
        name, n = f"{stem}.json", 1
        while name in taken:
            n += 1
            name = f"{stem}-{n}.json"
        taken.add(name)
        names[context] = name
    return names


def _directory(out: str) -> Path:
    target = Path(out)
    if target.exists() and not target.is_dir():
        raise InvalidInput(
            f"--out {out}: not a directory", "with --contexts/--all-contexts, name a directory"
        )
    if not target.parent.is_dir():
        raise InvalidInput(f"--out {out}: no such directory: {target.parent}", "create it first")
    try:
        target.mkdir(mode=0o700, exist_ok=True)  # the bundles map the clusters: the owner's only
    except OSError as exc:
        raise InvalidInput(f"--out {out}: cannot create it: {exc.strerror or exc}") from None
    return target


def snapshot_fleet(opts: GlobalOptions, out: str, *, redacted: bool) -> int:
    from kubectl_gpu.cli.say import say
    from kubectl_gpu.kube.fleet import MAX_PARALLEL, Outcome, gather
    from kubectl_gpu.kube.snapshot import write_bundle

    members = {m.context: m for m in live_members(opts)}
    directory = _directory(out)
    captured_at = opts.now_or(datetime.now(UTC))
    names = bundle_names(list(members))

    def work(context: str) -> tuple[Path, int, list[str]]:
        member: Member = members[context]
        taken = capture(member.opts, redacted=redacted)
        path = directory / names[context]
        write_bundle(taken.bundle(captured_at, redacted=redacted), path)
        return path, len(taken.objects), [n.message for n in taken.notes]

    results = []
    outcomes = gather(list(members), work, parallel=MAX_PARALLEL, deadline=deadline(opts))
    for outcome in outcomes:
        if isinstance(outcome, Outcome):
            path, count, notes = outcome.value
            for note in notes:
                say(f"warning: context {outcome.key}: {note}", no_color=opts.no_color)
            say(f"wrote {path}: {count} objects from context {outcome.key}", no_color=opts.no_color)
            results.append(ClusterResult(outcome.key, exit_code=ExitCode.OK))
        else:
            error = failure(outcome)
            say(f"error: {error.message}", style="bold red", no_color=opts.no_color)
            results.append(ClusterResult(outcome.key, error=error))
    return int(fleet_exit_code(results))
