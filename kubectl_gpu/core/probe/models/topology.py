"""The ``nvidia-smi topo -m`` matrix: which link joins each pair of GPUs and NICs."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["TopoLink", "TopoNic", "TopoRow", "Topology"]


@dataclass(frozen=True, slots=True)
class TopoLink:
    """The link from a row device to ``peer`` (``X``, ``NV12``, ``PIX``, ``PXB``, ``PHB``, ``NODE``, ``SYS``…)."""

    peer: str
    link: str

    @property
    def nvlink_count(self) -> int | None:
        """The number of bonded NVLinks for ``NV#`` links, else ``None``."""
        match = re.fullmatch(r"NV([0-9]{1,6})", self.link)
        return int(match.group(1)) if match else None


@dataclass(frozen=True, slots=True)
class TopoRow:
    """One row of the ``nvidia-smi topo -m`` matrix."""

    name: str
    links: tuple[TopoLink, ...]
    cpu_affinity: str | None = None
    numa_affinity: str | None = None
    gpu_numa_id: str | None = None


@dataclass(frozen=True, slots=True)
class TopoNic:
    """A ``NIC<n>: <device>`` line of the NIC legend."""

    name: str
    device: str


@dataclass(frozen=True, slots=True)
class Topology:
    """The ``nvidia-smi topo -m`` matrix."""

    devices: tuple[str, ...]
    rows: tuple[TopoRow, ...]
    nics: tuple[TopoNic, ...] = ()

    def link(self, a: str, b: str) -> str | None:
        """The link type between devices ``a`` and ``b`` (``None`` if either is unknown)."""
        for row in self.rows:
            if row.name == a:
                for link in row.links:
                    if link.peer == b:
                        return link.link
        return None

    @property
    def gpus(self) -> tuple[str, ...]:
        return tuple(d for d in self.devices if d.startswith("GPU"))
