"""What ``neuron-ls --json-output`` reports about the AWS Neuron (Inferentia / Trainium) devices."""

from __future__ import annotations

import msgspec

__all__ = ["NeuronDevice", "NeuronLs", "NeuronProcess"]


class NeuronProcess(msgspec.Struct, frozen=True):
    pid: int | None
    command: str | None
    runtime_version: str | None


class NeuronDevice(msgspec.Struct, frozen=True):
    """One device of ``neuron-ls --json-output``."""

    index: int
    nc_count: int | None
    memory_bytes: int | None
    bdf: str | None
    connected_to: tuple[int, ...] = ()
    cpu_affinity: str | None = None
    numa_node: int | None = None
    logical_neuroncore_config: int | None = None
    neuroncore_ids: tuple[int, ...] = ()
    processes: tuple[NeuronProcess, ...] = ()


class NeuronLs(msgspec.Struct, frozen=True):
    devices: tuple[NeuronDevice, ...]
    driver_version: str | None = None
    runtime_version: str | None = None
