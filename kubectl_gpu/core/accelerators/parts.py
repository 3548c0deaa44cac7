"""The one vocabulary of accelerator figures (docs/vocabulary.md), each with one definition, computed here
and nowhere else: every command and view (`nodes`, `cost`, `pools`, the TUI's bars, header and Overview)
shows these.

On a node, in its primary accelerator's units:

* capacity: what the instance has and is billed for (status.capacity, else allocatable);
* allocatable: what the device plugin offers pods (status.allocatable); capacity less allocatable are
  devices it withdrew (unhealthy, or not advertised yet);
* requested (held): what the node's non-terminated pods request, as a share of the node (the largest
  requested/capacity over its accelerator resources, so MIG slices and Neuron cores count) x capacity;
* idle: paid for and requested by no pod: capacity - requested, on any node (a cordoned node's unused
  GPU is idle: it is billed);
* free: what a new pod could be given now: allocatable - requested on a Ready, uncordoned node, at most
  idle; 0 on a cordoned or NotReady node;
* unavailable: idle but not free: withdrawn devices no pod holds, unused devices on a cordoned or NotReady
  node. requested + free + unavailable = capacity; free + unavailable = idle.

A node whose pods could not all be read (or whose DRA devices are claimed: not counted per device) has
capacity and allocatable known and the rest unknown; a sum counts the rest over the nodes known and says
how many it left out (`unknown`), as `cost` does.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

import msgspec

__all__ = ["AcceleratorParts", "count_value", "split", "sum_parts"]

ZERO = Decimal(0)


def count_value(value: Decimal) -> int | float:
    """A count for JSON: 2, not 2.0; a share of a node (1.5) stays."""
    return int(value) if value == value.to_integral_value() else float(value)


class AcceleratorParts(msgspec.Struct, frozen=True):
    """The figures of one node, or of a sum of nodes (`+`). `unknown`: nodes whose requested, free and
    idle are not known (left out of those figures, never counted as 0); `nodes`: nodes summed."""

    capacity: Decimal = ZERO
    allocatable: Decimal = ZERO
    requested: Decimal = ZERO
    free: Decimal = ZERO
    idle: Decimal = ZERO
    nodes: int = 0
    unknown: int = 0

    @property
    def known(self) -> bool:
        """Whether requested, free and idle count every node."""
        return self.unknown == 0

    @property
    def unavailable(self) -> Decimal:
        return self.idle - self.free

    @property
    def bar(self) -> tuple[Decimal, Decimal, Decimal]:
        """(requested, free, unavailable): they partition the capacity of the nodes known."""
        return self.requested, self.free, self.unavailable

    def __add__(self, other: AcceleratorParts) -> AcceleratorParts:
        return AcceleratorParts(
            self.capacity + other.capacity,
            self.allocatable + other.allocatable,
            self.requested + other.requested,
            self.free + other.free,
            self.idle + other.idle,
            self.nodes + other.nodes,
            self.unknown + other.unknown,
        )

    def to_dict(self) -> dict[str, Any]:
        """The figures for JSON; requested, free, idle and unavailable null when no node's are known."""
        none = self.nodes > 0 and self.unknown == self.nodes

        def known(value: Decimal) -> int | float | None:
            return None if none else count_value(value)

        return {
            "capacity": count_value(self.capacity),
            "allocatable": count_value(self.allocatable),
            "requested": known(self.requested),
            "free": known(self.free),
            "idle": known(self.idle),
            "unavailable": known(self.unavailable),
            "unknownNodes": self.unknown,
        }


def split(
    capacity: Decimal,
    allocatable: Decimal,
    idle: Decimal | None,
    free_of_primary: Decimal,
    schedulable: bool,
) -> AcceleratorParts:
    """One node's figures. `capacity`: what it is billed for; `idle`: capacity less the share its pods
    request (None: not known); `free_of_primary`: allocatable less the primary resource's requests (0 on a
    node that takes no pod)."""
    if idle is None:
        return AcceleratorParts(capacity, allocatable, nodes=1, unknown=1)
    idle = min(max(idle, ZERO), capacity)
    free = min(max(free_of_primary, ZERO), idle) if schedulable else ZERO
    return AcceleratorParts(capacity, allocatable, capacity - idle, free, idle, nodes=1)


def sum_parts(parts: Iterable[AcceleratorParts]) -> AcceleratorParts:
    total = AcceleratorParts()
    for part in parts:
        total = total + part
    return total
