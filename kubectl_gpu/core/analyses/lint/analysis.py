"""`kubectl gpu lint`: NodePool / NodeClass / EC2NodeClass mistakes that cost money or kill GPU jobs, found
before the objects are applied (or in a live cluster).

Definitions the checks share (README "Lifecycle and lint" documents them):

* **provider** of a NodePool: `auto` when `nodeClassRef.group` is `eks.amazonaws.com`, `karpenter` when it is
  `karpenter.k8s.aws`; without a ref, whatever the rest of the input says (`cluster_provider`).
* **admitted instance types**: the catalog's accelerated types (`load_catalog()`, GPU/Neuron only) whose
  labels satisfy the pool's requirements and template labels (`InstanceIndex.admitted`, the same algebra as
  `pending`). The catalog holds no CPU-only types, so a CPU pool admits nothing here and is not judged on it.
* **GPU pool**: a pool that admits at least one GPU instance type of the catalog.
* **training pool**: a GPU pool whose name, template labels or taints contain `train`; or whose admitted GPU
  types are all P-family or 8-GPU (or larger) sizes; or whose nodes run pods annotated
  `karpenter.sh/do-not-disrupt` (live cluster or snapshot).

Karpenter / Auto Mode facts used: consolidation policies and the `WhenEmptyOrUnderutilized` default,
budgets and reasons, `expireAfter: Never`, `terminationGracePeriod` (`core/analyses/lifecycle/analysis.py`, `core/karpenter/budgets.py`
docstrings); Auto Mode's 21-day maximum node lifetime (EKS-FACTS §4); Auto Mode vs self-managed label keys
(`automode_labels.json`, EKS-FACTS §3.3: `karpenter.k8s.aws/*` keys are not instance labels on Auto Mode, so
a requirement on them restricts nothing, and the reverse); local NVMe: Auto Mode "If the configured ephemeral
storage in the NodeClass is smaller than the NVMe local storage for the instance" formats the NVMe for
ephemeral data (RAID 0 over several drives) with a 20 GiB EBS volume, and "When `ephemeralStorage.size`
equals or exceeds the local NVMe capacity ... The NVMe drive(s) are exposed directly" instead
(`awsdocs/amazon-eks-user-guide latest/ug/automode/automode-learn-instances.adoc` @06faff1); self-managed
Karpenter uses the instance store for ephemeral storage only with `instanceStorePolicy: RAID0` on the
EC2NodeClass. NVMe sizes compare in bytes: the `instance-local-nvme` label is decimal GB (Karpenter code,
EKS-FACTS §3.3).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from typing import Any, ClassVar

from kubectl_gpu.core.catalog import Catalog, CatalogError, InstanceType, Provider, parse_instance_type_name
from kubectl_gpu.core.errors import ExitCode
from kubectl_gpu.core.fleet.accelerators import is_accelerator_resource
from kubectl_gpu.core.k8s.models import NodeClass, NodePool
from kubectl_gpu.core.k8s.quantity import parse_quantity
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.karpenter.budgets import PoolBudgets
from kubectl_gpu.core.karpenter.do_not_disrupt import protection_of
from kubectl_gpu.core.karpenter.provider import cluster_provider
from kubectl_gpu.core.karpenter.settings import (
    AUTO_MODE_MAX_LIFETIME,
    Setting,
    consolidation_disabled,
    consolidation_policy_of,
    setting_duration,
)
from kubectl_gpu.core.report import FailOn, Finding, ObjectRef, ReportBase, Severity, severity_counts
from kubectl_gpu.core.scheduling.instances import CAPACITY_TYPE, IndexedType, InstanceIndex, raw_capacity_of
from kubectl_gpu.core.scheduling.requirements import (
    Requirement,
    RequirementError,
    Requirements,
    nodepool_requirements,
)

__all__ = ["CODES", "LintReport", "PoolFacts", "analyse", "lint"]

SOURCE = "lint"
PREFIX: dict[Provider, str] = {"auto": "eks.amazonaws.com", "karpenter": "karpenter.k8s.aws"}
_INSTANCE_TYPE_KEYS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")
_ALWAYS_PRESENT = (
    "node.kubernetes.io/instance-type",
    "kubernetes.io/arch",
    "kubernetes.io/os",
    CAPACITY_TYPE,
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
)
_ALWAYS_PRESENT_SUFFIXES = ("category", "family", "generation", "size", "cpu", "memory")
# Accelerated categories the catalog may not list yet (Gaudi dl1/dl2q, video transcode vt1, FPGA f1/f2).
_EXTRA_ACCEL_CATEGORIES = frozenset({"dl", "vt", "f"})
_AUTO_DEFAULT_EPHEMERAL = parse_quantity("80Gi")
_GB = Decimal(10**9)

CODES: dict[str, tuple[str, str]] = {
    "LINT_INVALID_REQUIREMENT": ("error", "a requirement Karpenter rejects (operator, values)"),
    "LINT_NO_NODECLASS_REF": ("error", "NodePool without spec.template.spec.nodeClassRef"),
    "LINT_NO_INSTANCE_TYPE": ("error", "requirements admit no instance type at all"),
    "LINT_LIMITS_BELOW_SMALLEST_TYPE": ("error", "limits can never fit one instance of any admitted type"),
    "LINT_LIMITS_EXCLUDE_TYPES": ("info", "limits rule out some admitted types for good"),
    "LINT_WRONG_PROVIDER_LABEL": ("error", "karpenter.k8s.aws/* keys in an Auto Mode pool, or the reverse"),
    "LINT_BUDGET_INVALID": ("error", "a budget Karpenter cannot evaluate: the pool fails closed"),
    "LINT_GPU_POOL_CONSOLIDATES_UNDERUTILIZED": (
        "warning",
        "GPU pool with WhenEmptyOrUnderutilized (info for Balanced)",
    ),
    "LINT_GPU_POOL_NO_TAINT": ("warning", "GPU pool without a NoSchedule/NoExecute taint"),
    "LINT_HARDCODED_INSTANCE_TYPES": (
        "warning",
        "instance-type list in a GPU pool (info for an instance-family list)",
    ),
    "LINT_EXPIRE_NEVER_AUTO_MODE": (
        "warning",
        "expireAfter: Never on Auto Mode (21-day cap and drift still apply)",
    ),
    "LINT_EXPIRE_AFTER_OVER_AUTO_MODE_CAP": ("info", "expireAfter beyond Auto Mode's 21-day cap"),
    "LINT_TRAINING_POOL_NO_BUDGET_WINDOW": ("warning", "training pool whose budgets have no schedule"),
    "LINT_NVME_CACHE_DISABLED": ("warning", "the NodeClass keeps local NVMe out of ephemeral storage"),
}


def _finding(
    code: str, obj: ObjectRef, message: str, fix: str | None, severity: Severity | None = None
) -> Finding:
    return Finding(code, severity or Severity(CODES[code][0]), obj, message, fix, SOURCE)


@dataclass(frozen=True, slots=True)
class PoolFacts:
    """What lint worked out about one NodePool (also in the JSON, to explain the verdicts)."""

    name: str
    provider: Provider
    admitted: tuple[InstanceType, ...]
    gpu: bool
    training: tuple[str, ...]  # why it counts as a training pool; empty: it does not

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "provider": self.provider,
            "gpuPool": self.gpu,
            "trainingPool": bool(self.training),
            "trainingBecause": list(self.training),
            "admittedInstanceTypes": [it.name for it in self.admitted],
        }


@dataclass(frozen=True, slots=True)
class LintReport(ReportBase):
    """Exit 1 when a finding reaches `fail_on` (the threshold it was run with; `--fail-on`, default error)."""

    kind: ClassVar[str] = "LintReport"
    findings: tuple[Finding, ...]
    pools: tuple[PoolFacts, ...]
    node_classes: tuple[str, ...]
    fail_on: FailOn = FailOn.error

    def exit_code(self, fail_on: FailOn | None = None) -> ExitCode:
        return ReportBase.exit_code(self, fail_on or self.fail_on)

    def body(self) -> dict[str, Any]:
        return {
            "findings": [f.to_dict() for f in self.findings],
            "summary": severity_counts(self.findings),
            "nodePools": [p.to_dict() for p in self.pools],
            "nodeClasses": list(self.node_classes),
            "failOn": self.fail_on.value,
        }


# --------------------------------------------------------------------------- helpers


def _provider(pool: NodePool, state: ClusterState) -> Provider:
    ref = pool.node_class_ref
    if ref is not None and ref.group == "eks.amazonaws.com":
        return "auto"
    if ref is not None and ref.group == "karpenter.k8s.aws":
        return "karpenter"
    return cluster_provider(state)


def _accel_categories(catalog: Catalog) -> frozenset[str]:
    return frozenset(it.category for it in catalog.instance_types) | _EXTRA_ACCEL_CATEGORIES


def _category_of(name: str) -> str | None:
    try:
        return parse_instance_type_name(name if "." in name else f"{name}.x")[1]
    except CatalogError:
        return None


def _raw_values(pool: NodePool, keys: Iterable[str], operator: str = "In") -> list[str]:
    wanted = set(keys)
    out: list[str] = []
    for item in pool.requirements:
        if item.get("key") in wanted and item.get("operator") == operator:
            out.extend(str(v) for v in item.get("values") or [])
    return out


def _suffix_keys(suffix: str) -> tuple[str, ...]:
    return tuple(f"{p}/instance-{suffix}" for p in PREFIX.values())


def _accelerator_intent(pool: NodePool, reqs: Requirements, catalog: Catalog) -> str | None:
    """Why this pool is evidently meant for accelerators (so "admits nothing" is an error), or None."""
    cats = _accel_categories(catalog)
    for key, req in reqs.items():
        tail = key.partition("/")[2]
        if (
            key.partition("/")[0] in PREFIX.values()
            and tail.startswith(("instance-gpu-", "instance-accelerator-"))
            and (req.complement or req.values)
        ):
            return f"it requires {key}"
    for value in _raw_values(pool, _suffix_keys("category")):
        if value in cats:
            return f"it asks for instance category {value}"
    for value in _raw_values(pool, (*_suffix_keys("family"), *_INSTANCE_TYPE_KEYS)):
        if _category_of(value) in cats:
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


def _unknown_names(pool: NodePool, catalog: Catalog) -> list[str]:
    """Accelerated family / instance-type names the pool asks for that the catalog does not know."""
    cats = _accel_categories(catalog)
    families = set(catalog.families())
    out = []
    for value in _raw_values(pool, _suffix_keys("family")):
        if value not in families and _category_of(value) in cats:
            out.append(value)
    for value in _raw_values(pool, _INSTANCE_TYPE_KEYS):
        if catalog.by_name(value) is None and _category_of(value) in cats:
            out.append(value)
    return sorted(set(out))


def _always_present(key: str) -> bool:
    if key in _ALWAYS_PRESENT:
        return True
    prefix, _, tail = key.partition("/")
    return prefix in PREFIX.values() and tail in {f"instance-{s}" for s in _ALWAYS_PRESENT_SUFFIXES}


def _names(items: Iterable[InstanceType], limit: int = 6) -> str:
    names = [it.name for it in items]
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _fmt(value: Decimal, resource: str) -> str:
    if resource == "memory":
        return f"{value / Decimal(2**30):.0f}Gi"
    return str(int(value)) if value == value.to_integral_value() else str(value.normalize())


def _hard_taint(pool: NodePool) -> bool:
    return any(t.effect in ("NoSchedule", "NoExecute") for t in pool.taints)


def _training_reasons(pool: NodePool, gpu_types: list[InstanceType], state: ClusterState) -> tuple[str, ...]:
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


def _gpu_requirement_fix(provider: Provider, gpu_types: list[InstanceType]) -> str:
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


# --------------------------------------------------------------------------- checks


class _PoolLint:
    def __init__(self, pool: NodePool, state: ClusterState, catalog: Catalog, index: InstanceIndex) -> None:
        self.pool = pool
        self.state = state
        self.catalog = catalog
        self.index = index
        self.provider = index.provider
        self.ref = ObjectRef("NodePool", pool.name)
        self.findings: list[Finding] = []
        self.reqs: Requirements | None = None
        self.admitted: tuple[IndexedType, ...] = ()

    def add(self, code: str, message: str, fix: str | None, severity: Severity | None = None) -> None:
        self.findings.append(_finding(code, self.ref, message, fix, severity))

    def run(self) -> PoolFacts:
        pool = self.pool
        if pool.node_class_ref is None:
            kind = "NodeClass" if self.provider == "auto" else "EC2NodeClass"
            self.add(
                "LINT_NO_NODECLASS_REF",
                f"NodePool {pool.name} has no spec.template.spec.nodeClassRef (required by the CRD)",
                f"nodeClassRef: {{group: {PREFIX[self.provider]}, kind: {kind}, name: default}}",
            )
        self._wrong_provider()
        self._budgets()
        try:
            for item in pool.requirements:
                Requirement.from_dict(item)
            ref = pool.node_class_ref
            label = (f"{ref.group}/{ref.kind.lower()}", ref.name) if ref is not None else None
            self.reqs = nodepool_requirements(
                pool.name, pool.requirements, pool.template_labels, node_class_label=label
            )
        except RequirementError as exc:
            self.add("LINT_INVALID_REQUIREMENT", f"NodePool {pool.name}: {exc}", "fix the requirement")
            return PoolFacts(pool.name, self.provider, (), False, ())
        reqs = self.reqs
        index_reqs = reqs
        capacity = reqs.get(CAPACITY_TYPE)
        if capacity is not None and capacity.has("reserved"):
            # Reserved offerings (ODCRs, capacity blocks) are not in the catalog: do not filter on them.
            index_reqs = Requirements({k: v for k, v in reqs.items() if k != CAPACITY_TYPE})
        self.admitted = self.index.admitted(index_reqs)
        types = [e.it for e in self.admitted]
        gpu_types = [it for it in types if it.is_gpu]
        is_gpu = bool(gpu_types)

        self._no_instance_type(reqs, index_reqs, types)
        if types:
            self._limits(types)
        self._expire_after()
        training: tuple[str, ...] = ()
        if is_gpu:
            self._consolidation()
            self._taint(gpu_types)
            self._hardcoded(gpu_types)
            training = _training_reasons(pool, gpu_types, self.state)
            if training:
                self._training_window(training)
        return PoolFacts(pool.name, self.provider, tuple(types), is_gpu, training)

    def _wrong_provider(self) -> None:
        pool = self.pool
        own = PREFIX[self.provider]
        other = PREFIX["karpenter" if self.provider == "auto" else "auto"]
        table = self.catalog.label_table
        seen: set[str] = set()
        keys = [("requirement", str(item.get("key", ""))) for item in pool.requirements]
        keys += [("template label", k) for k in pool.template_labels]
        for where, key in keys:
            owner = table.provider_of(key)
            wrong = (owner is not None and owner != self.provider) or key.startswith(f"{other}/instance-")
            if self.provider == "auto" and key.startswith("karpenter.k8s.aws/"):
                wrong = True
            if not wrong or key in seen:
                continue
            seen.add(key)
            counterpart = table.other_provider_key(key)
            if self.provider == "auto":
                why = (
                    f"EKS Auto Mode nodes carry {own}/* labels, not {key}: the {where} restricts no instance "
                    "type, and pods that select it never match"
                )
            else:
                why = (
                    f"self-managed Karpenter sets {own}/* labels, not {key}: the {where} restricts no instance "
                    "type (Karpenter treats it as a custom label), and pods that select it never match"
                )
            fix = (
                f"use {counterpart}" if counterpart else f"remove {key} (no {own} counterpart is documented)"
            )
            self.add("LINT_WRONG_PROVIDER_LABEL", f"NodePool {pool.name} ({self._kind()}): {why}", fix)

    def _kind(self) -> str:
        return "EKS Auto Mode" if self.provider == "auto" else "self-managed Karpenter"

    def _budgets(self) -> None:
        for spec in PoolBudgets(self.pool.budgets).errors:
            self.add(
                "LINT_BUDGET_INVALID",
                f"NodePool {self.pool.name} budget #{spec.index + 1} ({spec.describe()}): {spec.error}. Karpenter "
                "fails closed: no drift or consolidation in this pool while it stands",
                "write schedules as five-field cron in UTC (day-of-week 0-6) with a duration like 8h or 30m",
            )

    def _no_instance_type(
        self, reqs: Requirements, index_reqs: Requirements, types: list[InstanceType]
    ) -> None:
        pool = self.pool
        for key, req in reqs.items():
            if _always_present(key) and not req.complement and not req.values:
                raw = [
                    f"{i.get('operator')} {i.get('values') or ''}".strip()
                    for i in pool.requirements
                    if i.get("key") == key
                ]
                if key in pool.template_labels:
                    raw.append(f"template label {pool.template_labels[key]!r}")
                self.add(
                    "LINT_NO_INSTANCE_TYPE",
                    f"NodePool {pool.name} admits no instance type: every node has {key}, and its constraints "
                    f"({'; '.join(raw)}) leave no value for it",
                    f"make the {key} constraints overlap (or drop one)",
                )
                return
        if types:
            return
        intent = _accelerator_intent(pool, reqs, self.catalog)
        if intent is None:
            return  # a CPU pool: the catalog has no CPU types to judge it by
        unknown = _unknown_names(pool, self.catalog)
        counts: dict[str, int] = {}
        for entry in self.index.types:
            failing = self.index.first_mismatch(index_reqs, entry)
            if failing:
                counts[failing] = counts.get(failing, 0) + 1
        blocking = ""
        if counts:
            top = max(sorted(counts), key=lambda k: counts[k])
            blocking = f"; most types fail on {index_reqs.get(top)}"
        if unknown:
            self.add(
                "LINT_NO_INSTANCE_TYPE",
                f"NodePool {pool.name} is meant for accelerators ({intent}) but admits no instance type this tool "
                f"knows; it also names {', '.join(unknown)}, which the catalog does not list, so this may be a "
                f"gap in the catalog{blocking}",
                "check the names against `aws ec2 describe-instance-types`",
                Severity.WARNING,
            )
            return
        self.add(
            "LINT_NO_INSTANCE_TYPE",
            f"NodePool {pool.name} is meant for accelerators ({intent}) but its requirements admit no accelerated "
            f"instance type{blocking}",
            "relax the requirements; `kubectl gpu explain POD` shows which key excludes which type",
        )

    def _limits(self, types: list[InstanceType]) -> None:
        pool = self.pool
        limits = pool.limits
        if not limits:
            return

        def fits(it: InstanceType) -> bool:
            return all(raw_capacity_of(it, r) <= limit for r, limit in limits.items())

        fitting = [it for it in types if fits(it)]
        text = ", ".join(f"{r}={_fmt(v, r)}" for r, v in sorted(limits.items()))
        if not fitting:
            smallest = min(types, key=lambda it: (it.vcpu, it.accelerator_count, it.memory_mib))
            over = [
                f"{r} {_fmt(raw_capacity_of(smallest, r), r)} > {_fmt(limit, r)}"
                for r, limit in sorted(limits.items())
                if raw_capacity_of(smallest, r) > limit
            ]
            self.add(
                "LINT_LIMITS_BELOW_SMALLEST_TYPE",
                f"NodePool {pool.name} limits ({text}) cannot fit a single node of any admitted type; the smallest, "
                f"{smallest.name}, needs {', '.join(over)}. Karpenter reports 'all available instance types exceed "
                "limits for nodepool'",
                "raise spec.limits to at least one node of the largest type you want, or drop the limit",
            )
            return
        excluded = [it for it in types if not fits(it)]
        if excluded and any(it.is_gpu for it in excluded):
            self.add(
                "LINT_LIMITS_EXCLUDE_TYPES",
                f"NodePool {pool.name} limits ({text}) rule out {len(excluded)} admitted type(s) for good: "
                f"{_names(excluded)}; pods that need them never get a node from this pool",
                "raise the limits or narrow the requirements to the types that fit",
            )

    def _expire_after(self) -> None:
        pool = self.pool
        if self.provider != "auto" or pool.expire_after is None:
            return
        if pool.expire_after == "Never":
            self.add(
                "LINT_EXPIRE_NEVER_AUTO_MODE",
                f"NodePool {pool.name}: expireAfter: Never does not keep EKS Auto Mode nodes forever: Auto Mode "
                "replaces every node after at most 21 days, and drift (a new AMI about weekly) replaces them sooner "
                "within the pool's budgets",
                "plan for it: checkpoint long jobs, set expireAfter below 504h with a terminationGracePeriod, and "
                "steer drift into a window with budgets (reasons: [Drifted], schedule + duration)",
            )
            return
        value = setting_duration(Setting(pool.expire_after, "nodepool"))
        if value is not None and value > AUTO_MODE_MAX_LIFETIME:
            self.add(
                "LINT_EXPIRE_AFTER_OVER_AUTO_MODE_CAP",
                f"NodePool {pool.name}: expireAfter {pool.expire_after} exceeds EKS Auto Mode's 21-day (504h) "
                "maximum node lifetime; nodes are replaced at 21 days regardless",
                "set expireAfter to 504h or less (leave room for terminationGracePeriod)",
            )

    def _consolidation(self) -> None:
        pool = self.pool
        policy = consolidation_policy_of(pool).value
        if consolidation_disabled(pool) or PoolBudgets(pool.budgets).blocked_always("Underutilized"):
            return
        if policy not in ("WhenEmptyOrUnderutilized", "Balanced"):
            return
        default = "" if pool.consolidation_policy else " (the default when consolidationPolicy is unset)"
        severity = Severity.INFO if policy == "Balanced" else None
        self.add(
            "LINT_GPU_POOL_CONSOLIDATES_UNDERUTILIZED",
            f"GPU NodePool {pool.name} uses consolidationPolicy {policy}{default}: Karpenter evicts running GPU "
            "pods to repack them onto fewer or cheaper nodes, restarting jobs and reloading models",
            "disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 10m}  # or a budget "
            '{nodes: "0", reasons: [Underutilized]}',
            severity,
        )

    def _taint(self, gpu_types: list[InstanceType]) -> None:
        pool = self.pool
        if _hard_taint(pool):
            return
        key = (
            "amd.com/gpu"
            if all(it.accelerator_manufacturer == "amd" for it in gpu_types)
            else "nvidia.com/gpu"
        )
        self.add(
            "LINT_GPU_POOL_NO_TAINT",
            f"GPU NodePool {pool.name} has no NoSchedule taint: ordinary pods can land on its GPU nodes, keep them "
            "alive and block consolidation of expensive capacity",
            f"taints: [{{key: {key}, effect: NoSchedule}}]  # and tolerate it in GPU pods",
        )

    def _hardcoded(self, gpu_types: list[InstanceType]) -> None:
        pool = self.pool
        fix = _gpu_requirement_fix(self.provider, gpu_types)
        types = _raw_values(pool, _INSTANCE_TYPE_KEYS)
        families = _raw_values(pool, (f"{PREFIX[self.provider]}/instance-family",))
        if types:
            self.add(
                "LINT_HARDCODED_INSTANCE_TYPES",
                f"GPU NodePool {pool.name} lists instance types ({', '.join(types[:6])}"
                f"{' ...' if len(types) > 6 else ''}): new sizes and families never qualify and a capacity "
                "shortage in the listed ones leaves pods Pending",
                "select by what the job needs instead (instance-gpu-memory, instance-gpu-count):\n" + fix,
            )
        elif families:
            self.add(
                "LINT_HARDCODED_INSTANCE_TYPES",
                f"GPU NodePool {pool.name} lists instance families ({', '.join(families)}): newer GPU families "
                "never qualify",
                "consider selecting by GPU memory and count, which new families satisfy:\n" + fix,
                Severity.INFO,
            )

    def _training_window(self, training: tuple[str, ...]) -> None:
        pool = self.pool
        budgets = PoolBudgets(pool.budgets)
        if budgets.has_window or budgets.errors:
            return
        policy = consolidation_policy_of(pool).value
        repacks = (
            policy != "WhenEmpty"
            and not consolidation_disabled(pool)
            and not budgets.blocked_always("Underutilized")
        )
        if budgets.blocked_always("Drifted") and not repacks:
            return
        what = "the default 10% budget" if budgets.defaulted else "budgets without a schedule"
        self.add(
            "LINT_TRAINING_POOL_NO_BUDGET_WINDOW",
            f"NodePool {pool.name} looks like a training pool ({'; '.join(training)}) but has {what}: drift "
            "(e.g. a new AMI) and consolidation may replace its nodes at any hour, killing multi-day jobs",
            "add a blocking window, e.g. no voluntary disruption on weekdays (UTC):\n"
            'disruption:\n  budgets:\n  - nodes: "0"\n    reasons: [Drifted, Underutilized]\n'
            '    schedule: "0 0 * * mon-fri"\n    duration: 24h\n  - nodes: "1"',
        )


def _nvme_findings(node_class: NodeClass, pools: list[tuple[NodePool, list[InstanceType]]]) -> list[Finding]:
    """One finding per NodeClass, over every GPU pool that uses it."""
    ref = ObjectRef(node_class.kind, node_class.name)
    names: list[str] = []
    affected: list[InstanceType] = []
    for pool, gpu_types in pools:
        nvme = [it for it in gpu_types if it.local_nvme_total_gb > 0]
        if node_class.kind == "NodeClass":
            size = node_class.ephemeral_storage_size or _AUTO_DEFAULT_EPHEMERAL
            nvme = [it for it in nvme if size >= Decimal(it.local_nvme_total_gb) * _GB]
        elif node_class.instance_store_policy == "RAID0":
            nvme = []
        if nvme:
            names.append(pool.name)
            affected.extend(it for it in nvme if it not in affected)
    if not affected:
        return []
    affected.sort(key=lambda it: (it.local_nvme_total_gb, it.name))
    used_by = f"NodePool{'s' if len(names) > 1 else ''} {', '.join(names)}"
    if node_class.kind == "NodeClass":
        size = node_class.ephemeral_storage_size or _AUTO_DEFAULT_EPHEMERAL
        shown = ", ".join(f"{it.name} ({it.local_nvme_total_gb} GB)" for it in affected[:6])
        more = f" and {len(affected) - 6} more" if len(affected) > 6 else ""
        return [
            _finding(
                "LINT_NVME_CACHE_DISABLED",
                ref,
                f"NodeClass {node_class.name} ({used_by}) asks for ephemeralStorage.size {_fmt(size, 'memory')}, "
                f"which equals or exceeds the local NVMe of {shown}{more}: on those EKS Auto Mode keeps ephemeral "
                "storage (images, model caches, emptyDir) on EBS and exposes the NVMe raw instead of using it",
                "set ephemeralStorage.size below the smallest NVMe you want used (Auto Mode then formats the NVMe, "
                "RAID 0 across drives, for ephemeral data), or restrict the pool to larger NVMe with "
                "eks.amazonaws.com/instance-local-nvme Gt N",
            )
        ]
    user_data = node_class.user_data or ""
    custom = any(w in user_data.lower() for w in ("localstorage", "mdadm", "raid"))
    return [
        _finding(
            "LINT_NVME_CACHE_DISABLED",
            ref,
            f"EC2NodeClass {node_class.name} ({used_by}) has no instanceStorePolicy: RAID0, so the local NVMe of "
            f"{_names(affected)} is not used for ephemeral storage: image pulls and model caches go to the EBS "
            "root volume"
            + ("; its userData seems to set up local disks itself, check that it does" if custom else ""),
            "spec: {instanceStorePolicy: RAID0}",
            Severity.INFO if custom else None,
        )
    ]


def lint(state: ClusterState, catalog: Catalog) -> LintReport:
    """Check every NodePool, NodeClass and EC2NodeClass in `state`."""
    indexes: dict[Provider, InstanceIndex] = {}
    findings: list[Finding] = []
    facts: list[PoolFacts] = []
    gpu_pools_by_class: dict[tuple[str, str], list[tuple[NodePool, list[InstanceType]]]] = {}
    for pool in sorted(state.nodepools, key=lambda p: p.name):
        provider = _provider(pool, state)
        index = indexes.get(provider)
        if index is None:
            index = indexes[provider] = InstanceIndex(catalog, provider)
        checker = _PoolLint(pool, state, catalog, index)
        fact = checker.run()
        findings.extend(checker.findings)
        facts.append(fact)
        ref = pool.node_class_ref
        if fact.gpu and ref is not None:
            gpu = [it for it in fact.admitted if it.is_gpu]
            gpu_pools_by_class.setdefault((ref.kind, ref.name), []).append((pool, gpu))
    for node_class in sorted(state.nodeclasses, key=lambda c: (c.kind, c.name)):
        findings.extend(
            _nvme_findings(node_class, gpu_pools_by_class.get((node_class.kind, node_class.name), []))
        )
    findings.sort(key=Finding.sort_key)
    classes = tuple(f"{c.kind}/{c.name}" for c in sorted(state.nodeclasses, key=lambda c: (c.kind, c.name)))
    return LintReport(tuple(findings), tuple(facts), classes)


def analyse(
    state: ClusterState, catalog: Catalog, now: datetime, *, fail_on: FailOn = FailOn.error
) -> LintReport:
    """Lint needs no clock; `now` is taken for the common signature."""
    return replace(lint(state, catalog), fail_on=fail_on)
