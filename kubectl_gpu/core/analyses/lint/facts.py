"""What the lint checks read off a NodePool and the catalog: its provider, accelerator intent, instance types
and label values."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from functools import lru_cache

from kubectl_gpu.core.accelerators.resources import is_accelerator_resource
from kubectl_gpu.core.catalog import Catalog, CatalogError, InstanceType, Provider, parse_instance_type_name
from kubectl_gpu.core.k8s.models import NodePool
from kubectl_gpu.core.k8s.quantity import parse_quantity
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.karpenter.do_not_disrupt import protection_of
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


# API versions of karpenter.sh and karpenter.k8s.aws that Karpenter v1.1+ (and EKS Auto Mode, which serves
# karpenter.sh/v1 only) no longer serve: v1beta1 (v0.32-v1.0, conversion webhook in v1.0, removed in v1.1)
# and v1alpha5/v1alpha1 (up to v0.31). https://karpenter.sh/docs/upgrading/v1-migration/
REMOVED_API_VERSIONS = {
    "karpenter.sh/v1beta1": "served up to Karpenter v1.0 (through its conversion webhook), removed in v1.1",
    "karpenter.k8s.aws/v1beta1": "served up to Karpenter v1.0 (through its conversion webhook), removed in v1.1",
    "karpenter.sh/v1alpha5": "Karpenter up to v0.31; v0.32 replaced it with v1beta1 NodePools, v1.0 removed it",
    "karpenter.k8s.aws/v1alpha1": "Karpenter up to v0.31; v0.32 replaced it with v1beta1 EC2NodeClass",
}


def pool_provider(pool: NodePool) -> Provider | None:
    """The provider the pool itself names: its `nodeClassRef` group (or kind), else its API version (only
    self-managed Karpenter ever served `karpenter.sh/v1beta1`); None when the pool does not say. Never read
    from other objects of the input: a manifest directory may hold pools for both providers."""
    ref = pool.node_class_ref
    if ref is not None and (ref.group == "eks.amazonaws.com" or (not ref.group and ref.kind == "NodeClass")):
        return "auto"
    if ref is not None and (
        ref.group == "karpenter.k8s.aws" or (not ref.group and ref.kind == "EC2NodeClass")
    ):
        return "karpenter"
    if pool.api_version in ("karpenter.sh/v1beta1", "karpenter.sh/v1alpha5"):
        return "karpenter"
    return None


def label_provider(pool: NodePool) -> Provider:
    """Whose instance labels to match an unknown-provider pool against: the prefix its keys use (Auto Mode
    when it uses only eks.amazonaws.com/* keys), else self-managed Karpenter."""
    keys = [str(item.get("key", "")) for item in pool.requirements] + list(pool.template_labels)
    auto = any(k.startswith(f"{PREFIX['auto']}/") for k in keys)
    karpenter = any(k.startswith(f"{PREFIX['karpenter']}/") for k in keys)
    return "auto" if auto and not karpenter else "karpenter"


def accel_categories(catalog: Catalog) -> frozenset[str]:
    """The catalog's accelerated categories (g, p, inf, ...) and the ones it may not list yet."""
    return catalog.derived("lint.accel_categories", _accel_categories)


def _accel_categories(catalog: Catalog) -> frozenset[str]:
    return frozenset(it.category for it in catalog.instance_types) | EXTRA_ACCEL_CATEGORIES


def known_families(catalog: Catalog) -> frozenset[str]:
    return catalog.derived("lint.known_families", lambda c: frozenset(c.families()))


@lru_cache(maxsize=4096)
def category_of(name: str) -> str | None:
    """The category of an instance family or type name (`g` for `g6e` and `g6e.xlarge`); None when the
    name is not one (a pure function of the text: NodePools repeat the same names)."""
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
    families = known_families(catalog)
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
    gpus = [it for it in gpu_types if it.is_gpu]
    neurons = [it for it in gpu_types if it.is_neuron]
    if gpus and all(it.category == "p" or it.accelerator_count >= 8 for it in gpus):
        reasons.append("it admits only P-family or 8-GPU instance types")
    elif neurons and not gpus and all(it.category == "trn" for it in neurons):
        reasons.append("it admits only Trainium (trn) instance types")
    pool_nodes = [n.name for n in state.nodes_by_pool.get(pool.name, ())]
    dnd = sorted(
        f"{p.namespace}/{p.name}"
        for name in pool_nodes
        for p in state.pods_by_node.get(name, [])
        if protection_of(p) is not None and not p.terminated
    )
    if dnd:
        reasons.append(f"its nodes run do-not-disrupt pods ({', '.join(dnd[:3])})")
    return tuple(reasons)
