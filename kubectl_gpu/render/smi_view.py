"""Human and JSON output of `kubectl gpu smi`, `--dry-run`, `cleanup`, and the fan-out progress display.

Nothing here prints: the front end prints what these return (`render.output.print_table`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import msgspec
from rich.console import RenderableType

from kubectl_gpu.core.analyses.smi import SmiResult
from kubectl_gpu.core.debugpod import KubectlDebugCommand
from kubectl_gpu.core.k8s.times import format_age, parse_time
from kubectl_gpu.core.probe import Gpu
from kubectl_gpu.core.probe.models.gpu import GpuProcess
from kubectl_gpu.core.probe.models.neuron import NeuronProcess
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import theme
from kubectl_gpu.render.model import Cell, Column, Part, Priority, Row, Table, View, prose
from kubectl_gpu.render.output import dump_yaml
from kubectl_gpu.render.safe import safe_line

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


def _ecc(gpu: Gpu) -> Cell:
    ecc = gpu.ecc
    if ecc is None or (ecc.volatile_uncorrectable is None and ecc.aggregate_uncorrectable is None):
        return Cell("-")
    text = f"{_v(ecc.volatile_uncorrectable)}/{_v(ecc.aggregate_uncorrectable)}"
    return Cell(text, style=theme.ERROR if (ecc.volatile_uncorrectable or 0) > 0 else "")


def _pages(gpu: Gpu) -> Cell:
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
    return Cell(" ".join(parts) or "-", style=theme.ERROR if bad else "")


def _mig(gpu: Gpu) -> str:
    if gpu.mig_mode is None:
        return "-"
    if gpu.mig_devices:
        profiles = [m.profile_name for m in gpu.mig_devices]
        if all(profiles):
            return f"{gpu.mig_mode} ({', '.join(p for p in profiles if p)})"
        return f"{gpu.mig_mode} ({len(profiles)} instances)"
    if not gpu.mig_devices_known and gpu.mig_mode == "Enabled":
        return f"{gpu.mig_mode} (instances ?)"  # a CSV lists no MIG devices: unknown, not none
    return gpu.mig_mode


#: what a narrow page keeps (`Priority`): the node and GPU, then the answer (a process's pod, a node's status)
_PRIORITY = {
    "NODE": Priority.NAME,
    "GPU": Priority.NAME,
    "POD": Priority.ANSWER,
    "STATUS": Priority.ANSWER,
    "DRIVER": Priority.ANSWER,
    "CUDA": Priority.ANSWER,
    "PROCESS": Priority.EXTRA,
}


def _columns(*headers: str) -> tuple[Column, ...]:
    """Every column may wrap on a narrow terminal; a word too long for its column ends in an ellipsis."""
    return tuple(
        Column(
            h.lower().replace(" ", "_"), h, wrap=True, fold=False, priority=_PRIORITY.get(h, Priority.USEFUL)
        )
        for h in headers
    )


SUMMARY_COLUMNS = _columns("NODE", "DRIVER", "CUDA", "GPUS", "STRATEGY", "STATUS")
GPU_COLUMNS = _columns(
    "NODE",
    "GPU",
    "NAME",
    "MEM USED/TOTAL MiB",
    "UTIL",
    "TEMP",
    "POWER",
    "ECC UNC VOL/AGG",
    "MIG",
    "PAGES",
    "PROCS",
)
PROCESS_COLUMNS = _columns("NODE", "GPU", "PID", "PROCESS", "MEM MiB", "POD")


def _status(result: SmiResult) -> Cell:
    """error, findings, partial (some GPU's processes could not be read: a note says why), or ok."""
    if result.missing:
        return Cell("not probed", style=theme.WARNING)
    if result.error:
        return Cell("error", style=theme.ERROR)
    if any(f.severity == "error" for f in result.findings):
        return Cell("findings", style=theme.WARNING)
    if result.processes_unknown:
        return Cell("partial", style=theme.WARNING)
    return Cell("ok", style=theme.GOOD)


def _summary_table(results: Sequence[SmiResult], wide: bool) -> Table[SmiResult]:
    rows = []
    for index, result in enumerate(results):
        probe = result.probe
        gpus = str(len(probe.gpus)) if probe is not None else "-"
        if probe is not None and probe.neuron is not None:
            gpus = f"{len(probe.neuron.devices)} neuron"
        cells = [
            Cell(result.node or "-"),
            Cell(_v(probe.driver_version if probe else None)),
            Cell(_v(probe.cuda_version if probe else None)),
            Cell(gpus),
            Cell(result.strategy or "-"),
            _status(result),
        ]
        if wide:
            cells.append(Cell(result.image or "-"))
        ref = ObjectRef("Node", result.node) if result.node else None
        rows.append(Row(result.node or str(index), tuple(cells), ref, result.node, result))
    columns = SUMMARY_COLUMNS + (_columns("IMAGE") if wide else ())
    return Table("summary", columns, tuple(rows))


def _gpu_cells(result: SmiResult, gpu: Gpu, wide: bool) -> list[Cell]:
    cells = [
        Cell(result.node or "-"),
        Cell(str(gpu.index), gpu.index),
        Cell(gpu.name or "-"),
        Cell(_memory(gpu), gpu.memory_used_mib if gpu.memory_used_mib is not None else -1),
        Cell(_v(gpu.utilization_pct, "%"), gpu.utilization_pct if gpu.utilization_pct is not None else -1),
        Cell(_v(gpu.temperature_c, "C"), gpu.temperature_c if gpu.temperature_c is not None else -1),
        Cell(_v(gpu.power_w, "W"), gpu.power_w if gpu.power_w is not None else -1),
        _ecc(gpu),
        Cell(_mig(gpu)),
        _pages(gpu),
        Cell(str(len(gpu.processes)), len(gpu.processes)) if gpu.processes_known else Cell("?", -1),
    ]
    if wide:
        cells += [
            Cell(gpu.uuid or "-"),
            Cell(gpu.pci_bus_id or "-"),
            Cell(", ".join(gpu.clock_event_reasons) or "-"),
        ]
    return cells


def _gpu_table(results: Sequence[SmiResult], wide: bool) -> Table[Gpu] | None:
    rows = []
    for result in results:
        if result.probe is None:
            continue
        for gpu in result.probe.gpus:
            key = f"{result.node}/{gpu.index}"
            rows.append(Row(key, tuple(_gpu_cells(result, gpu, wide)), None, result.node, gpu))
    columns = GPU_COLUMNS + (_columns("UUID", "PCI", "CLOCK EVENTS") if wide else ())
    return Table("gpus", columns, tuple(rows)) if rows else None


def _pod(pods: Mapping[int, str], pid: int | None) -> str:
    found = pods.get(pid) if pid is not None else None
    return found or "-"


def _process_rows(result: SmiResult) -> list[Row[GpuProcess | NeuronProcess]]:
    probe = result.probe
    if probe is None:
        return []
    pods = result.process_pods()
    node = result.node or "-"
    rows: list[Row[GpuProcess | NeuronProcess]] = []
    for gpu in probe.gpus:
        for proc in gpu.processes:
            cells = (
                Cell(node),
                Cell(str(gpu.index), gpu.index),
                Cell(_v(proc.pid), proc.pid if proc.pid is not None else -1),
                Cell(proc.name or "-"),
                Cell(
                    _v(proc.used_memory_mib), proc.used_memory_mib if proc.used_memory_mib is not None else -1
                ),
                Cell(_pod(pods, proc.pid)),
            )
            rows.append(Row(f"{node}/{gpu.index}/{proc.pid}/{len(rows)}", cells, None, result.node, proc))
    for device in probe.neuron.devices if probe.neuron is not None else ():
        for neuron_proc in device.processes:
            cells = (
                Cell(node),
                Cell(f"neuron{device.index}"),
                Cell(_v(neuron_proc.pid)),
                Cell(neuron_proc.command or "-"),
                Cell("-"),
                Cell(_pod(pods, neuron_proc.pid)),
            )
            rows.append(
                Row(f"{node}/neuron{device.index}/{len(rows)}", cells, None, result.node, neuron_proc)
            )
    return rows


def _process_table(results: Sequence[SmiResult]) -> Table[GpuProcess | NeuronProcess] | None:
    rows = [row for result in results for row in _process_rows(result)]
    return Table("processes", PROCESS_COLUMNS, tuple(rows)) if rows else None


class SmiView(msgspec.Struct, frozen=True):
    """What `smi` prints: `out` for stdout (the tables, then the GPU findings, a line each) and `err` for
    stderr (the notes, then the per-node errors), None when there is none."""

    out: View
    err: View | None


def smi_view(results: Sequence[SmiResult], *, wide: bool = False) -> SmiView:
    out: list[Part] = [_summary_table(results, wide)]
    for table in (_gpu_table(results, wide), _process_table(results)):
        if table is not None:
            out += [prose(""), table]
    findings = [(r.node, f) for r in results for f in r.findings]
    if findings:
        out.append(prose(""))
    for node, finding in findings:
        where = f"{node}: " if node else ""
        line = f"{finding.severity}: {where}{safe_line(finding.message)} [{finding.code}]"
        out.append(prose((line, theme.severity(finding.severity))))
    notes = dict.fromkeys(note for r in results for note in r.all_notes())
    err = [prose((f"note: {safe_line(note)}", theme.MUTED)) for note in notes]
    err += [prose((f"error: {safe_line(str(r.error))}", theme.ERROR)) for r in results if r.error]
    return SmiView(View.of(out), View.of(err) if err else None)


# --------------------------------------------------------------------------------------------------------------
# --dry-run
# --------------------------------------------------------------------------------------------------------------


class DryRunPlan(msgspec.Struct, frozen=True):
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


CLEANUP_COLUMNS = _columns("NAMESPACE", "NAME", "NODE", "MODE", "PHASE", "AGE")
STATE_COLUMN = _columns("STATE")


def _cleanup_row(
    pod: dict[str, Any], now: datetime, states: Mapping[tuple[str, str], str] | None
) -> Row[dict[str, Any]]:
    meta = pod.get("metadata") or {}
    created = meta.get("creationTimestamp")
    try:
        age = Cell(format_age(now - parse_time(created)), (now - parse_time(created)).total_seconds())
    except (ValueError, TypeError):
        age = Cell("-", -1)
    namespace, name = str(meta.get("namespace") or "-"), str(meta.get("name") or "-")
    node = str((pod.get("spec") or {}).get("nodeName") or "-")
    cells = [
        Cell(namespace),
        Cell(name),
        Cell(node),
        Cell(str((meta.get("labels") or {}).get("kubectl-gpu/mode") or "-")),
        Cell(str((pod.get("status") or {}).get("phase") or "-")),
        age if created else Cell("-", -1),
    ]
    if states:
        cells.append(
            Cell(states.get((str(meta.get("namespace") or "default"), str(meta.get("name") or "")), "-"))
        )
    return Row(f"{namespace}/{name}", tuple(cells), ObjectRef("Pod", name, namespace), node, pod)


def cleanup_table(
    pods: Sequence[dict[str, Any]], now: datetime, states: Mapping[tuple[str, str], str] | None = None
) -> Table[dict[str, Any]]:
    """The debug pods found; with `states` ((namespace, name) -> left behind or in use, and why) a STATE."""
    columns = CLEANUP_COLUMNS + (STATE_COLUMN if states else ())
    return Table("pods", columns, tuple(_cleanup_row(p, now, states) for p in pods))
