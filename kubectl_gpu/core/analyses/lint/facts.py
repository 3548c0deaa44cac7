"""What the lint checks read off a NodePool and the catalog: its provider, accelerator intent, instance types
and label values."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from kubectl_gpu.core.catalog import Catalog, CatalogError, InstanceType, Provider, parse_instance_type_name
from kubectl_gpu.core.fleet.accelerators import is_accelerator_resource
from kubectl_gpu.core.k8s.models import NodePool
from kubectl_gpu.core.k8s.quantity import parse_quantity
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.karpenter.do_not_disrupt import protection_of
from kubectl_gpu.core.karpenter.provider import cluster_provider
from kubectl_gpu.core.scheduling.instances import CAPACITY_TYPE
from kubectl_gpu.core.scheduling.requirements import Requirements

PREFIX: dict[Provider, str] = {"auto": "eks.amazonaws.com", "karpenter": "karpenter.k8s.aws"}
INSTANCE_TYPE_KEYS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")
ALWAYS_PRESENT = (
    "node.kubernetes.io/instance-type",
    "kubernetes.io/arch",
    "kubernetes.io/os",
    CAPACITY_TYPE,
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
)

ALWAYS_PRESENT_SUFFIXES = ("category", "family", "generation", "size", "cpu", "memory")


# Accelerated categories the catalog may not list yet (Gaudi dl1/dl2q, video transcode vt1, FPGA f1/f2).
EXTRA_ACCEL_CATEGORIES = frozenset({"dl", "vt", "f"})
AUTO_DEFAULT_EPHEMERAL = parse_quantity("80Gi")
GIGABYTE = Decimal(10**9)


def pool_provider(pool: NodePool, state: ClusterState) -> Provider:
    ref = pool.node_class_ref
    if ref is not None and ref.group == "eks.amazonaws.com":
        return "auto"
    if ref is not None and ref.group == "karpenter.k8s.aws":
        return "karpenter"
    return cluster_provider(state)


def accel_categories(catalog: Catalog) -> frozenset[str]:
    return frozenset(it.category for it in catalog.instance_types) | EXTRA_ACCEL_CATEGORIES


def category_of(name: str) -> str | None:
    try:
        return parse_instance_type_name(name if "." in name else f"{name}.x")[1]
    except CatalogError:
        return None


def requirement_values(pool: NodePool, keys: Iterable[str], operator: str = "In") -> list[str]:
    wanted = set(keys)
    out: list[str] = []
    for item in pool.requirements:
        if item.get("key") in wanted and item.get("operator") == operator:
            out.extend(str(v) for v in item.get("values") or [])
    return out


def suffix_keys(suffix: str) -> tuple[str, ...]:
    return tuple(f"{p}/instance-{suffix}" for p in PREFIX.values())


def accelerator_intent(pool: NodePool, reqs: Requirements, catalog: Catalog) -> str | None:
    """Why this pool is evidently meant for accelerators (so "admits nothing" is an error), or None."""
    cats = accel_categories(catalog)
    for key, req in reqs.items():
        tail = key.partition("/")[2]
        if (
            key.partition("/")[0] in PREFIX.values()
            and tail.startswith(("instance-gpu-", "instance-accelerator-"))
            and (req.complement or req.values)
        ):
            return f"it requires {key}"
    for value in requirement_values(pool, suffix_keys("category")):
        if value in cats:
            return f"it asks for instance category {value}"
    for value in requirement_values(pool, (*suffix_keys("family"), *INSTANCE_TYPE_KEYS)):
        if category_of(value) in cats:
            return f"it asks for {value}"
    for name, limit in pool.limits.items():
        if is_accelerator_resource(name) and limit > 0:
            return f"it limits {name}"
    for taint in pool.taints:
        if any(w in taint.key.lower() for w in ("gpu", "neuron")):
            return f"it has the taint {taint.key}"
    if "gpu" in pool.name.lower():
        return "its name says gpu"
    return None


def unknown_type_names(pool: NodePool, catalog: Catalog) -> list[str]:
    """Accelerated family / instance-type names the pool asks for that the catalog does not know."""
    cats = accel_categories(catalog)
    families = set(catalog.families())
    out = []
    for value in requirement_values(pool, suffix_keys("family")):
        if value not in families and category_of(value) in cats:
            out.append(value)
    for value in requirement_values(pool, INSTANCE_TYPE_KEYS):
        if catalog.by_name(value) is None and category_of(value) in cats:
            out.append(value)
    return sorted(set(out))


def always_present(key: str) -> bool:
    if key in ALWAYS_PRESENT:
        return True
    prefix, _, tail = key.partition("/")
    return prefix in PREFIX.values() and tail in {f"instance-{s}" for s in ALWAYS_PRESENT_SUFFIXES}


def type_names(items: Iterable[InstanceType], limit: int = 6) -> str:
    names = [it.name for it in items]
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def format_resource(value: Decimal, resource: str) -> str:
    if resource == "memory":
        return f"{value / Decimal(2**30):.0f}Gi"
    return str(int(value)) if value == value.to_integral_value() else str(value.normalize())


def hard_taint(pool: NodePool) -> bool:
    return any(t.effect in ("NoSchedule", "NoExecute") for t in pool.taints)


def training_reasons(pool: NodePool, gpu_types: list[InstanceType], state: ClusterState) -> tuple[str, ...]:
    reasons: list[str] = []
    words = [pool.name, *pool.template_labels, *pool.template_labels.values()]
    words += [f"{t.key}={t.value}" for t in pool.taints]
    if any("train" in w.lower() for w in words):
        reasons.append("name, labels or taints say train")
    if gpu_types and all(it.category == "p" or it.accelerator_count >= 8 for it in gpu_types):
        reasons.append("it admits only P-family or 8-GPU instance types")
    pool_nodes = {n.name for n in state.nodes if n.labels.get("karpenter.sh/nodepool") == pool.name}
    dnd = sorted(
        f"{p.namespace}/{p.name}"
        for name in pool_nodes
        for p in state.pods_by_node.get(name, [])
        if protection_of(p) is not None and not p.terminated
    )
    if dnd:
        reasons.append(f"its nodes run do-not-disrupt pods ({', '.join(dnd[:3])})")
    return tuple(reasons)


def gpu_requirement_fix(provider: Provider, gpu_types: list[InstanceType]) -> str:
    prefix = PREFIX[provider]
    memories = [it.gpu_memory_mib for it in gpu_types if it.gpu_memory_mib]
    cats = sorted({it.category for it in gpu_types})
    makers = sorted({it.accelerator_manufacturer for it in gpu_types})
    lines = ["requirements:"]
    lines.append(f"- {{key: {prefix}/instance-category, operator: In, values: [{', '.join(cats)}]}}")
    lines.append(
        f"- {{key: {prefix}/instance-gpu-manufacturer, operator: In, values: [{', '.join(makers)}]}}"
    )
    if memories:
        low = min(memories)
        lines.append(
            f'- {{key: {prefix}/instance-gpu-memory, operator: Gt, values: ["{low - 1}"]}}'
            f"  # >= {low} MiB per GPU"
        )
    lines.append(f'- {{key: {prefix}/instance-gpu-count, operator: Gt, values: ["0"]}}')
    return "\n".join(lines)
