"""Human and JSON output of `kubectl gpu smi`, `--dry-run`, `cleanup`, and the fan-out progress display.

Nothing here prints: the front end prints what these return (`render.output.print_table`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from kubectl_gpu.core.analyses.smi import SmiResult
from kubectl_gpu.core.debugpod import KubectlDebugCommand
from kubectl_gpu.core.k8s.times import format_age, parse_time
from kubectl_gpu.core.probe import Gpu
from kubectl_gpu.render import theme
from kubectl_gpu.render.output import dump_yaml

__all__ = [
    "DryRunPlan",
    "FanoutProgress",
    "SmiView",
    "cleanup_table",
    "dry_run_text",
    "smi_report",
    "smi_view",
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
    return Text(text, style=theme.ERROR if (ecc.volatile_uncorrectable or 0) > 0 else "")


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
    return Text(" ".join(parts) or "-", style=theme.ERROR if bad else "")


def _mig(gpu: Gpu) -> str:
    if gpu.mig_mode is None:
        return "-"
    if gpu.mig_devices:
        profiles = [m.profile_name for m in gpu.mig_devices]
        if all(profiles):
            return f"{gpu.mig_mode} ({', '.join(p for p in profiles if p)})"
        return f"{gpu.mig_mode} ({len(profiles)} instances)"
    return gpu.mig_mode


def _table(columns: Sequence[str]) -> Table:
    """Every column may wrap on a narrow terminal; a word too long for its column ends in an ellipsis."""
    return theme.table(columns, wrap="all", overflow="ellipsis")


def _summary_table(results: Sequence[SmiResult], wide: bool) -> Table:
    columns = ["NODE", "DRIVER", "CUDA", "GPUS", "STRATEGY", "STATUS", *(["IMAGE"] if wide else [])]
    table = _table(columns)
    for result in results:
        probe = result.probe
        gpus = str(len(probe.gpus)) if probe is not None else "-"
        if probe is not None and probe.neuron is not None:
            gpus = f"{len(probe.neuron.devices)} neuron"
        status = Text("error", style=theme.ERROR) if result.error else Text("ok", style=theme.GOOD)
        if not result.error and any(f.severity == "error" for f in result.findings):
            status = Text("findings", style=theme.WARNING)
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
    columns = ["NODE", "GPU", "NAME", "MEM USED/TOTAL MiB", "UTIL", "TEMP", "POWER", "ECC UNC VOL/AGG"]
    columns += ["MIG", "PAGES", "PROCS"]
    if wide:
        columns += ["UUID", "PCI", "CLOCK EVENTS"]
    table = _table(columns)
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
                str(len(gpu.processes)) if gpu.processes_known else "?",
            ]
            if wide:
                row += [gpu.uuid or "-", gpu.pci_bus_id or "-", ", ".join(gpu.clock_event_reasons) or "-"]
            table.add_row(*row)
    return table if rows else None


def _pod(pods: Mapping[int, str], pid: int | None) -> str:
    found = pods.get(pid) if pid is not None else None
    return found or "-"


def _process_table(results: Sequence[SmiResult]) -> Table | None:
    table = _table(["NODE", "GPU", "PID", "PROCESS", "MEM MiB", "POD"])
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


@dataclass(frozen=True, slots=True)
class SmiView:
    """What `smi` prints: `out` for stdout (the tables, then the GPU findings, a line each) and `err` for
    stderr (the notes, then the per-node errors), None when there is none."""

    out: RenderableType
    err: RenderableType | None


def smi_view(results: Sequence[SmiResult], *, wide: bool = False) -> SmiView:
    out: list[RenderableType] = [_summary_table(results, wide)]
    for table in (_gpu_table(results, wide), _process_table(results)):
        if table is not None:
            out += [Text(""), table]
    findings = [(r.node, f) for r in results for f in r.findings]
    if findings:
        out.append(Text(""))
    for node, finding in findings:
        where = f"{node}: " if node else ""
        line = f"{finding.severity}: {where}{finding.message} [{finding.code}]"
        out.append(Text(line, style=theme.severity(finding.severity)))
    notes = dict.fromkeys(note for r in results for note in r.all_notes())
    err = [Text(f"note: {note}", style=theme.MUTED) for note in notes]
    err += [Text(f"error: {r.error}", style=theme.ERROR) for r in results if r.error]
    return SmiView(Group(*out), Group(*err) if err else None)


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


class FanoutProgress:
    """The fan-out's progress: spinner, bar, nodes done of all, time elapsed and the last three nodes'
    phases. A renderable, for the front end to show live on a terminal (`rich.live.Live`); `on_phase` and
    `on_done` are the runner's callbacks, called from its threads."""

    def __init__(self, total: int) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        self._phases: dict[str, str] = {}
        # Never started: the front end's Live draws it, through __rich__.
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("debug pods"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.description}"),
            auto_refresh=False,
        )
        self._task = self._progress.add_task("", total=total)

    def _describe(self) -> str:
        return "  ".join(f"{n}: {p}" for n, p in list(self._phases.items())[-3:])

    def on_phase(self, node: str, phase: str) -> None:
        self._phases[node] = phase
        self._progress.update(self._task, description=self._describe())

    def on_done(self, node: str) -> None:
        self._phases.pop(node, None)
        self._progress.update(self._task, advance=1, description=self._describe())

    def __rich__(self) -> RenderableType:
        return self._progress.get_renderable()


# --------------------------------------------------------------------------------------------------------------
# cleanup
# --------------------------------------------------------------------------------------------------------------


def cleanup_table(
    pods: Sequence[dict[str, Any]], now: datetime, states: Mapping[tuple[str, str], str] | None = None
) -> Table:
    """The debug pods found; with `states` ((namespace, name) -> left behind or in use, and why) a STATE."""
    table = _table(["NAMESPACE", "NAME", "NODE", "MODE", "PHASE", "AGE", *(["STATE"] if states else [])])
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
            *(
                [states.get((str(meta.get("namespace") or "default"), str(meta.get("name") or "")), "-")]
                if states
                else []
            ),
        )
    return table
