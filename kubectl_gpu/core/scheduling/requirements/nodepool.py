"""The requirements of a NodePool template, assembled the way Karpenter's `NewNodeClaimTemplate` does."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .normalized import NormalizedRequirement
from .requirement import Requirement
from .requirement_set import Requirements

__all__ = ["nodepool_requirements", "template_requirements"]


def nodepool_requirements(
    name: str,
    requirements: Iterable[Requirement | NormalizedRequirement | Mapping[str, Any]],
    labels: Mapping[str, str] | None = None,
    *,
    node_class_label: tuple[str, str] | None = None,
) -> Requirements:
    """A NodePool template's requirements the way `NewNodeClaimTemplate` builds them: `spec.requirements`
    + template labels + `karpenter.sh/nodepool=<name>` (+ the NodeClass label `<group>/<lower(kind)>=<name>`
    that recent v1 releases add; pass it as `node_class_label=(label_key, value)`)."""
    return template_requirements(
        Requirements.of(*requirements), name, labels, node_class_label=node_class_label
    )


def template_requirements(
    spec: Requirements,
    name: str,
    labels: Mapping[str, str] | None = None,
    *,
    node_class_label: tuple[str, str] | None = None,
) -> Requirements:
    """`nodepool_requirements` from `spec.requirements` already read (`Requirements.of`): for the same pool
    under another name, its requirements are not read again."""
    merged: dict[str, str] = dict(labels or {})
    merged["karpenter.sh/nodepool"] = name
    if node_class_label is not None:
        merged[node_class_label[0]] = node_class_label[1]
    return spec.intersection(Requirements.from_labels(merged))
