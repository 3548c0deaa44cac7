"""A `ScrapeSet` read into figures over its window: per GPU, per inference server, and what failed. Pure.

Per GPU (one exporter's GPU, keyed by the node the exporter runs on and the GPU's UUID / MIG instance):
utilisation, memory used and power are the means of the samples that carry them; memory total is the
last sample's used + free; the energy counter gives the mean power over the window when two samples
carry it (resets handled). Per inference server pod: tokens per second from its counters' first to last
good sample (`rates.counter_rate`). A read that failed is kept (`FailedRead`), once per endpoint.

What is believed (`trust`): a DCGM scrape of rank UNTRUSTED is left out; each GPU is read from one exporter
only (a GPU on another node than its ResourceSlice says, or claimed by two exporters of the same rank at
once, is not believed, and `trust_notes` says so, naming the pods); an inference server's figures are its
own pod's. Values that are not usable or out of their field's range are counted in `rejected_values`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime

import msgspec

from kubectl_gpu.core.usage.dcgm import MAX_POWER_W, GpuKey, GpuReading, PodRef, dcgm_readings
from kubectl_gpu.core.usage.inference import TokenReading, token_reading
from kubectl_gpu.core.usage.metrics import parse_metrics
from kubectl_gpu.core.usage.rates import Point, counter_increase, counter_rate, gauge_mean, resets
from kubectl_gpu.core.usage.scrape import Scrape, ScrapeSet
from kubectl_gpu.core.usage.trust import DAEMONSET, NAMED, UNTRUSTED, untrusted_note

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
    unread: str | None = None  # a series that looks like a token counter but was not read (the last read's)


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
    rejected_values: int = 0  # NaN, infinities, 1e308, values out of their field's range: not believed
    trust_notes: tuple[str, ...] = ()  # GPU readings not believed: conflicts, a GPU on another node

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
        energy_power_w=_power(increase, seconds),
        pods=tuple(pods),
    )


def _power(increase_mj: float | None, seconds: float) -> float | None:
    """Mean watts from an energy counter's rise (mJ) over `seconds`; None past any board's draw (a counter
    that jumped)."""
    if increase_mj is None or seconds <= 0:
        return None
    watts = increase_mj / seconds / 1000
    return watts if watts <= MAX_POWER_W else None


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
        counted=bool(output or prompt) or any(r.distrusted for _, r in reads),
        unread=next((r.unread for _, r in reversed(reads) if r.unread), None),
    )


def _failures(scrapes: Iterable[Scrape]) -> tuple[FailedRead, ...]:
    counts: dict[tuple[str, str, str, str | None, str, bool], int] = defaultdict(int)
    for s in scrapes:
        if s.text is None:
            counts[(s.source, s.namespace, s.pod, s.node, s.error or "no text", s.forbidden)] += 1
    return tuple(FailedRead(*key, reads=n) for key, n in sorted(counts.items()))


_Pod = tuple[str, str]  # (namespace, name) of the exporter read
_Claim = tuple[str, str | None, str]  # a GPU: (UUID, None, MIG id) anywhere, or ("index:N", node, MIG id)


class _Exporter:
    """One DCGM exporter pod's reads: where it runs, its rank, when it was read."""

    def __init__(self, scrape: Scrape, rank: int) -> None:
        self.key: _Pod = (scrape.namespace, scrape.pod)
        self.node = scrape.node
        self.rank = rank
        self.first = self.last = scrape.taken_at

    def saw(self, at: datetime) -> None:
        self.first, self.last = min(self.first, at), max(self.last, at)

    def overlaps(self, other: _Exporter) -> bool:
        return not (self.last < other.first or other.last < self.first)

    def __str__(self) -> str:
        return f"{self.key[0]}/{self.key[1]} on {self.node or 'an unknown node'}"


def _claim(reading: GpuReading, node: str | None) -> _Claim:
    uuid, mig = reading.key
    return (uuid, None, mig) if reading.uuid else (uuid, node, mig)


def _gpu_name(claim: _Claim) -> str:
    what, node, mig = claim
    name = what if node is None else f"{what} of node {node}"
    return f"{name} (MIG instance {mig})" if mig else name


