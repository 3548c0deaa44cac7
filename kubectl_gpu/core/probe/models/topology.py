"""The ``nvidia-smi topo -m`` matrix: which link joins each pair of GPUs and NICs."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TopoLink", "TopoNic", "TopoRow", "Topology"]


@dataclass(frozen=True, slots=True)
class TopoLink:
    """The link from a row device to ``peer`` (``X``, ``NV12``, ``PIX``, ``PXB``, ``PHB``, ``NODE``, ``SYS``…)."""

    peer: str
    link: str


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
