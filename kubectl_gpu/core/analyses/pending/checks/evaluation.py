"""What evaluating a pod shape against a target gives (blockers, checks), and the wording they share."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

import msgspec

from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, BlockerClass, TargetRef
from kubectl_gpu.core.scheduling.instances import IndexedType
from kubectl_gpu.core.scheduling.taints import Taint, pretty

SPEC = BlockerClass.SPEC
CAPACITY = BlockerClass.CAPACITY
ZERO = Decimal(0)


class Check(msgspec.Struct, frozen=True):
    """One line of `explain`'s per-target table."""

    name: str
    ok: bool | None  # None: could not be evaluated (data missing)
    detail: str


class TargetEvaluation(msgspec.Struct, frozen=True):
    target: TargetRef
    offers: bool  # can this target offer the requested accelerator at all?
    blockers: tuple[Blocker, ...]
    checks: tuple[Check, ...]
    weight: int = 0
    fitting_types: tuple[str, ...] = ()
    relaxed: int = 0  # Karpenter's relaxations of the pod before this target takes it (ranking.nearness)

    @property
    def spec_blockers(self) -> int:
        return sum(1 for b in self.blockers if b.cls is SPEC)

    @property
    def capacity_blockers(self) -> int:
        return sum(1 for b in self.blockers if b.cls is CAPACITY)


def taint_list(taints: tuple[Taint, ...]) -> str:
    return ", ".join(pretty(t) for t in taints)


def selected_value(shape: PodShape, key: str) -> str | None:
    if key in shape.node_selector:
        return shape.node_selector[key]
    if shape.requirements is not None:
        req = shape.requirements.strict.get(key)
        if req is not None and not req.complement and len(req.values) == 1:
            return next(iter(req.values))
    return None


def resources_text(requests: Mapping[str, Decimal]) -> str:
    parts = []
    for name, value in requests.items():
        if name == "memory":
            parts.append(f"memory={value / Decimal(2**30):.1f}Gi")
        else:
            parts.append(f"{name}={int(value) if value == value.to_integral_value() else value.normalize()}")
    return ", ".join(parts)


def short_quantity(value: Decimal, resource: str) -> str:
    if resource == "memory":
        return f"{value / Decimal(2**30):.0f}Gi"
    return str(int(value)) if value == value.to_integral_value() else str(value.normalize())


def type_names(entries: tuple[IndexedType, ...], limit: int = 6) -> str:
    names = [e.it.name for e in entries]
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")
