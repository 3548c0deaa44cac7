"""A `ScrapeSet` read into figures over its window: per GPU, per inference server, and what failed. Pure.

Per GPU (one exporter's GPU, keyed by the node the exporter runs on and the GPU's UUID / MIG instance):
utilisation, memory used and power are the means of the samples that carry them; memory total is the
last sample's used + free; the energy counter gives the mean power over the window when two samples
carry it (resets handled). Per inference server pod: tokens per second from its counters' first to last
good sample (`rates.counter_rate`). A read that failed is kept (`FailedRead`), once per endpoint.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime

import msgspec

from kubectl_gpu.core.usage.dcgm import GpuKey, GpuReading, PodRef, dcgm_readings
from kubectl_gpu.core.usage.inference import TokenReading, token_reading
from kubectl_gpu.core.usage.metrics import parse_metrics
from kubectl_gpu.core.usage.rates import Point, counter_increase, counter_rate, gauge_mean, resets
from kubectl_gpu.core.usage.scrape import Scrape, ScrapeSet

__all__ = ["FailedRead", "GpuWindow", "ServerWindow", "Window", "read_window"]

SMI_FIELD = "nvidia-smi utilization.gpu"


class GpuWindow(msgspec.Struct, frozen=True):
    node: str | None
    key: GpuKey
    index: str | None
    uuid: str | None
    model: str | None
    mig_profile: str | None
    source: str  # dcgm | smi
    util_percent: float | None
    util_field: str | None
    samples: int  # scrapes that gave a utilisation
    memory_used_mib: float | None
    memory_total_mib: float | None
    power_w: float | None
    energy_power_w: float | None  # mean power from the energy counter
    pods: tuple[PodRef, ...]  # attributed by the exporter


class ServerWindow(msgspec.Struct, frozen=True):
    namespace: str
    pod: str
    node: str | None
    server: str | None  # None: not recognised
    model: str | None
    output_tokens_per_s: float | None
    prompt_tokens_per_s: float | None
    samples: int  # good reads
    resets: int
    counted: bool = False  # some read carried a token counter


class FailedRead(msgspec.Struct, frozen=True):
    source: str
    namespace: str
    pod: str
    node: str | None
    error: str
    forbidden: bool
    reads: int  # how many reads of this endpoint failed this way


class Window(msgspec.Struct, frozen=True):
    window_s: float
    looked: bool
    notes: tuple[str, ...]
    gpus: tuple[GpuWindow, ...]
    servers: tuple[ServerWindow, ...]
    failed: tuple[FailedRead, ...]
    skipped_lines: int

    @property
    def forbidden(self) -> bool:
        return not self.looked or any(f.forbidden for f in self.failed)

    @property
    def measured(self) -> bool:
        return any(g.util_percent is not None for g in self.gpus)


def _smi_readings(text: str) -> tuple[GpuReading, ...]:
    from kubectl_gpu.core.probe import parse_saved_output

    try:
        result = parse_saved_output(text)
    except ValueError:
        return ()
    out = []
    for gpu in result.gpus:
        used, total = gpu.memory_used_mib, gpu.memory_total_mib
        out.append(
            GpuReading(
                key=(gpu.uuid or f"index:{gpu.index}", ""),
                index=str(gpu.index),
                uuid=gpu.uuid,
                model=gpu.name,
                hostname=None,
                mig_profile=None,
                util_percent=None if gpu.utilization_pct is None else float(gpu.utilization_pct),
                util_field=SMI_FIELD if gpu.utilization_pct is not None else None,
                memory_used_mib=None if used is None else float(used),
                memory_free_mib=None if used is None or total is None else float(total - used),
                power_w=gpu.power_w,
                energy_mj=None,
                pods=(),
            )
        )
    return tuple(out)


def _gpu_window(node: str | None, source: str, readings: list[tuple[datetime, GpuReading]]) -> GpuWindow:
    readings.sort(key=lambda r: r[0])
    last = readings[-1][1]
    utils = [r.util_percent for _, r in readings]
    energy = [Point(at, r.energy_mj) for at, r in readings if r.energy_mj is not None]
    increase = counter_increase(energy)
    seconds = (energy[-1].at - energy[0].at).total_seconds() if len(energy) > 1 else 0.0
    totals = [r.memory_total_mib for _, r in readings if r.memory_total_mib is not None]
    pods = sorted({p for _, r in readings for p in r.pods})
    return GpuWindow(
        node=node,
        key=last.key,
        index=last.index,
        uuid=last.uuid,
        model=last.model,
        mig_profile=last.mig_profile,
        source=source,
        util_percent=gauge_mean(utils),
        util_field=next((r.util_field for _, r in reversed(readings) if r.util_field), None),
        samples=sum(1 for u in utils if u is not None),
        memory_used_mib=gauge_mean(r.memory_used_mib for _, r in readings),
        memory_total_mib=totals[-1] if totals else None,
        power_w=gauge_mean(r.power_w for _, r in readings),
        energy_power_w=increase / seconds / 1000 if increase is not None and seconds > 0 else None,
        pods=tuple(pods),
    )


def _server_window(first: Scrape, reads: list[tuple[datetime, TokenReading]]) -> ServerWindow:
    servers = [r.server for _, r in reads if r.server]
    output = [Point(at, r.output_tokens) for at, r in reads if r.output_tokens is not None]
    prompt = [Point(at, r.prompt_tokens) for at, r in reads if r.prompt_tokens is not None]
    return ServerWindow(
        namespace=first.namespace,
        pod=first.pod,
        node=first.node,
        server=servers[-1] if servers else None,
        model=next((r.model for _, r in reversed(reads) if r.model), None),
        output_tokens_per_s=counter_rate(output),
        prompt_tokens_per_s=counter_rate(prompt),
        samples=len(reads),
        resets=resets(output),
        counted=bool(output or prompt),
    )


def _failures(scrapes: Iterable[Scrape]) -> tuple[FailedRead, ...]:
    counts: dict[tuple[str, str, str, str | None, str, bool], int] = defaultdict(int)
    for s in scrapes:
        if s.text is None:
            counts[(s.source, s.namespace, s.pod, s.node, s.error or "no text", s.forbidden)] += 1
    return tuple(FailedRead(*key, reads=n) for key, n in sorted(counts.items()))


def read_window(scrapes: ScrapeSet) -> Window:
    """Every figure the window's scrapes give, parsed once per text."""
    gpus: dict[tuple[str | None, str, GpuKey], list[tuple[datetime, GpuReading]]] = defaultdict(list)
    servers: dict[tuple[str, str], list[tuple[datetime, TokenReading]]] = defaultdict(list)
    firsts: dict[tuple[str, str], Scrape] = {}
    skipped = 0
    for scrape in scrapes.scrapes:
        if scrape.text is None:
            if scrape.source == "inference":
                firsts.setdefault((scrape.namespace, scrape.pod), scrape)
            continue
        if scrape.source == "smi":
            for reading in _smi_readings(scrape.text):
                gpus[(scrape.node, "smi", reading.key)].append((scrape.taken_at, reading))
            continue
        metrics = parse_metrics(scrape.text)
        skipped += metrics.skipped
        if scrape.source == "dcgm":
            for reading in dcgm_readings(metrics):
                node = scrape.node or reading.hostname
                gpus[(node, "dcgm", reading.key)].append((scrape.taken_at, reading))
        else:
            key = (scrape.namespace, scrape.pod)
            firsts.setdefault(key, scrape)
            servers[key].append((scrape.taken_at, token_reading(metrics, scrape.server)))
    return Window(
        window_s=scrapes.window_s,
        looked=scrapes.looked,
        notes=scrapes.notes,
        gpus=tuple(_gpu_window(node, source, r) for (node, source, _), r in sorted(gpus.items(), key=_gkey)),
        servers=tuple(_server_window(firsts[k], servers.get(k, [])) for k in sorted(firsts)),
        failed=_failures(scrapes.scrapes),
        skipped_lines=skipped,
    )


def _gkey(item: tuple[tuple[str | None, str, GpuKey], object]) -> tuple[str, str, GpuKey]:
    (node, source, key), _ = item
    return (node or "", source, key)
