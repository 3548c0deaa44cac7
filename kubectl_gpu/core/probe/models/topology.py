"""The ``nvidia-smi topo -m`` matrix: which link joins each pair of GPUs and NICs."""

from __future__ import annotations

import msgspec

__all__ = ["TopoLink", "TopoNic", "TopoRow", "Topology"]


class TopoLink(msgspec.Struct, frozen=True):
    """The link from a row device to ``peer`` (``X``, ``NV12``, ``PIX``, ``PXB``, ``PHB``, ``NODE``, ``SYS``…)."""

    peer: str
    link: str


class TopoRow(msgspec.Struct, frozen=True):
    """One row of the ``nvidia-smi topo -m`` matrix."""

    name: str
    links: tuple[TopoLink, ...]
    cpu_affinity: str | None = None
    numa_affinity: str | None = None
    gpu_numa_id: str | None = None


class TopoNic(msgspec.Struct, frozen=True):
    """A ``NIC<n>: <device>`` line of the NIC legend."""

    name: str
    device: str


class Topology(msgspec.Struct, frozen=True):
    """The ``nvidia-smi topo -m`` matrix."""

    devices: tuple[str, ...]
    rows: tuple[TopoRow, ...]
    nics: tuple[TopoNic, ...] = ()
