"""``nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]`` and ``--query-compute-apps``.

With a header row, columns are read by name (so any field list works, e.g. the ~200-field captures); without
one, the caller's field list (default: :data:`QUERY_GPU_FIELDS`, or :data:`QUERY_GPU_FIELDS_BASIC` when the
column count matches it) says what each column is.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence

from kubectl_gpu.core.lazy_pattern import lazy_pattern

from .errors import ProbeParseError, snippet
from .models import (
    ComputeApp,
    EccInfo,
    Gpu,
    NvidiaSmiReport,
    RemappedRows,
    RetiredPages,
)
from .models.values import clean, error_value, integer, number, yes_no

__all__ = [
    "COMPUTE_APPS_FIELDS",
    "QUERY_GPU_FIELDS",
    "QUERY_GPU_FIELDS_BASIC",
    "decode_clock_event_reasons",
    "parse_compute_apps_csv",
    "parse_query_gpu_csv",
]

FORMAT = "nvidia-smi CSV"

#: The fallback query for old drivers, which reject the whole query when one field is unknown to them.
QUERY_GPU_FIELDS_BASIC: tuple[str, ...] = (
    "index",
    "name",
    "uuid",
    "pci.bus_id",
    "driver_version",
    "memory.total",
    "memory.used",
    "memory.free",
    "utilization.gpu",
    "temperature.gpu",
    "power.draw",
    "power.limit",
)

#: The fields the collector asks for (valid from driver R460 on; every one is also in the 610 driver): the
#: basic ones, then health and configuration.
QUERY_GPU_FIELDS: tuple[str, ...] = (
    *QUERY_GPU_FIELDS_BASIC,
    "persistence_mode",
    "compute_mode",
    "mig.mode.current",
    "mig.mode.pending",
    "ecc.mode.current",
    "ecc.mode.pending",
    "ecc.errors.corrected.volatile.total",
    "ecc.errors.uncorrected.volatile.total",
    "ecc.errors.corrected.aggregate.total",
    "ecc.errors.uncorrected.aggregate.total",
    "retired_pages.single_bit_ecc.count",
    "retired_pages.double_bit.count",
    "retired_pages.pending",
    "remapped_rows.correctable",
    "remapped_rows.uncorrectable",
    "remapped_rows.pending",
    "remapped_rows.failure",
    "clocks_throttle_reasons.active",
)

#: Default columns of ``--query-compute-apps`` without a header.
COMPUTE_APPS_FIELDS: tuple[str, ...] = ("gpu_uuid", "pid", "process_name", "used_gpu_memory")

_ALIASES = {
    "gpu_name": "name",
    "gpu_uuid": "uuid",
    "gpu_bus_id": "pci.bus_id",
    "gpu_serial": "serial",
    "clocks_event_reasons.active": "clocks_throttle_reasons.active",
    "used_memory": "used_gpu_memory",
}

_UNIT_RE = lazy_pattern(r"\s*\[[^\]]*\]\s*$")

_HEADER_HINTS = frozenset(
    {
        "index",
        "name",
        "uuid",
        "pci.bus_id",
        "driver_version",
        "memory.total",
        "timestamp",
        "pid",
        "process_name",
    }
)

#: NVML ``nvmlClocksEventReason*`` bits, named like the XML ``clocks_event_reason_<name>`` elements.
_REASON_BITS: tuple[tuple[int, str], ...] = (
    (0x1, "gpu_idle"),
    (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
    (0x100, "display_clocks_setting"),
)


def decode_clock_event_reasons(value: str | None) -> tuple[str, ...]:
    """Names of the bits set in a ``clocks_event_reasons.active`` mask such as ``0x0000000000000001``."""
    text = clean(value)
    if text is None:
        return ()
    try:
        mask = int(text, 16) if text.lower().startswith("0x") else int(text)
    except ValueError:
        return ()
    names = [name for bit, name in _REASON_BITS if mask & bit]
    rest = mask & ~sum(bit for bit, _ in _REASON_BITS)
    if rest:
        names.append(f"unknown_{rest:#x}")
    return tuple(names)


def _field_name(raw: str) -> str:
    name = _UNIT_RE.sub("", raw).strip().lower()
    return _ALIASES.get(name, name)


def _rows(text: str | bytes) -> list[list[str]]:
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    lines = [line for line in text.replace("\r\n", "\n").split("\n") if line.strip()]
    try:
        return [[cell.strip() for cell in row] for row in csv.reader(lines, skipinitialspace=True)]
    except csv.Error as exc:
        raise ProbeParseError(FORMAT, f"unreadable CSV ({exc})") from None


def _split_header(
    rows: list[list[str]], fields: Sequence[str] | None, defaults: Sequence[Sequence[str]]
) -> tuple[list[str], list[list[str]]]:
    first = [_field_name(cell) for cell in rows[0]]
    if any(name in _HEADER_HINTS for name in first):
        if len(set(first)) != len(first):
            raise ProbeParseError(FORMAT, "duplicate column names in header")
        return first, rows[1:]
    width = len(rows[0])
    if fields is not None:
        return [_field_name(f) for f in fields], rows
    for candidate in defaults:
        if len(candidate) == width:
            return [_field_name(f) for f in candidate], rows
    raise ProbeParseError(
        FORMAT, f"no header and {width} columns match no known field list: {snippet(','.join(rows[0]))}"
    )


def _records(
    text: str | bytes, fields: Sequence[str] | None, defaults: Sequence[Sequence[str]]
) -> list[dict[str, str]]:
    rows = _rows(text)
    if not rows:
        return []
    header, body = _split_header(rows, fields, defaults)
    records: list[dict[str, str]] = []
    for number_, row in enumerate(body, start=1):
        if len(row) != len(header):
            raise ProbeParseError(
                FORMAT,
                f"row {number_} has {len(row)} columns, header has {len(header)} (truncated or garbled)",
            )
        records.append(dict(zip(header, row, strict=True)))
    return records


def _flag(value: str | None) -> bool | None:
    text = clean(value)
    if text in {"0", "1"}:
        return text == "1"
    return yes_no(text)


def _first(record: dict[str, str], *keys: str) -> str | None:
    for key in keys:
        value = clean(record.get(key))
        if value is not None:
            return value
    return None


def _int(record: dict[str, str], *keys: str) -> int | None:
    return integer(_first(record, *keys))


def _gpu(order: int, rec: dict[str, str]) -> Gpu:
    index = _int(rec, "index")
    ecc: EccInfo | None = None
    if any(key.startswith("ecc.") for key in rec):
        ecc = EccInfo(
            mode_current=_first(rec, "ecc.mode.current"),
            mode_pending=_first(rec, "ecc.mode.pending"),
            volatile_correctable=_int(rec, "ecc.errors.corrected.volatile.total"),
            volatile_uncorrectable=_int(rec, "ecc.errors.uncorrected.volatile.total"),
            aggregate_correctable=_int(rec, "ecc.errors.corrected.aggregate.total"),
            aggregate_uncorrectable=_int(rec, "ecc.errors.uncorrected.aggregate.total"),
        )
    retired: RetiredPages | None = RetiredPages(
        single_bit_count=_int(rec, "retired_pages.single_bit_ecc.count", "retired_pages.sbe"),
        double_bit_count=_int(rec, "retired_pages.double_bit.count", "retired_pages.dbe"),
        pending=_flag(rec.get("retired_pages.pending")),
    )
    if retired == RetiredPages(None, None, None):
        retired = None
    remapped: RemappedRows | None = RemappedRows(
        correctable=_int(rec, "remapped_rows.correctable"),
        uncorrectable=_int(rec, "remapped_rows.uncorrectable"),
        pending=_flag(rec.get("remapped_rows.pending")),
        failure=_flag(rec.get("remapped_rows.failure")),
    )
    if remapped == RemappedRows(None, None, None, None):
        remapped = None
    errors: list[str] = []
    for value in rec.values():
        err = error_value(value)
        if err is not None and err not in errors:
            errors.append(err)
    return Gpu(
        index=order if index is None else index,
        name=_first(rec, "name"),
        uuid=_first(rec, "uuid"),
        pci_bus_id=_first(rec, "pci.bus_id"),
        memory_total_mib=_int(rec, "memory.total"),
        memory_used_mib=_int(rec, "memory.used"),
        memory_free_mib=_int(rec, "memory.free"),
        utilization_pct=_int(rec, "utilization.gpu"),
        temperature_c=_int(rec, "temperature.gpu"),
        power_w=number(_first(rec, "power.draw", "power.draw.average", "power.draw.instant")),
        power_limit_w=number(_first(rec, "power.limit", "enforced.power.limit")),
        persistence_mode=_first(rec, "persistence_mode"),
        compute_mode=_first(rec, "compute_mode"),
        mig_mode=_first(rec, "mig.mode.current"),
        mig_mode_pending=_first(rec, "mig.mode.pending"),
        ecc=ecc,
        retired_pages=retired,
        remapped_rows=remapped,
        clock_event_reasons=decode_clock_event_reasons(rec.get("clocks_throttle_reasons.active")),
        errors=tuple(errors),
        processes_known=False,  # --query-gpu lists no processes: unknown, not none
        # --query-gpu has no MIG device fields: none only where MIG is read as Disabled, else unknown.
        mig_devices_known=_first(rec, "mig.mode.current") == "Disabled",
    )


def parse_query_gpu_csv(text: str | bytes, fields: Sequence[str] | None = None) -> NvidiaSmiReport:
    """Parse ``nvidia-smi --query-gpu=... --format=csv`` (with or without header / units).

    ``fields`` names the columns when there is no header row. Raises :class:`ProbeParseError` on empty output,
    rows whose width differs from the header, and output that is not a query result at all.
    """
    records = _records(text, fields, (QUERY_GPU_FIELDS, QUERY_GPU_FIELDS_BASIC))
    if not records:
        raise ProbeParseError(FORMAT, "no GPU rows")
    known = {"index", "name", "uuid", "pci.bus_id", "memory.total", "driver_version"}
    if not known.intersection(records[0]):
        raise ProbeParseError(FORMAT, "none of index, name, uuid, pci.bus_id, memory.total in the columns")
    gpus = tuple(_gpu(order, rec) for order, rec in enumerate(records))
    driver = next((d for d in (_first(r, "driver_version", "kmd_version") for r in records) if d), None)
    return NvidiaSmiReport(driver_version=driver, cuda_version=None, attached_gpus=len(gpus), gpus=gpus)


def parse_compute_apps_csv(text: str | bytes, fields: Sequence[str] | None = None) -> tuple[ComputeApp, ...]:
    """Parse ``nvidia-smi --query-compute-apps=... --format=csv``; empty output means no processes."""
    records = _records(text, fields, (COMPUTE_APPS_FIELDS,))
    if records and "pid" not in records[0]:
        raise ProbeParseError(FORMAT, "no pid column in compute-apps output")
    return tuple(
        ComputeApp(
            gpu_uuid=_first(rec, "uuid"),
            gpu_bus_id=_first(rec, "pci.bus_id"),
            pid=_int(rec, "pid"),
            process_name=_first(rec, "process_name", "name"),
            used_memory_mib=_int(rec, "used_gpu_memory"),
        )
        for rec in records
    )
