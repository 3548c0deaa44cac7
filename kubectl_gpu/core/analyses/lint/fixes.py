"""The requirements lint suggests instead of a hard-coded family or type list, checked before they are shown.

A suggestion is only printed if it still admits every instance type the pool admitted: each candidate line
is tried with the pool's other requirements (those on the instance-type and family keys are what it
replaces), and a line that would drop a type is left out, with the reason. E.g. `instance-gpu-count Gt 0`
drops the fractional-GPU g6f/gr6f types (their `instance-gpu-count` label is 0), which a pool may serve GPU
pods on through a NodeOverlay that gives them `nvidia.com/gpu` capacity (`overlay_capacity`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal

import msgspec

from kubectl_gpu.core.accelerators.resources import is_accelerator_resource
from kubectl_gpu.core.analyses.lint.facts import PREFIX
from kubectl_gpu.core.catalog import InstanceType, Provider

__all__ = [
    "Candidate",
    "OverlayCapacity",
    "accelerator_fix_candidates",
    "overlay_accelerators",
    "verified_fix",
]

# Instance type name -> capacity a NodeOverlay adds to it (e.g. {"nvidia.com/gpu": 1}); none by default.
OverlayCapacity = Mapping[str, Mapping[str, Decimal]]
# The names of the types given that the pool's other requirements plus `extra` admit.
Admits = Callable[[list[dict[str, object]], Sequence[InstanceType]], frozenset[str]]


class Candidate(msgspec.Struct, frozen=True):
    requirement: dict[str, object]
    text: str


def overlay_accelerators(it: InstanceType, overlay: OverlayCapacity | None) -> tuple[str, ...]:
    """Accelerator resources a NodeOverlay gives this type."""
    added = (overlay or {}).get(it.name, {})
    return tuple(sorted(r for r, v in added.items() if is_accelerator_resource(r) and v > 0))


def _line(key: str, operator: str, values: list[str], comment: str = "") -> Candidate:
    shown = ", ".join(f'"{v}"' if v.isdigit() else v for v in values)
    tail = f"  # {comment}" if comment else ""
    return Candidate(
        {"key": key, "operator": operator, "values": values},
        f"- {{key: {key}, operator: {operator}, values: [{shown}]}}{tail}",
    )


def accelerator_fix_candidates(provider: Provider, types: list[InstanceType]) -> list[Candidate]:
    """Requirements on what the admitted accelerated types have in common (GPU: category, manufacturer,
    GPU memory, count; Neuron: the accelerator name and count, keys only self-managed Karpenter documents)."""
    prefix = PREFIX[provider]
    gpus = [it for it in types if it.is_gpu]
    out: list[Candidate] = []
    if gpus:
        out.append(_line(f"{prefix}/instance-category", "In", sorted({it.category for it in gpus})))
        makers = sorted({it.accelerator_manufacturer for it in gpus})
        out.append(_line(f"{prefix}/instance-gpu-manufacturer", "In", makers))
        memories = [it.gpu_memory_mib for it in gpus if it.gpu_memory_mib]
        if memories:
            low = min(memories)
            out.append(_line(f"{prefix}/instance-gpu-memory", "Gt", [str(low - 1)], f">= {low} MiB per GPU"))
        out.append(_line(f"{prefix}/instance-gpu-count", "Gt", ["0"]))
        return out
    neurons = [it for it in types if it.is_neuron and it.accelerator_name]
    if neurons and provider == "karpenter":
        names = sorted({str(it.accelerator_name) for it in neurons})
        out.append(_line(f"{prefix}/instance-accelerator-name", "In", names))
        out.append(_line(f"{prefix}/instance-accelerator-count", "Gt", ["0"]))
    return out


def verified_fix(
    candidates: list[Candidate],
    admitted: list[InstanceType],
    admits: Admits,
    overlay: OverlayCapacity | None = None,
) -> tuple[list[Candidate], list[str]]:
    """The candidates that keep every admitted type (`admits(extra, types)`: which of them the pool's other
    requirements plus `extra` admit), and why each other one was left out."""
    wanted = {it.name: it for it in admitted}
    kept: list[Candidate] = []
    dropped: list[str] = []
    for cand in candidates:
        lost = sorted(set(wanted) - admits([cand.requirement], admitted))
        if not lost:
            kept.append(cand)
            continue
        via = [
            f"{n} ({', '.join(r)} through a NodeOverlay)"
            for n in lost
            if (r := overlay_accelerators(wanted[n], overlay))
        ]
        names = ", ".join(lost[:4]) + (f" and {len(lost) - 4} more" if len(lost) > 4 else "")
        why = f"; {', '.join(via[:2])}" if via else ""
        key = cand.requirement["key"]
        dropped.append(f"{key} {cand.requirement['operator']} left out: it would drop {names}{why}")
    if kept and not set(wanted) <= admits([c.requirement for c in kept], admitted):
        return [], [*dropped, "the lines together would drop admitted types"]  # each alone keeps them all
    return kept, dropped
