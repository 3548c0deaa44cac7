"""Human and JSON output of `kubectl gpu smi`, `--dry-run`, `cleanup`, and the fan-out progress display."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from kubectl_gpu.core.analyses.smi import SmiResult
from kubectl_gpu.core.debugpod import KubectlDebugCommand
from kubectl_gpu.core.k8s.times import format_age, parse_time
from kubectl_gpu.core.probe import Gpu
from kubectl_gpu.render.output import dump_yaml, print_table

__all__ = [
    "DryRunPlan",
    "cleanup_table",
    "dry_run_text",
    "fanout_progress",
    "print_smi",
    "smi_report",
]


def smi_report(results: Sequence[SmiResult]) -> dict[str, Any]:
    """The versioned JSON document (`kind: SmiReport`)."""
    return {"apiVersion": "kubectl-gpu/v1", "kind": "SmiReport", "results": [r.to_dict() for r in results]}


def _v(value: object, suffix: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.1f}{suffix}" if value != int(value) else f"{int(value)}{suffix}"
    return f"{value}{suffix}"


def _memory(gpu: Gpu) -> str:
    if gpu.memory_total_mib is None and gpu.memory_used_mib is None:
        return "-"
    return f"{_v(gpu.memory_used_mib)}/{_v(gpu.memory_total_mib)}"


def _ecc(gpu: Gpu) -> Text:
    ecc = gpu.ecc
    if ecc is None or (ecc.volatile_uncorrectable is None and ecc.aggregate_uncorrectable is None):
        return Text("-")
    text = f"{_v(ecc.volatile_uncorrectable)}/{_v(ecc.aggregate_uncorrectable)}"
    return Text(text, style="red" if (ecc.volatile_uncorrectable or 0) > 0 else "")


def _pages(gpu: Gpu) -> Text:
    parts: list[str] = []
    bad = False
    rows = gpu.remapped_rows
    if rows is not None:
        parts.append(f"remap {_v(rows.correctable)}c/{_v(rows.uncorrectable)}u")
        if rows.pending:
            parts.append("pending")
        if rows.failure:
            parts.append("FAILED")
        bad = bool(rows.pending or rows.failure)
    pages = gpu.retired_pages
    if pages is not None:
        parts.append(f"retired {_v(pages.single_bit_count)}sb/{_v(pages.double_bit_count)}db")
        if pages.pending:
            parts.append("pending")
            bad = True
    return Text(" ".join(parts) or "-", style="red" if bad else "")


def _mig(gpu: Gpu) -> str:
    if gpu.mig_mode is None:
        return "-"
    if gpu.mig_devices:
        profiles = [m.profile_name for m in gpu.mig_devices]
        if all(profiles):
            return f"{gpu.mig_mode} ({', '.join(p for p in profiles if p)})"
        return f"{gpu.mig_mode} ({len(profiles)} instances)"
    return gpu.mig_mode


def _summary_table(results: Sequence[SmiResult], wide: bool) -> Table:
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("NODE", "DRIVER", "CUDA", "GPUS", "STRATEGY", "STATUS"):
        table.add_column(column)
    if wide:
        table.add_column("IMAGE")
    for result in results:
        probe = result.probe
        gpus = str(len(probe.gpus)) if probe is not None else "-"
        if probe is not None and probe.neuron is not None:
            gpus = f"{len(probe.neuron.devices)} neuron"
        status = Text("error", style="red") if result.error else Text("ok", style="green")
        if not result.error and any(f.severity == "error" for f in result.findings):
            status = Text("findings", style="yellow")
        row: list[str | Text] = [
            result.node or "-",
            _v(probe.driver_version if probe else None),
            _v(probe.cuda_version if probe else None),
            gpus,
            result.strategy or "-",
            status,
        ]
        if wide:
            row.append(result.image or "-")
        table.add_row(*row)
    return table


def _gpu_table(results: Sequence[SmiResult], wide: bool) -> Table | None:
    table = Table(box=None, pad_edge=False, header_style="bold")
    columns = ["NODE", "GPU", "NAME", "MEM USED/TOTAL MiB", "UTIL", "TEMP", "POWER", "ECC UNC VOL/AGG"]
    columns += ["MIG", "PAGES", "PROCS"]
    if wide:
        columns += ["UUID", "PCI", "CLOCK EVENTS"]
    for column in columns:
        table.add_column(column)
    rows = 0
    for result in results:
        if result.probe is None:
            continue
        for gpu in result.probe.gpus:
            rows += 1
            row: list[str | Text] = [
                result.node or "-",
                str(gpu.index),
                gpu.name or "-",
                _memory(gpu),
                _v(gpu.utilization_pct, "%"),
                _v(gpu.temperature_c, "C"),
                _v(gpu.power_w, "W"),
                _ecc(gpu),
                _mig(gpu),
                _pages(gpu),
                str(len(gpu.processes)),
            ]
            if wide:
                row += [gpu.uuid or "-", gpu.pci_bus_id or "-", ", ".join(gpu.clock_event_reasons) or "-"]
            table.add_row(*row)
    return table if rows else None


def _pod(pods: Mapping[int, str], pid: int | None) -> str:
    found = pods.get(pid) if pid is not None else None
    return found or "-"


def _process_table(results: Sequence[SmiResult]) -> Table | None:
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("NODE", "GPU", "PID", "PROCESS", "MEM MiB", "POD"):
        table.add_column(column)
    rows = 0
    for result in results:
        probe = result.probe
        if probe is None:
            continue
        pods = result.process_pods()
        for gpu in probe.gpus:
            for proc in gpu.processes:
                rows += 1
                table.add_row(
                    result.node or "-",
                    str(gpu.index),
                    _v(proc.pid),
                    proc.name or "-",
                    _v(proc.used_memory_mib),
                    _pod(pods, proc.pid),
                )
        for device in probe.neuron.devices if probe.neuron is not None else ():
            for neuron_proc in device.processes:
                rows += 1
                table.add_row(
                    result.node or "-",
                    f"neuron{device.index}",
                    _v(neuron_proc.pid),
                    neuron_proc.command or "-",
                    "-",
                    _pod(pods, neuron_proc.pid),
                )
    return table if rows else None


def print_smi(out: Console, err: Console, results: Sequence[SmiResult], *, wide: bool = False) -> None:
    """Tables on `out`; findings and notes after them; per-node errors last, on `err`."""
    print_table(out, _summary_table(results, wide))
    gpus = _gpu_table(results, wide)
    if gpus is not None:
        out.print()
        print_table(out, gpus)
    procs = _process_table(results)
    if procs is not None:
        out.print()
        print_table(out, procs)
    findings = [(r.node, f) for r in results for f in r.findings]
    if findings:
        out.print()
        for node, finding in findings:
            style = "red" if finding.severity == "error" else "yellow"
            where = f"{node}: " if node else ""
            out.print(
                Text(f"{finding.severity}: {where}{finding.message} [{finding.code}]", style=style),
                soft_wrap=True,
            )
    notes = dict.fromkeys(note for r in results for note in r.all_notes())
    for note in notes:
        err.print(Text(f"note: {note}", style="dim"), soft_wrap=True)
    for result in results:
        if result.error:
            err.print(Text(f"error: {result.error}", style="red"), soft_wrap=True)


# --------------------------------------------------------------------------------------------------------------
# --dry-run
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DryRunPlan:
    node: str
    strategy: str
    image_source: str
    manifest: dict[str, Any]
    kubectl: KubectlDebugCommand
    notes: tuple[str, ...] = ()


def dry_run_text(plans: Sequence[DryRunPlan]) -> str:
    """Per node: a comment header, the pod YAML, and the equivalent `kubectl debug` command line."""
    chunks: list[str] = []
    for plan in plans:
        head = [
            f"# kubectl-gpu --dry-run: nothing was created. Node {plan.node}, strategy {plan.strategy}, "
            f"image from {plan.image_source}.",
            *(f"# {note}" for note in plan.notes),
        ]
        debug = [
            "# The closest `kubectl debug` (kubectl >= 1.30):",
            *(f"#   - {d}" for d in plan.kubectl.differences),
        ]
        chunks.append("\n".join([*head, dump_yaml(plan.manifest).rstrip(), *debug, plan.kubectl.shell()]))
    return "\n---\n".join(chunks) + "\n"


# --------------------------------------------------------------------------------------------------------------
# Progress while the fan-out runs
# --------------------------------------------------------------------------------------------------------------


@contextlib.contextmanager
def fanout_progress(
    console: Console, total: int, *, enabled: bool
) -> Iterator[tuple[Callable[[str, str], None], Callable[[str], None]]]:
    """(on_phase(node, phase), on_done(node)) callbacks; a live display on `console` when enabled (a TTY)."""
    if not enabled:
        yield (lambda node, phase: None), (lambda node: None)
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    phases: dict[str, str] = {}
    progress = Progress(
        SpinnerColumn(),
        TextColumn("debug pods"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=console,
        transient=True,
    )
    task = progress.add_task("", total=total)

    def describe() -> str:
        active = [f"{n}: {p}" for n, p in list(phases.items())[-3:]]
        return "  ".join(active)

    def on_phase(node: str, phase: str) -> None:
        phases[node] = phase
        progress.update(task, description=describe())

    def on_done(node: str) -> None:
        phases.pop(node, None)
        progress.update(task, advance=1, description=describe())

    with progress:
        yield on_phase, on_done


# --------------------------------------------------------------------------------------------------------------
# cleanup
# --------------------------------------------------------------------------------------------------------------


def cleanup_table(pods: Sequence[dict[str, Any]], now: datetime) -> Table:
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("NAMESPACE", "NAME", "NODE", "MODE", "PHASE", "AGE"):
        table.add_column(column)
    for pod in pods:
        meta = pod.get("metadata") or {}
        created = meta.get("creationTimestamp")
        try:
            age = format_age(now - parse_time(created)) if created else "-"
        except ValueError:
            age = "-"
        table.add_row(
            str(meta.get("namespace") or "-"),
            str(meta.get("name") or "-"),
            str((pod.get("spec") or {}).get("nodeName") or "-"),
            str((meta.get("labels") or {}).get("kubectl-gpu/mode") or "-"),
            str((pod.get("status") or {}).get("phase") or "-"),
            age,
        )
    return table
