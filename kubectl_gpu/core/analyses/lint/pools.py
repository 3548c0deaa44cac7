"""The checks of one NodePool (see the `lint` package docstring for the definitions they share)."""

from __future__ import annotations

from kubectl_gpu.core.analyses.lint.facts import (
    INSTANCE_TYPE_KEYS,
    PREFIX,
    accelerator_intent,
    always_present,
    format_resource,
    gpu_requirement_fix,
    hard_taint,
    requirement_values,
    training_reasons,
    type_names,
    unknown_type_names,
)
from kubectl_gpu.core.analyses.lint.report import PoolFacts, lint_finding
from kubectl_gpu.core.catalog import Catalog, InstanceType
from kubectl_gpu.core.k8s.models import NodePool
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.karpenter.budgets import PoolBudgets
from kubectl_gpu.core.karpenter.settings import (
    AUTO_MODE_MAX_LIFETIME,
    Setting,
    consolidation_disabled,
    consolidation_policy_of,
    setting_duration,
)
from kubectl_gpu.core.report import Finding, ObjectRef, Severity
from kubectl_gpu.core.scheduling.instances import CAPACITY_TYPE, IndexedType, InstanceIndex, raw_capacity_of
from kubectl_gpu.core.scheduling.requirements import (
    Requirement,
    RequirementError,
    Requirements,
    nodepool_requirements,
)


class PoolLint:
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
        self.findings.append(lint_finding(code, self.ref, message, fix, severity))

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
            training = training_reasons(pool, gpu_types, self.state)
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
            if always_present(key) and not req.complement and not req.values:
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
        intent = accelerator_intent(pool, reqs, self.catalog)
        if intent is None:
            return  # a CPU pool: the catalog has no CPU types to judge it by
        unknown = unknown_type_names(pool, self.catalog)
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
        text = ", ".join(f"{r}={format_resource(v, r)}" for r, v in sorted(limits.items()))
        if not fitting:
            smallest = min(types, key=lambda it: (it.vcpu, it.accelerator_count, it.memory_mib))
            over = [
                f"{r} {format_resource(raw_capacity_of(smallest, r), r)} > {format_resource(limit, r)}"
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
                f"{type_names(excluded)}; pods that need them never get a node from this pool",
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
        if hard_taint(pool):
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
        fix = gpu_requirement_fix(self.provider, gpu_types)
        types = requirement_values(pool, INSTANCE_TYPE_KEYS)
        families = requirement_values(pool, (f"{PREFIX[self.provider]}/instance-family",))
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
