"""The checks of one NodePool (see the `lint` package docstring for the definitions they share)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import orjson

from kubectl_gpu.core.analyses.lint.facts import (
    INSTANCE_TYPE_KEYS,
    PREFIX,
    accelerator_intent,
    always_present,
    format_resource,
    pool_provider,
    suffix_keys,
    training_reasons,
    type_names,
    unknown_type_names,
)
from kubectl_gpu.core.analyses.lint.fixes import OverlayCapacity, overlay_accelerators
from kubectl_gpu.core.analyses.lint.hygiene import accelerator_checks
from kubectl_gpu.core.analyses.lint.report import PoolFacts, lint_finding
from kubectl_gpu.core.analyses.lint.schema_checks import schema_checks, unknown_name_checks
from kubectl_gpu.core.analyses.lint.static import static_checks
from kubectl_gpu.core.catalog import Catalog, InstanceType, Provider
from kubectl_gpu.core.k8s.models import NodePool, Raw
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.karpenter.budgets import PoolBudgets
from kubectl_gpu.core.karpenter.settings import AUTO_MODE_MAX_LIFETIME, Setting, setting_duration
from kubectl_gpu.core.report import Finding, ObjectRef, Severity
from kubectl_gpu.core.scheduling.instances import CAPACITY_TYPE, IndexedType, InstanceIndex, raw_capacity_of
from kubectl_gpu.core.scheduling.requirements import (
    NormalizedRequirement,
    RequirementError,
    Requirements,
    nodepool_requirements,
    normalized,
)


class PoolLint:
    def __init__(
        self,
        pool: NodePool,
        state: ClusterState,
        catalog: Catalog,
        index: InstanceIndex,
        overlay: OverlayCapacity | None = None,
    ) -> None:
        self.pool = pool
        self.state = state
        self.catalog = catalog
        self.index = index
        self.overlay = overlay
        self.provider: Provider | None = pool_provider(pool)  # None: the pool does not say
        self.label_provider: Provider = index.provider  # whose labels its requirements are matched against
        self.ref = ObjectRef("NodePool", pool.name)
        self.findings: list[Finding] = []
        self.reqs: Requirements | None = None
        self.index_reqs: Requirements | None = None
        # the pool's requirements read and normalized, by id (the pool holds them)
        self._parsed: dict[int, NormalizedRequirement] = {}
        self.admitted: tuple[IndexedType, ...] = ()

    def add(self, code: str, message: str, fix: str | None, severity: Severity | None = None) -> None:
        self.findings.append(lint_finding(code, self.ref, message, fix, severity))

    def _facts(self, types: list[InstanceType], training: tuple[str, ...] = ()) -> PoolFacts:
        gpu = any(it.is_gpu or overlay_accelerators(it, self.overlay) for it in types)
        neuron = any(it.is_neuron for it in types)
        return PoolFacts(self.pool.name, self.provider or "unknown", tuple(types), gpu, training, neuron)

    def run(self) -> PoolFacts:
        pool = self.pool
        if pool.node_class_ref is None:
            provider = self.label_provider
            kind = "NodeClass" if provider == "auto" else "EC2NodeClass"
            self.add(
                "LINT_NO_NODECLASS_REF",
                f"NodePool {pool.name} has no spec.template.spec.nodeClassRef (required by the CRD)",
                f"nodeClassRef: {{group: {PREFIX[provider]}, kind: {kind}, name: default}}",
            )
        schema_checks(self)
        static_checks(self)
        self._wrong_provider()
        self._budgets()
        try:
            # each read once (the first that does not parse is the error), then reused by the fix checks
            self._parsed = {id(item): normalized(item) for item in pool.requirements}
            self.reqs = self._requirements(pool.requirements)
        except RequirementError as exc:
            self.add("LINT_INVALID_REQUIREMENT", f"NodePool {pool.name}: {exc}", "fix the requirement")
            return self._facts([])
        reqs = self.reqs
        self.index_reqs = index_reqs = self._for_index(reqs)
        self.admitted = self.index.admitted(index_reqs)
        types = [e.it for e in self.admitted]
        self._no_instance_type(reqs, index_reqs, types)
        unknown_name_checks(self)
        if types:
            self._limits(types)
        self._expire_after()
        training: tuple[str, ...] = ()
        # The catalog holds accelerated types only: GPU and Neuron pools get the same hygiene, if the pool is
        # meant for accelerators (a catch-all pool admits GPU types too, but launches them only for GPU pods).
        if types and accelerator_intent(pool, reqs, self.catalog) is not None:
            training = training_reasons(pool, types, self.state)
            accelerator_checks(self, types, training)
        return self._facts(types, training)

    def _requirements(self, items: Iterable[Raw]) -> Requirements:
        """The template's requirements with `items` as its `spec.requirements` (the pool's own read once)."""
        pool = self.pool
        ref = pool.node_class_ref
        label = (f"{ref.group}/{ref.kind.lower()}", ref.name) if ref is not None and ref.group else None
        parsed = self._parsed
        read = tuple(parsed.get(id(item)) or item for item in items)
        return nodepool_requirements(pool.name, read, pool.template_labels, node_class_label=label)

    @staticmethod
    def _for_index(reqs: Requirements) -> Requirements:
        capacity = reqs.get(CAPACITY_TYPE)
        if capacity is not None and capacity.has("reserved"):
            # Reserved offerings (ODCRs, capacity blocks) are not in the catalog: do not filter on them.
            return Requirements({k: v for k, v in reqs.items() if k != CAPACITY_TYPE})
        return reqs

    def admits_with(self, extra: list[dict[str, object]], among: Sequence[InstanceType]) -> frozenset[str]:
        """The names of the types `among` that the pool's requirements admit with `extra` in place of its
        instance-type and instance-family lists (what a suggested fix replaces); none when that does not
        parse. Only those are asked (the pool's admitted types: does the fix keep them?), not the catalog's
        every type: a fix's requirements rarely narrow the types by a list."""
        replaced = set(INSTANCE_TYPE_KEYS) | set(suffix_keys("family"))
        items = [r for r in self.pool.requirements if r.get("key") not in replaced] + list(extra)
        # Pools with the same requirements, labels and NodeClass get the same answer (their names add only
        # `karpenter.sh/nodepool`, which no instance type decides): once per index for them.
        pool = self.pool
        names = tuple(it.name for it in among)
        key = (
            _key_text(items),
            _key_text(sorted(pool.template_labels.items())),
            repr(pool.node_class_ref),
            names,
        )
        memo = self.index.derived.setdefault("lint admits", {})
        found = memo.get(key)
        if not isinstance(found, frozenset):
            found = memo[key] = self._admits(items, names)
        return found

    def _admits(self, items: list[Raw], names: tuple[str, ...]) -> frozenset[str]:
        try:
            reqs = self._for_index(self._requirements(items))
        except RequirementError:
            return frozenset()
        index = self.index
        admitted = index.passing(reqs)
        at = index.position
        return frozenset(name for name in names if name in at and admitted >> at[name] & 1)

    def _wrong_provider(self) -> None:
        pool = self.pool
        if self.provider is None:
            return  # the pool names no provider: which keys are wrong cannot be said
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
        counts = self.index.mismatch_counts(index_reqs)
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
            "relax the requirements; `kubectl gpu explain` on a pod meant for it shows which key excludes which type",
        )

    def _limits(self, types: list[InstanceType]) -> None:
        pool = self.pool
        limits = pool.limits
        if not limits:
            return

        def fits(it: InstanceType) -> bool:  # `nodes` counts nodes (one each), not a resource of the type
            return all(raw_capacity_of(it, r) <= limit for r, limit in limits.items() if r != "nodes")

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


def _key_text(value: object) -> bytes | str:
    """`value` as a memo key: its JSON text (a tenth of `repr`'s cost on a pool's requirements, and exact
    where Python's equality is not: 1, 1.0 and true differ), or its `repr` where the text could stand for
    two values (a `null`: None, NaN or an infinity) or JSON cannot hold it. Bytes and text never collide."""
    try:
        text = orjson.dumps(value)
    except TypeError:
        return repr(value)
    return repr(value) if b"null" in text else text
