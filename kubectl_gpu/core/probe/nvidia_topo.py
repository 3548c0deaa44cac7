"""``nvidia-smi topo -m``: the GPU/NIC link matrix with CPU / NUMA affinity columns (the legend is ignored,
except the ``NIC Legend`` that names the NICs)."""

from __future__ import annotations

import re

from kubectl_gpu.core.lazy_pattern import lazy_pattern

from .errors import ProbeParseError, snippet
from .models import TopoLink, Topology, TopoNic, TopoRow
from .models.values import clean

__all__ = ["parse_nvidia_smi_topo"]

FORMAT = "nvidia-smi topo -m"

_ANSI_RE = lazy_pattern(r"\x1b\[[0-9;]*[A-Za-z]")
_NIC_LEGEND_RE = lazy_pattern(r"^\s*(NIC\d+)\s*:\s*(\S+)\s*$")
_LINK_RE = lazy_pattern(r"^[A-Za-z][A-Za-z0-9/#]*$")
_MAX_DEVICES = 4096


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.split("\t") if cell.strip()]


def parse_nvidia_smi_topo(text: str | bytes) -> Topology:
    """Parse ``nvidia-smi topo -m``.

    The header is the first tab-led line; its cells up to ``CPU Affinity`` name the matrix columns. Every column
    device must have a row with one link per column; trailing cells fill ``CPU Affinity``, ``NUMA Affinity``,
    ``GPU NUMA ID`` in header order (empty cells, which nvidia-smi prints before ``GPU NUMA ID``, are skipped).
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    lines = _ANSI_RE.sub("", text).replace("\r", "").split("\n")
    header_at = next((i for i, line in enumerate(lines) if line[:1] in {"\t", " "} and line.strip()), None)
    if header_at is None:
        raise ProbeParseError(FORMAT, f"no matrix header in {snippet(text)}")
    header = _cells(lines[header_at])
    devices: list[str] = []
    for cell in header:
        if " " in cell or cell.lower().endswith("affinity"):
            break
        devices.append(cell)
    extra_headers = header[len(devices) :]
    if not devices or not all(re.fullmatch(r"[A-Za-z][\w.:-]*", d) for d in devices):
        raise ProbeParseError(FORMAT, f"bad matrix header {snippet(lines[header_at])}")
    if len(devices) > _MAX_DEVICES or len(set(devices)) != len(devices):
        raise ProbeParseError(FORMAT, "duplicate or too many devices in header")

    rows: list[TopoRow] = []
    i = header_at + 1
    while i < len(lines) and lines[i].strip() and not lines[i].strip().startswith("Legend"):
        cells = _cells(lines[i])
        name, links, rest = cells[0], cells[1 : 1 + len(devices)], cells[1 + len(devices) :]
        if len(links) < len(devices):
            raise ProbeParseError(
                FORMAT, f"row {snippet(name)} has {len(links)} links for {len(devices)} devices"
            )
        if not all(_LINK_RE.match(link) for link in links):
            raise ProbeParseError(FORMAT, f"bad link value in row {snippet(lines[i])}")
        values: dict[str, str | None] = {}
        for key, value in zip(extra_headers, rest, strict=False):
            values[key.lower()] = clean(value)
        rows.append(
            TopoRow(
                name=name,
                links=tuple(TopoLink(peer, link) for peer, link in zip(devices, links, strict=True)),
                cpu_affinity=values.get("cpu affinity"),
                numa_affinity=values.get("numa affinity"),
                gpu_numa_id=values.get("gpu numa id"),
            )
        )
        i += 1
    names = [row.name for row in rows]
    if names != devices:
        raise ProbeParseError(FORMAT, f"rows {names[:8]} do not match columns {devices[:8]} (truncated?)")

    nics: list[TopoNic] = []
    in_nic_legend = False
    for line in lines[i:]:
        if line.strip().startswith("NIC Legend"):
            in_nic_legend = True
            continue
        if in_nic_legend:
            match = _NIC_LEGEND_RE.match(line)
            if match is not None:
                nics.append(TopoNic(match.group(1), match.group(2)))
    return Topology(devices=tuple(devices), rows=tuple(rows), nics=tuple(nics))
