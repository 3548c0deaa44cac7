"""`kubectl gpu usage`: how busy the allocated GPUs are over a window (DCGM exporter through the API server's
proxy, or sampled nvidia-smi), what the idle ones cost per hour, and $ per million tokens per inference
workload. On a snapshot the bundle's saved window is read (`snapshot --usage-window`); live, the window is
read now (`kube.usage.collect`), so the command takes `--window` to answer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from kubectl_gpu.cli.cost import read_prices
from kubectl_gpu.cli.fleet_entry import fleet_face
from kubectl_gpu.cli.global_options import GlobalOptions
from kubectl_gpu.core.errors import InvalidInput

if TYPE_CHECKING:
    import typer

    from kubectl_gpu.cli.option_declarations import (
        ExporterNamespaceOption,
        PriceFileOption,
        ReadonlyOption,
        RegionOption,
    )
    from kubectl_gpu.core.analyses.usage import UsageReport
    from kubectl_gpu.core.k8s.state import ClusterState, Note
    from kubectl_gpu.core.usage import ScrapeSet

__all__ = ["NO_SAVED_WINDOW", "register"]

NO_SAVED_WINDOW = (
    "the snapshot holds no usage samples: take one with `kubectl gpu snapshot --usage-window 5m`"
)
_MAX_WINDOW_S = 3600.0


def window_seconds(text: str) -> float:
    """--window as seconds: a duration (30s, 5m, 1h), from 0 to an hour; InvalidInput (exit 2) otherwise."""
    from kubectl_gpu.core.k8s.times import TimeError, parse_duration

    try:
        seconds = parse_duration(text).total_seconds()
    except (TimeError, OverflowError):
        raise InvalidInput(f"--window: not a duration: {text!r}", "use forms like 30s, 5m, 1h") from None
    if not 0 <= seconds <= _MAX_WINDOW_S:
        raise InvalidInput(f"--window: {text!r} is out of range", "use a window from 0s to 1h")
    return seconds


def idle_threshold(value: float) -> float:
    if not 0 <= value <= 100:
        raise InvalidInput(f"--idle-below: {value:g} is not a percentage", "use a number from 0 to 100")
    return value


def scrapes_for(
    opts: GlobalOptions,
    state: ClusterState,
    *,
    window_s: float,
    sample: bool,
    exporter_namespaces: tuple[str, ...] = (),
) -> ScrapeSet:
    """The window the analysis reads: a snapshot's saved one, else read now from the live cluster (DCGM
    exporters believed when a DaemonSet owns them, or in `exporter_namespaces`)."""
    if opts.snapshot:
        return state.scrapes or _no_saved_window()
    from kubectl_gpu.cli.debug.usage_sample import smi_sampler
    from kubectl_gpu.cli.run import source_options
    from kubectl_gpu.kube.usage import collect

    sampler = smi_sampler(opts) if sample else None
    return collect(
        source_options(opts),
        state,
        window_s=window_s,
        sample=sample,
        sampler=sampler,
        exporter_namespaces=exporter_namespaces,
    )


def _no_saved_window() -> ScrapeSet:
    from kubectl_gpu.core.usage import ScrapeSet

    return ScrapeSet(window_s=0.0, looked=False, notes=(NO_SAVED_WINDOW,))


def usage_notes(report: UsageReport) -> list[Note]:
    """What the user must know: where figures are unknown (USAGE), what could not be looked at
    (FORBIDDEN: exit 4), and the prices (PRICES)."""
    from kubectl_gpu.core.analyses.usage import NOT_READ
    from kubectl_gpu.core.k8s.state import Note

    notes = [
        Note("USAGE" if text.startswith(NOT_READ) else "FORBIDDEN", text, "pods/proxy")
        for text in report.could_not_look
    ]
    notes += [Note("USAGE", text) for text in report.notes]
    return notes


def usage(
    window: Annotated[
        str,
        typer.Option("--window", help="How long to watch (live): reads spaced over it, e.g. 30s, 5m, 1h."),
    ] = "1m",
    idle_below: Annotated[
        float,
        typer.Option(
            "--idle-below", help="A pod whose GPUs stay below this utilisation (%) over the window is idle."
        ),
    ] = 10.0,
    sample: Annotated[
        bool,
        typer.Option(
            "--sample",
            help="Also sample nvidia-smi in debug pods on nodes no DCGM exporter covers (creates pods).",
        ),
    ] = False,
    readonly: ReadonlyOption = False,
    exporter_namespace: ExporterNamespaceOption = None,
    region: RegionOption = None,
    price_file: PriceFileOption = None,
    *,
    opts: GlobalOptions,
) -> Any:
    """How busy the allocated GPUs are per GPU, node, pod, namespace and workload (DCGM exporter, sampled
    nvidia-smi, else allocation only), what the idle ones cost per hour, and $ per 1M output tokens per
    inference workload. Exit 0 (findings inform), 4 when an exporter could not be read (forbidden), 2 when
    --sample meets read-only mode (--readonly, or readonly: true in the config file)."""
    from kubectl_gpu.cli.run import Command, Prepared
    from kubectl_gpu.core.analyses import usage as analysis
    from kubectl_gpu.kube.usage.config import exporter_namespaces

    seconds = window_seconds(window)
    threshold = idle_threshold(idle_below)
    namespaces = exporter_namespaces(exporter_namespace)
    if sample and not opts.snapshot:
        from kubectl_gpu.cli.readonly import refuse_pods_when_readonly

        refuse_pods_when_readonly("--sample", readonly)
    prices = read_prices(region, price_file)

    def draw(report: Any, wide: bool) -> Any:  # imported for a table only: `-o json` loads no console
        from kubectl_gpu.render.usage_view import usage_view

        return usage_view(report, wide=wide)

    def with_window(state: ClusterState) -> ClusterState:
        """The cluster with its usage window: a snapshot's saved one, else read now (live)."""
        import dataclasses

        found = scrapes_for(opts, state, window_s=seconds, sample=sample, exporter_namespaces=namespaces)
        return state if found is state.scrapes else dataclasses.replace(state, scrapes=found, _memo={})

    def prepare(state: ClusterState) -> Prepared[Any]:
        book = prices.book(state)
        scrapes = state.scrapes or _no_saved_window()
        return Prepared(
            analyse=lambda state, catalog, now: analysis.analyse(
                state,
                catalog,
                now,
                scrapes=scrapes,
                prices=book,
                idle_below=threshold,
                price_file=price_file,
                exporter_namespaces=namespaces,
            ),
            view=draw,
            notes=usage_notes,
        )

    return Command.for_page("usage", read_more=with_window, prepare=prepare, verdict=True)


def register(app: typer.Typer) -> None:
    from kubectl_gpu.cli.options import with_global_options

    app.command("usage")(with_global_options(usage, fleet=fleet_face("usage")))
