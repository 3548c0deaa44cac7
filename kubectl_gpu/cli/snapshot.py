"""`kubectl gpu snapshot`: capture what the analyses need into one bundle for offline use."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kubectl_gpu.cli.options import GlobalOptions, with_global_options
from kubectl_gpu.core.errors import ClusterError, ExitCode, InvalidInput

if TYPE_CHECKING:
    from kubectl_gpu.cli.capture import Capture
    from kubectl_gpu.core.usage.scrape import ScrapeSet

__all__ = ["register"]


def snapshot(
    ctx: typer.Context,
    out: Annotated[
        str,
        typer.Option(
            "--out",
            help="Bundle file to write (JSON; - for stdout); with --contexts/--all-contexts, a directory.",
        ),
    ] = "",
    old_out: Annotated[str, typer.Option("-f", hidden=True, help="Deprecated spelling of --out.")] = "",
    no_redact: Annotated[
        bool,
        typer.Option(
            "--no-redact",
            help="Keep what can carry a credential: commands, args and env values, probe headers, annotation "
            "values, userData (redacted by default; see docs/security.md).",
        ),
    ] = False,
    probe: Annotated[
        bool,
        typer.Option(
            "--probe",
            help="Also run the GPU collector in a debug pod on every accelerator node (as kubectl gpu smi "
            "--all) and store its output; read it back with kubectl gpu smi --snapshot FILE.",
        ),
    ] = False,
    usage_window: Annotated[
        str,
        typer.Option(
            "--usage-window",
            help="Also read /metrics of the DCGM exporters and inference servers through the API server's "
            "proxy, twice over this window (5m), and store them; kubectl gpu usage --snapshot FILE reads "
            "them back. Needs get on pods/proxy (deploy/rbac/usage.yaml).",
        ),
    ] = "",
    *,
    opts: GlobalOptions,
) -> int:
    """Capture nodes, pods, relevant events, NodePools, NodeClaims, NodeClasses and ResourceSlices into a
    bundle that every read-only command accepts with --snapshot. Secrets are never read. With --contexts
    or --all-contexts: one bundle per context in the --out directory."""
    from kubectl_gpu.cli.capture import capture
    from kubectl_gpu.cli.say import say

    out, window_s = _inputs(opts, out, old_out, usage_window)
    if opts.fleet:
        if probe or window_s is not None:
            flag = "--probe" if probe else "--usage-window"
            raise InvalidInput(f"{flag} works on one cluster", "snapshot each context with --context NAME")
        from kubectl_gpu.cli.capture import snapshot_fleet

        return snapshot_fleet(opts, out, redacted=not no_redact)
    namespaces = _exporter_namespaces() if window_s is not None else ()  # a bad config: before the capture
    # Before the capture, which may take minutes on a large cluster: where it goes, and --now.
    to_stdout = _check_target(out)
    captured_at = opts.now_or(datetime.now(UTC))
    taken = capture(opts, redacted=not no_redact)
    probes: dict[str, Any] = {}
    probe_warnings: list[str] = []
    pods_left: ClusterError | None = None
    if probe:
        from kubectl_gpu.cli.debug import probe_for_snapshot

        probes, probe_warnings, pods_left = probe_for_snapshot(opts)
    # After the probes (seconds), not before them: the window takes minutes and creates nothing.
    usage = None if window_s is None else _usage(opts, taken, window_s, namespaces, redacted=not no_redact)
    _write(taken.bundle(captured_at, redacted=not no_redact, probes=probes, usage=usage), out)
    for note in taken.notes:  # cluster text, and the context's name: `say` makes them safe
        say(f"warning: {note.message}", no_color=opts.no_color)
    for line in probe_warnings:
        say(f"warning: {line}", no_color=opts.no_color)
    where = "the bundle to stdout" if to_stdout else out
    say(f"wrote {where}: {len(taken.objects)} objects from context {taken.context}", no_color=opts.no_color)
    if pods_left is not None:  # the bundle is written; a privileged pod left on a node is still an error
        raise pods_left
    return ExitCode.OK


def _inputs(opts: GlobalOptions, out: str, old_out: str, usage_window: str) -> tuple[str, float | None]:
    """--out (or the deprecated -f) and --usage-window in seconds, checked before anything is read."""
    out = _deprecated_f(out, old_out, no_color=opts.no_color)
    if not out:
        raise InvalidInput("snapshot needs --out FILE", "e.g. kubectl gpu snapshot --out bundle.json")
    if opts.snapshot:
        raise InvalidInput("snapshot reads a live cluster; --snapshot cannot be its input")
    return out, _window(usage_window)


def _deprecated_f(out: str, old_out: str, *, no_color: bool) -> str:
    """`snapshot -f FILE`, the old spelling of --out: still written, with a warning. Everywhere else -f names an
    input (`lint -f`, kubectl's `-f`), so it goes in a later release (CHANGELOG, docs/commands/snapshot.md)."""
    if not old_out:
        return out
    if out:
        raise InvalidInput("snapshot: -f and --out both given", "use --out FILE (-f is deprecated)")
    from kubectl_gpu.cli.say import say

    say(
        "warning: snapshot -f is deprecated (-f means an input file, as in lint -f and kubectl -f): "
        f"use --out {old_out}",
        no_color=no_color,
    )
    return old_out


def _check_target(out: str) -> bool:
    """Whether --out is stdout (`-`, as `--snapshot -` reads stdin); InvalidInput when it cannot be written."""
    target = Path(out)
    if out != "-" and target.is_dir():
        raise InvalidInput(f"--out {out}: is a directory", "name a file, e.g. --out bundle.json")
    if not target.parent.is_dir():
        raise InvalidInput(f"--out {out}: no such directory: {target.parent}", "create it first")
    return out == "-"


def _window(text: str) -> float | None:
    """--usage-window in seconds; None when not given."""
    if not text:
        return None
    from kubectl_gpu.cli.durations import parse_seconds

    return parse_seconds(text, "--usage-window")


def _exporter_namespaces() -> tuple[str, ...]:
    """The config file's usage.exporterNamespaces (kube/usage/config.py)."""
    from kubectl_gpu.kube.usage.config import exporter_namespaces

    return exporter_namespaces()


def _usage(
    opts: GlobalOptions, taken: Capture, window_s: float, namespaces: tuple[str, ...], *, redacted: bool
) -> ScrapeSet:
    """A window of /metrics samples of the exporters (believed as `usage` believes them: a DaemonSet's, or
    in the config file's usage.exporterNamespaces) and servers among the pods just captured."""
    from kubectl_gpu.cli.run import source_options
    from kubectl_gpu.cli.say import say
    from kubectl_gpu.kube.usage import collect, find_endpoints
    from kubectl_gpu.kube.usage.saved import pods_state, redact_scrapes

    state = pods_state(taken.objects, taken.notes)
    found = len(find_endpoints(state, namespaces))
    if found:
        say(
            f"reading /metrics of {found} pods twice over {window_s:g}s (--usage-window)",
            no_color=opts.no_color,
        )
    scrapes = collect(
        source_options(opts), state, window_s=window_s, samples=2, exporter_namespaces=namespaces
    )
    return redact_scrapes(scrapes) if redacted else scrapes


def _write(bundle: dict[str, Any], out: str) -> None:
    """To the file (atomically, 0600), or to stdout for `-`."""
    from kubectl_gpu.kube.snapshot import bundle_bytes, write_bundle

    if out != "-":
        write_bundle(bundle, out)
        return
    sys.stdout.flush()
    sys.stdout.buffer.write(bundle_bytes(bundle))
    sys.stdout.buffer.flush()


def register(app: typer.Typer) -> None:
    app.command("snapshot")(with_global_options(snapshot, fleet="own"))