def _believed(
    claim: _Claim, exporters: list[_Exporter], homes: Mapping[str, str]
) -> tuple[set[_Pod], list[str]]:
    """Which exporters are believed about one GPU (module docstring), and the notes for those that are not."""
    notes = []
    home = homes.get(claim[0]) if claim[1] is None else None
    if home is not None:
        away = [e for e in exporters if e.node != home]
        if away:
            who = ", ".join(sorted(str(e) for e in away))
            notes.append(
                f"GPU {_gpu_name(claim)} is on node {home} (its ResourceSlice): not believed from {who}"
            )
        exporters = [e for e in exporters if e.node == home]
    if len(exporters) < 2:
        return {e.key for e in exporters}, notes
    best = max(e.rank for e in exporters)
    chosen = sorted((e for e in exporters if e.rank == best), key=lambda e: (e.first, e.key))
    below = sorted(str(e) for e in exporters if e.rank < best)
    replaced = len({e.node for e in chosen}) == 1 and all(
        not a.overlaps(b) for i, a in enumerate(chosen) for b in chosen[i + 1 :]
    )
    if len(chosen) > 1 and not replaced:
        who = " and ".join(str(e) for e in chosen)
        notes.append(
            f"conflict: GPU {_gpu_name(claim)} is reported by {who}: believed from neither (utilisation "
            "unknown); name the real exporter's namespace with --exporter-namespace"
        )
        return set(), notes
    if below:
        why = "an --exporter-namespace" if best == NAMED else "a DaemonSet's"
        notes.append(f"GPU {_gpu_name(claim)} is read from {chosen[0]} ({why}), not from {', '.join(below)}")
    return {e.key for e in chosen}, notes


def read_window(
    scrapes: ScrapeSet,
    *,
    rank: Callable[[Scrape], int] | None = None,
    homes: Mapping[str, str] | None = None,
) -> Window:
    """Every figure the window's scrapes give, parsed once per text. `rank`: how far a DCGM scrape's pod is
    believed (`trust.scrape_rank`; default: every one as a DaemonSet's); `homes`: GPU UUID -> its node
    (`trust.gpu_homes`)."""
    ranked = rank or (lambda _: DAEMONSET)
    gpus: dict[tuple[str | None, str, GpuKey], list[tuple[datetime, GpuReading]]] = defaultdict(list)
    servers: dict[tuple[str, str], list[tuple[datetime, TokenReading]]] = defaultdict(list)
    firsts: dict[tuple[str, str], Scrape] = {}
    exporters: dict[_Pod, _Exporter] = {}
    claims: dict[_Claim, list[tuple[_Pod, str | None, datetime, GpuReading]]] = defaultdict(list)
    untrusted: set[_Pod] = set()
    skipped = rejected = 0
    for scrape in scrapes.scrapes:
        if scrape.text is None:
            if scrape.source == "inference":
                firsts.setdefault((scrape.namespace, scrape.pod), scrape)
            continue
        if scrape.source == "smi":
            for reading in _smi_readings(scrape.text):
                gpus[(scrape.node, "smi", reading.key)].append((scrape.taken_at, reading))
            continue
        key = (scrape.namespace, scrape.pod)
        if scrape.source == "dcgm":
            level = ranked(scrape)
            if level == UNTRUSTED:
                untrusted.add(key)
                continue
            exporter = exporters.get(key)
            if exporter is None:
                exporter = exporters[key] = _Exporter(scrape, level)
            exporter.saw(scrape.taken_at)
        metrics = parse_metrics(scrape.text)
        skipped += metrics.skipped
        rejected += metrics.unusable
        if scrape.source == "dcgm":
            for reading in dcgm_readings(metrics):
                rejected += reading.rejected
                node = scrape.node or reading.hostname
                claims[_claim(reading, node)].append((key, node, scrape.taken_at, reading))
        else:
            firsts.setdefault(key, scrape)
            tokens = token_reading(metrics, scrape.server)
            rejected += tokens.rejected
            servers[key].append((scrape.taken_at, tokens))
    notes = [note] if (note := untrusted_note(untrusted, "not believed")) else []
    for claim, seen in claims.items():
        believed, said = _believed(
            claim, [exporters[k] for k in dict.fromkeys(k for k, *_ in seen)], homes or {}
        )
        notes += said
        for who, node, at, reading in seen:
            if who in believed:
                gpus[(node, "dcgm", reading.key)].append((at, reading))
    return Window(
        window_s=scrapes.window_s,
        looked=scrapes.looked,
        notes=scrapes.notes,
        gpus=tuple(_gpu_window(node, source, r) for (node, source, _), r in sorted(gpus.items(), key=_gkey)),
        servers=tuple(_server_window(firsts[k], servers.get(k, [])) for k in sorted(firsts)),
        failed=_failures(scrapes.scrapes),
        skipped_lines=skipped,
        rejected_values=rejected,
        trust_notes=tuple(notes),
    )


def _gkey(item: tuple[tuple[str | None, str, GpuKey], object]) -> tuple[str, str, GpuKey]:
    (node, source, key), _ = item
    return (node or "", source, key)
