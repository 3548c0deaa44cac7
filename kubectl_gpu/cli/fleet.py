"""Fleet mode: a read-only command run on several clusters at once (docs/fleet.md).

`--contexts a,b,c` or `--all-contexts`, or a `--snapshot` that holds bundles of several clusters: the
command's own body runs once per cluster, each in a worker thread of `kube.fleet.gather` (at most
`MAX_PARALLEL` at once, each within its deadline), exactly as a single-cluster run with `--context NAME`
(or that cluster's bundles) would. The body returns its `run.Command` (data); each cluster's is answered
(`run.answer`) and nothing is written until all are in; a cluster that fails is that cluster's error, never
the fleet's. Then the fleet is written once: JSON/YAML as a `FleetReport` (`core.clusters`), a table with
a CLUSTER column of the view model (`render.fleet_view`), CSV with a `cluster` column; the exit code is the
fleet's (`core.clusters.fleet_exit_code`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from kubectl_gpu.cli.global_options import GlobalOptions, OutputFormat
from kubectl_gpu.cli.run import Answer, CsvTable, answer, execute
from kubectl_gpu.core.clusters import ClusterFailure, ClusterResult, SeveralClusters, combine
from kubectl_gpu.core.errors import ExitCode, InvalidInput, KubectlGpuError
from kubectl_gpu.core.k8s.times import go_duration

if TYPE_CHECKING:
    from kubectl_gpu.kube.fleet import Failed, TimedOut

__all__ = ["Member", "deadline", "dispatch", "failure", "fleet_csv", "live_members", "run_fleet"]

Call = Callable[[GlobalOptions], Any]


class Member(msgspec.Struct, frozen=True):
    """One cluster of the fleet: its name (the context), the kubeconfig cluster, and its options."""

    context: str
    cluster: str | None
    opts: GlobalOptions


def dispatch(call: Call, opts: GlobalOptions, command: str) -> int:
    """Run `call(opts)` as a single-cluster command, or as a fleet when the options (or the snapshot) say
    so. A --snapshot of several clusters' bundles, each file one cluster's, is a fleet of those clusters."""
    if opts.fleet:
        return run_fleet(call, opts, command, live_members(opts))
    if opts.snapshot:
        from kubectl_gpu.kube.snapshot import cluster_groups

        groups = cluster_groups(opts.snapshot)  # from the bundles' heads: each file is then parsed once
        if len(groups) > 1:
            return run_fleet(call, opts, command, _snapshot_members(opts, groups))
    try:
        return execute(opts, call(opts))
    except SeveralClusters as exc:  # bundles of several clusters in another layout, found while reading
        if not exc.groups or not opts.snapshot:
            raise
        return run_fleet(call, opts, command, _snapshot_members(opts, exc.groups))


def _snapshot_members(opts: GlobalOptions, groups: Sequence[tuple[str, tuple[str, ...]]]) -> list[Member]:
    return [
        Member(context, None, msgspec.structs.replace(opts, snapshot=files, fleet_member=True))
        for context, files in groups
    ]


def live_members(opts: GlobalOptions) -> list[Member]:
    """The contexts of --contexts / --all-contexts, checked against the kubeconfig before any is read."""
    from kubectl_gpu.kube.contexts import fleet_contexts

    if opts.contexts is not None and opts.all_contexts:
        raise InvalidInput("--contexts and --all-contexts: choose one")
    if opts.context:
        raise InvalidInput("--context and --contexts/--all-contexts: choose one", "list it in --contexts")
    if opts.snapshot:
        raise InvalidInput(
            "--snapshot and --contexts/--all-contexts: choose one",
            "a --snapshot of several clusters' bundles is already a fleet",
        )
    names = tuple((opts.contexts or "").split(","))
    contexts = fleet_contexts(opts.kubeconfig_path(), names, every=opts.all_contexts)
    single = msgspec.structs.replace(opts, contexts=None, all_contexts=False, fleet_member=True)
    return [
        Member(n, contexts.clusters.get(n), msgspec.structs.replace(single, context=n))
        for n in contexts.names
    ]


def deadline(opts: GlobalOptions) -> float | None:
    """A cluster's deadline (`kube.fleet.cluster_deadline`, as the TUI's fleet overview has it)."""
    from kubectl_gpu.kube.fleet import cluster_deadline

    return cluster_deadline(opts.timeout_seconds)


def _answer(call: Call, member: Member) -> Answer:
    command = call(member.opts)
    if isinstance(command, int):
        raise RuntimeError("the command wrote its own output: it has no fleet mode")
    return answer(member.opts, command)


def failure(result: Failed | TimedOut) -> ClusterFailure:
    from kubectl_gpu.kube.fleet import TimedOut
    from kubectl_gpu.render.messages import shown as scrub

    if isinstance(result, TimedOut):
        return ClusterFailure(
            f"context {result.key}: no answer within {go_duration(result.seconds)}; left behind so the other clusters "
            "could finish; raise --request-timeout for a slow cluster",
            ExitCode.CLUSTER,
        )
    exc = result.error
    if isinstance(exc, KubectlGpuError):
        return ClusterFailure(scrub(f"context {result.key}: {exc.line()}"), exc.exit_code)
    detail = " ".join(str(exc).split())
    line = f"context {result.key}: internal error: {type(exc).__name__}: {detail} (please report it)"
    return ClusterFailure(scrub(line), ExitCode.CLUSTER)


def _traceback(error: BaseException) -> None:
    """--debug: a failed cluster's traceback on stderr, as a single-cluster run shows its own."""
    import traceback

    from kubectl_gpu.cli.say import say

    say("".join(traceback.format_exception(error)), block=True)


