"""One node's accelerators split into what is allocated, free, idle and unavailable: the one set of numbers
every front end shows (the TUI's bars, header and Overview; `nodes`' FREE is `AcceleratorUsage.free`, the
same rule). Capacity on a device the device plugin withdrew (capacity above allocatable: `diagnose`'s
GPU_UNHEALTHY_DEVICES), or on a cordoned or NotReady node, is never free."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

import msgspec

from kubectl_gpu.core.accelerators.nodes import NodeRow

__all__ = ["AcceleratorParts", "node_parts", "sum_parts"]

ZERO = Decimal(0)


class AcceleratorParts(msgspec.Struct, frozen=True):
    """What a node (or a sum of nodes) has, in its primary accelerator's units; the parts sum to `paid`.

    `unhealthy`: devices the device plugin does not offer (capacity less allocatable); `cordoned`: healthy
    devices no pod uses on a node that takes no new pods (cordoned or NotReady). `known` is False when the
    pods could not all be read: then allocated, free and idle are not known (shown `?`, never 0)."""

    allocated: Decimal = ZERO
    free: Decimal = ZERO
    idle: Decimal = ZERO
    unhealthy: Decimal = ZERO
    cordoned: Decimal = ZERO
    known: bool = True

    @property
    def unavailable(self) -> Decimal:
        return self.unhealthy + self.cordoned

    @property
    def bar(self) -> tuple[Decimal, Decimal, Decimal, Decimal]:
        """(allocated, free, idle, unavailable): the four glyphs of an allocation bar."""
        return self.allocated, self.free, self.idle, self.unavailable

    def __add__(self, other: AcceleratorParts) -> AcceleratorParts:
        return AcceleratorParts(
            self.allocated + other.allocated,
            self.free + other.free,
            self.idle + other.idle,
            self.unhealthy + other.unhealthy,
            self.cordoned + other.cordoned,
            self.known and other.known,
        )


def node_parts(row: NodeRow, idle_node: bool) -> AcceleratorParts:
    """The node's accelerators, split. Allocated: requested by pods (DRA: counted as allocated while a pod
    claims devices), at most what is healthy. What is left is free where a pod could be scheduled, else
    `cordoned`; on a node no GPU pod has used for a while (the cost analysis's idle nodes) it is idle:
    paid for, used by nobody."""
    acc = row.accelerator
    if acc is None:
        return AcceleratorParts()
    paid = acc.paid
    unhealthy = min(max(paid - acc.allocatable, ZERO), paid)
    healthy = paid - unhealthy
    left = row.idle_accelerators if row.idle_accelerators is not None else ZERO
    unused = min(max(left, ZERO), healthy)
    allocated = healthy - unused
    known = acc.counted
    if not acc.schedulable:
        return AcceleratorParts(allocated, ZERO, ZERO, unhealthy, unused, known)
    if idle_node:
        return AcceleratorParts(allocated, ZERO, unused, unhealthy, ZERO, known)
    free = min(acc.free, unused)  # the rest is taken by requests of its other resources (MIG, cores)
    return AcceleratorParts(allocated + unused - free, free, ZERO, unhealthy, ZERO, known)


def sum_parts(parts: Iterable[AcceleratorParts]) -> AcceleratorParts:
    total = AcceleratorParts()
    for part in parts:
        total = total + part
    return total
