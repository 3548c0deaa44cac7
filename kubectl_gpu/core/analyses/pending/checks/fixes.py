"""Fixes a user can paste: YAML snippets and one-line instructions."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from kubectl_gpu.core.scheduling.taints import Taint, suggest_toleration

__all__ = ["nodepool_object", "nodepool_yaml", "selector_fix", "toleration_fix"]


def _yaml_scalar(value: Any) -> str:
    """A YAML scalar that reads back as exactly this value: strings are always double-quoted, because
    YAML 1.1 turns `True`, `on`, `1.5`, `0x1F` or `2026-11-29` into something that is not a string."""
    return json.dumps(value)


def toleration_fix(taints: tuple[Taint, ...]) -> str:
    """The `tolerations:` block for the pod spec."""
    lines = ["tolerations:"]
    for taint in taints:
        item = suggest_toleration(taint)
        first = True
        for key in ("key", "operator", "value", "effect"):
            if key in item:
                prefix = "- " if first else "  "
                lines.append(f"{prefix}{key}: {_yaml_scalar(item[key])}")
                first = False
    return "\n".join(lines)


def pool_taint(resource: str) -> str:
    """The taint key a dedicated accelerator pool should carry for a resource."""
    return "nvidia.com/gpu" if resource.startswith("nvidia.com/") else resource


def selector_fix(old_key: str, new_key: str, value: str | None) -> str:
    shown = _yaml_scalar(value) if value is not None else "<value>"
    return f"nodeSelector:\n  {new_key}: {shown}    # was {old_key}"


def nodepool_yaml(
    *,
    name: str,
    provider: str,
    resource: str,
    families: list[str],
    node_class: str,
    count: Decimal,
) -> str:
    """A GPU NodePool like the seed's `gpu-inference`, for the provider in use."""
    prefix = "eks.amazonaws.com" if provider == "auto" else "karpenter.k8s.aws"
    group, kind = (
        ("eks.amazonaws.com", "NodeClass") if provider == "auto" else ("karpenter.k8s.aws", "EC2NodeClass")
    )
    limit = max(int(count) * 4, 8)
    taint = pool_taint(resource)
    return "\n".join(
        [
            "apiVersion: karpenter.sh/v1",
            "kind: NodePool",
            "metadata:",
            f"  name: {name}",
            "spec:",
            "  template:",
            "    spec:",
            "      nodeClassRef:",
            f"        group: {group}",
            f"        kind: {kind}",
            f"        name: {node_class}",
            "      requirements:",
            f"        - key: {prefix}/instance-family",
            "          operator: In",
            f"          values: [{', '.join(families)}]",
            "        - key: karpenter.sh/capacity-type",
            "          operator: In",
            "          values: [on-demand]",
            "      taints:",
            f"        - key: {taint}",
            "          effect: NoSchedule",
            "      expireAfter: 336h",
            "  disruption:",
            "    consolidationPolicy: WhenEmpty",
            "    consolidateAfter: 1h",
            "  limits:",
            f"    {resource}: {limit}",
        ]
    )


def nodepool_object(
    *,
    name: str,
    provider: str,
    resource: str,
    families: list[str],
    node_class: str,
    count: Decimal,
) -> dict[str, Any]:
    """`nodepool_yaml` as the object it reads back as (what a fix is verified with: verify/)."""
    prefix = "eks.amazonaws.com" if provider == "auto" else "karpenter.k8s.aws"
    group, kind = (
        ("eks.amazonaws.com", "NodeClass") if provider == "auto" else ("karpenter.k8s.aws", "EC2NodeClass")
    )
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": name},
        "spec": {
            "template": {
                "spec": {
                    "nodeClassRef": {"group": group, "kind": kind, "name": node_class},
                    "requirements": [
                        {"key": f"{prefix}/instance-family", "operator": "In", "values": list(families)},
                        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
                    ],
                    "taints": [{"key": pool_taint(resource), "effect": "NoSchedule"}],
                    "expireAfter": "336h",
                }
            },
            "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "1h"},
            "limits": {resource: max(int(count) * 4, 8)},
        },
    }