def _notes(answer: Answer) -> list[dict[str, Any]]:
    return [{"code": n.code, "message": n.message, "kind": n.kind} for n in answer.notes]


def run_fleet(call: Call, opts: GlobalOptions, command: str, members: Sequence[Member]) -> int:
    """Run `call` on every member, then write the fleet as `opts` asks; the fleet's exit code."""
    from kubectl_gpu.kube.fleet import MAX_PARALLEL, Failed, Outcome, gather

    by_context = {m.context: m for m in members}
    outcomes = gather(
        list(by_context),
        lambda key: _answer(call, by_context[key]),
        parallel=MAX_PARALLEL,
        deadline=deadline(opts),
    )
    from kubectl_gpu.cli.printing import needs_document, report_document

    machine = opts.format in (OutputFormat.json, OutputFormat.yaml) or needs_document(opts)
    answers: dict[str, Answer] = {}
    results = []
    for outcome in outcomes:
        member = by_context[outcome.key]
        if isinstance(outcome, Outcome):
            answer: Answer = outcome.value
            answers[member.context] = answer
            document = report_document(opts, answer) if machine else None
            results.append(
                ClusterResult(member.context, member.cluster, document, ExitCode(answer.code), _notes(answer))
            )
        else:
            if opts.debug and isinstance(outcome, Failed):
                _traceback(outcome.error)
            results.append(ClusterResult(member.context, member.cluster, error=failure(outcome)))
    fleet = combine(command, results)
    _write(opts, fleet.clusters, answers, fleet.to_dict if machine else None)
    return int(fleet.exit_code)


def _write(
    opts: GlobalOptions,
    results: Sequence[ClusterResult],
    answers: dict[str, Answer],
    document: Callable[[], dict[str, Any]] | None,
) -> None:
    from kubectl_gpu.cli.printing import print_fleet
    from kubectl_gpu.cli.say import say
    from kubectl_gpu.render.output import dump_json, dump_yaml, make_console, print_table

    table = opts.format is not OutputFormat.csv
    no_color = opts.no_color or not table
    if opts.format in (OutputFormat.json, OutputFormat.yaml) and document is not None:
        data = document()
        sys.stdout.write(dump_json(data) if opts.format is OutputFormat.json else dump_yaml(data))
        for result in results:  # also in the document; a runbook's log shows them
            if result.error is not None:
                say(f"error: {result.error.message}", style="bold red", no_color=no_color)
        return
    for result in results:
        answer = answers.get(result.context)
        notes = () if answer is None else answer.table_notes if table else answer.notes
        for note in notes:  # a bundle's notes and the context's name are cluster text: `say` makes them safe
            style = "yellow" if note.code in ("FORBIDDEN", "PARTIAL") else "dim"
            say(f"warning: context {result.context}: {note.message}", style=style, no_color=no_color)
        if result.error is not None:
            say(f"error: {result.error.message}", style="bold red", no_color=no_color)
    if not table:
        sys.stdout.write(fleet_csv([(c, a.csv()) for c, a in answers.items() if a.csv is not None]))
        return
    if not answers or print_fleet(opts, results, answers, document() if document else {}):
        return
    from kubectl_gpu.render.fleet_view import fleet_view

    wide = opts.format is OutputFormat.wide
    views = [(context, answer.view(wide)) for context, answer in answers.items()]
    print_table(make_console(no_color=opts.no_color), fleet_view(views))


def fleet_csv(documents: Sequence[tuple[str, CsvTable]]) -> str:
    """The clusters' CSV data as one document, with a `cluster` column first (one header row)."""
    from kubectl_gpu.render.draw import csv_text

    header: Sequence[str] | None = None
    rows: list[list[object]] = []
    for cluster, (columns, records) in documents:
        header = header or columns
        rows.extend([cluster, *record] for record in records)
    return "" if header is None else csv_text(["cluster", *header], rows)
