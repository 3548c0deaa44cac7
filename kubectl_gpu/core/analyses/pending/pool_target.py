"""A NodePool as a target: could the provisioner launch a node for the pod shape, and if not, why."""

from __future__ import annotations

from datetime import datetime

from kubectl_gpu.core.analyses.pending.evaluation import (
    CAPACITY,
    SPEC,
    ZERO,
    Check,
    TargetEvaluation,
    resources_text,
    selected_value,
    short_quantity,
    taint_list,
    type_names,
)
from kubectl_gpu.core.analyses.pending.fixes import selector_fix, toleration_fix
from kubectl_gpu.core.analyses.pending.pool_capacity import capacity_event
from kubectl_gpu.core.analyses.pending.pool_checks import make_fit, pool_checks
from kubectl_gpu.core.analyses.pending.pool_groups import (
    Fitting,
    PoolMemo,
    fit_signature,
    fitting_types,
    limit_problem,
    names_pools,
    requirement_signature,
)
from kubectl_gpu.core.analyses.pending.shape import PodShape
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, TargetRef, Verdict
from kubectl_gpu.core.catalog import Catalog, Provider
from kubectl_gpu.core.k8s.models import NodePool, Resources
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.scheduling.instances import IndexedType, InstanceIndex, raw_capacity_of
from kubectl_gpu.core.scheduling.provisionable import restricted_label
from kubectl_gpu.core.scheduling.requirements import (
    Conflict,
    Incompatibility,
    RequirementError,
    Requirements,
    UnknownLabel,
    nodepool_requirements,
)
from kubectl_gpu.core.scheduling.taints import pretty, untolerated

# GPU feature discovery labels and the instance label that says the same thing up front.
_GFD_EQUIVALENT = {
    "nvidia.com/gpu.product": "instance-gpu-name",
    "nvidia.com/gpu.present": "instance-gpu-manufacturer",
    "nvidia.com/gpu.count": "instance-gpu-count",
    "nvidia.com/gpu.memory": "instance-gpu-memory",
    "nvidia.com/gpu.family": "instance-gpu-name",
}


class PoolTarget:
    """A NodePool, with what does not depend on the pod computed once."""

    def __init__(
        self,
        pool: NodePool,
        state: ClusterState,
        catalog: Catalog,
        index: InstanceIndex,
        now: datetime,
        memo: PoolMemo | None = None,
    ) -> None:
        self.pool = pool
        self.memo = memo if memo is not None else PoolMemo()  # shared with pools that fit alike
        self.state = state
        self.catalog = catalog
        self.index = index
        self.provider: Provider = index.provider
        self.ref = TargetRef("NodePool", pool.name)
        self.prefix = "eks.amazonaws.com" if self.provider == "auto" else "karpenter.k8s.aws"
        self.requirement_error: str | None = None
        try:
            node_class_label = None
            if pool.node_class_ref is not None:
                ref = pool.node_class_ref
                node_class_label = (f"{ref.group}/{ref.kind.lower()}", ref.name)
            self.requirements = nodepool_requirements(
                pool.name, pool.requirements, pool.template_labels, node_class_label=node_class_label
            )
        except RequirementError as exc:
            self.requirements = Requirements()
            self.requirement_error = str(exc)
        self.types = index.admitted(self.requirements)
        self.well_known = catalog.well_known_labels(self.provider)
        self.fit = make_fit(self)  # daemonset overhead, NodeOverlays, ephemeral storage (fit.py)
        self.remaining = self._remaining_limits()
        self.unreadable = frozenset(n.kind for n in state.notes if n.code == "FORBIDDEN" and n.kind)
        self.node_class_blocker = self._node_class_blocker()
        self.ready_blocker = self._ready_blocker()
        self.capacity_event = capacity_event(self, now)
        self.requirement_group = self.memo.group(requirement_signature(self))
        self._group: int | None = None
        self._last_term: tuple[PodShape | None, tuple[Requirements, list[Incompatibility]]] = (
            None,
            (Requirements(), []),
        )
        self._taints_detail = f"tolerated: {taint_list(pool.taints)}" if pool.taints else "no taints"
        self._remaining_text = ", ".join(
            f"{k}={short_quantity(v, k)}" for k, v in sorted(self.remaining.items())
        )

    @property
    def group(self) -> int:
        """This pool's fit group in `memo` (pool_groups.py), made on first use."""
        if self._group is None:
            self._group = self.memo.group(fit_signature(self))
        return self._group

    # --- pod-independent facts ---------------------------------------------------------------

    def _claims_usage(self) -> Resources:
        used: Resources = {}
        for claim in self.state.nodeclaims_by_pool.get(self.pool.name, ()):
            capacity = dict(claim.capacity)
            if not capacity:
                itype = claim.meta.labels.get("node.kubernetes.io/instance-type")
                it = self.catalog.by_name(itype) if itype else None
                if it is not None:
                    capacity = {r: raw_capacity_of(it, r) for r in self.pool.limits}
            for name, value in capacity.items():
                used[name] = used.get(name, ZERO) + value
            used["nodes"] = used.get("nodes", ZERO) + 1
        return used

    def _remaining_limits(self) -> Resources:
        if not self.pool.limits:
            return {}
        claims = self._claims_usage()
        status = self.pool.status_resources
        return {
            name: limit - max(claims.get(name, ZERO), status.get(name, ZERO))
            for name, limit in self.pool.limits.items()
        }

    def _node_class_blocker(self) -> Blocker | Check:
        ref = self.pool.node_class_ref
        if ref is None:
            return Blocker(
                Verdict.NODECLASS_NOT_READY,
                CAPACITY,
                self.ref,
                f"NodePool {self.pool.name} has no nodeClassRef",
                "set spec.template.spec.nodeClassRef to an existing NodeClass",
            )
        label = f"{ref.kind} {ref.name}"
        pool_cond = next((c for c in self.pool.conditions if c.type == "NodeClassReady"), None)
        node_class = self.state.nodeclass_by_ref.get((ref.kind, ref.name))
        listed = any(c.kind == ref.kind for c in self.state.nodeclasses)
        if node_class is None and listed:
            return Blocker(
                Verdict.NODECLASS_NOT_READY,
                CAPACITY,
                self.ref,
                f"NodePool {self.pool.name} references {label}, which does not exist",
                f"create {label} or point nodeClassRef at an existing one (kubectl get {ref.kind.lower()}es)",
            )
        if node_class is not None and node_class.ready is False:
            cond = next(c for c in node_class.conditions if c.type == "Ready")
            why = cond.message or cond.reason or "Ready=False"
            return Blocker(
                Verdict.NODECLASS_NOT_READY,
                CAPACITY,
                self.ref,
                f"{label} is not Ready: {why}",
                f"kubectl describe {ref.kind.lower()} {ref.name}  # fix what its conditions report",
            )
        if pool_cond is not None and pool_cond.status == "False":
            why = pool_cond.message or pool_cond.reason or "NodeClassReady=False"
            return Blocker(
                Verdict.NODECLASS_NOT_READY,
                CAPACITY,
                self.ref,
                f"NodePool {self.pool.name} reports NodeClassReady=False: {why}",
                f"kubectl describe {ref.kind.lower()} {ref.name}",
            )
        if node_class is None:
            return Check("nodeclass", None, f"{label}: not in the data (not listed or no permission)")
        state = "Ready" if node_class.ready else "no Ready condition reported"
        return Check("nodeclass", True, f"{label}: {state}")

    def _ready_blocker(self) -> Blocker | None:
        """Karpenter's `Provisioner.NewScheduler` skips a NodePool unless its Ready condition is True
        ("ignoring nodepool, not ready"); a NodeClass problem is reported as NODECLASS_NOT_READY instead."""
        if isinstance(self.node_class_blocker, Blocker):
            return None
        cond = next((c for c in self.pool.conditions if c.type == "Ready"), None)
        if cond is None or cond.status != "False":
            return None
        why = cond.message or cond.reason or "Ready=False"
        return Blocker(
            Verdict.NODEPOOL_NOT_READY,
            CAPACITY,
            self.ref,
            f"NodePool {self.pool.name} is not Ready ({why}): Karpenter launches nothing from it",
            f"kubectl describe nodepool {self.pool.name}  # fix what its conditions report",
        )

    # --- per shape ----------------------------------------------------------------------------

    def offers(self, shape: PodShape) -> bool:
        if not shape.wants_accelerator:
            return True
        return self.memo.get(shape, (self.group, "offers"), lambda: self._offers(shape))

    def _offers(self, shape: PodShape) -> bool:
        return any(all(self.fit.capacity(e, r) > 0 for r in shape.accelerators) for e in self.types)

    def fitting(self, shape: PodShape, pod_reqs: Requirements) -> Fitting:
        """`fitting_types`, once per fit group and shape."""
        # Keyed by identity: the memo keeps pod_reqs alive, so its id is not reused while the entry lives.
        key = (self.group, "fit", id(pod_reqs))
        kept, found = self.memo.get(shape, key, lambda: (pod_reqs, fitting_types(self, shape, pod_reqs)))
        return found if kept is pod_reqs else fitting_types(self, shape, pod_reqs)

    def evaluate(self, shape: PodShape) -> TargetEvaluation:
        blockers: list[Blocker] = []
        checks: list[Check] = []
        pool = self.pool

        missing = untolerated(shape.tolerations, pool.taints)
        if missing:
            blockers.append(
                Blocker(
                    Verdict.MISSING_TOLERATION,
                    SPEC,
                    self.ref,
                    f"pod does not tolerate {taint_list(missing)} of NodePool {pool.name}",
                    toleration_fix(missing),
                    {"taints": [pretty(t) for t in missing]},
                )
            )
            checks.append(Check("taints", False, f"untolerated: {taint_list(missing)}"))
        else:
            checks.append(Check("taints", True, self._taints_detail))

        blockers += self._requirement_blockers(shape, checks)
        fitting = self._instance_blockers(shape, blockers, checks)
        node_reqs = self.requirements
        if shape.requirements is not None:
            node_reqs = node_reqs.intersection(self._term_requirements(shape))
        fitting, more, more_checks = pool_checks(self, shape, fitting, node_reqs)
        blockers += more
        checks += more_checks
        self._limit_blockers(shape, fitting, blockers, checks)

        if isinstance(self.node_class_blocker, Blocker):
            blockers.append(self.node_class_blocker)
            checks.append(Check("nodeclass", False, self.node_class_blocker.message))
        else:
            checks.append(self.node_class_blocker)
        if self.ready_blocker is not None:
            blockers.append(self.ready_blocker)
            checks.append(Check("ready", False, self.ready_blocker.message))
        if self.capacity_event is not None:
            blockers.append(self.capacity_event)
            checks.append(Check("capacity", False, self.capacity_event.message))
        elif "events" in self.unreadable:
            checks.append(Check("capacity", None, "events could not be read (forbidden)"))
        else:
            checks.append(Check("capacity", True, "no recent InsufficientCapacityError"))

        blockers.sort(key=lambda b: b.rank)
        return TargetEvaluation(
            self.ref,
            self.offers(shape),
            tuple(blockers),
            tuple(checks),
            weight=pool.weight or 0,
            fitting_types=tuple(e.it.name for e in fitting),
        )

    def _requirement_blockers(self, shape: PodShape, checks: list[Check]) -> list[Blocker]:
        if self.requirement_error:
            checks.append(
                Check("requirements", None, f"NodePool requirements unreadable: {self.requirement_error}")
            )
            return []
        if shape.requirements is None:
            checks.append(Check("requirements", None, f"pod affinity unreadable: {shape.requirement_error}"))
            return []
        out: list[Blocker] = []
        found = self._term(shape)[1]
        for problem in found:
            if isinstance(problem, UnknownLabel):
                out.append(self._unknown_label(shape, problem))
            elif isinstance(problem, Conflict):
                allowed = problem.pool_requirement.render(with_key=False)
                out.append(
                    Blocker(
                        Verdict.REQUIREMENT_CONFLICT,
                        SPEC,
                        self.ref,
                        f"{problem.summary} (pod vs NodePool {self.pool.name})",
                        f"make the pod's {problem.key} match what NodePool {self.pool.name} allows "
                        f"({allowed}), or allow the pod's value in the NodePool's requirements",
                        {"key": problem.key},
                    )
                )
        if out:
            checks.append(Check("requirements", False, "; ".join(b.message for b in out)))
        else:
            checks.append(Check("requirements", True, "pod selectors and affinity are compatible"))
        return out

    def _term(self, shape: PodShape) -> tuple[Requirements, list[Incompatibility]]:
        """The pod's requirements for this pool and their incompatibilities with it: once per requirement
        group and shape (pool_groups.py), per pool when the pod selects NodePools by name."""
        if self._last_term[0] is shape:  # an evaluation asks three times
            return self._last_term[1]
        if self.memo.get(shape, "names pools", lambda: names_pools(shape)):
            key: tuple[object, ...] = (id(self), "term")
        else:
            key = (self.requirement_group, "term")
        found = self.memo.get(shape, key, lambda: self._first_compatible_term(shape))
        self._last_term = (shape, found)
        return found

    def _term_requirements(self, shape: PodShape) -> Requirements:
        return self._term(shape)[0]

    def _first_compatible_term(self, shape: PodShape) -> tuple[Requirements, list[Incompatibility]]:
        """Karpenter's `Preferences.Relax` drops required OR-terms one at a time, so the first term compatible
        with the pool is the one it provisions for; when none is, term 0 (what it tries first) is reported."""
        assert shape.requirements is not None
        alternatives = shape.requirements.alternatives()
        first: tuple[Requirements, list[Incompatibility]] | None = None
        for reqs in alternatives:
            found = list(self.requirements.compatible(reqs, allow_undefined=self.well_known))
            if not found:
                return reqs, found
            first = first or (reqs, found)
        assert first is not None
        return first

    def _unknown_label(self, shape: PodShape, problem: UnknownLabel) -> Blocker:
        key = problem.key
        value = selected_value(shape, key)
        other = self.catalog.other_provider_key(key)
        owner = self.catalog.label_table.provider_of(key)
        if other is not None and owner is not None and owner != self.provider:
            where = "EKS Auto Mode" if self.provider == "auto" else "self-managed Karpenter"
            return Blocker(
                Verdict.LABEL_NAMESPACE_MISMATCH,
                SPEC,
                self.ref,
                f"pod selects {key}, a label {where} nodes never carry; the same label is {other} here",
                selector_fix(key, other, value),
                {"key": key, "replacement": other},
            )
        gfd = _GFD_EQUIVALENT.get(key)
        if gfd is not None:
            fix = (
                f"{key} is set by GPU feature discovery after a node starts, so no provisioner can launch a "
                f"node for it: select {self.prefix}/{gfd} instead (or just request nvidia.com/gpu), or add "
                f"{key} to NodePool {self.pool.name} spec.template.metadata.labels"
            )
        elif restricted_label(key):
            # Karpenter rejects a NodePool that sets a restricted label (labels.go IsRestrictedLabel).
            fix = f"remove {key} from the pod's nodeSelector/affinity: no NodePool may set it"
        else:
            fix = (
                f"remove {key} from the pod's nodeSelector/affinity, or add it to NodePool "
                f"{self.pool.name} spec.template.metadata.labels"
            )
        hint = f" (typo of {problem.hint}?)" if problem.hint else ""
        return Blocker(
            Verdict.UNKNOWN_LABEL,
            SPEC,
            self.ref,
            f"pod selects label {key}{hint}, which NodePool {self.pool.name} neither sets nor knows",
            fix,
            {"key": key},
        )

    def _instance_blockers(
        self, shape: PodShape, blockers: list[Blocker], checks: list[Check]
    ) -> tuple[IndexedType, ...]:
        if not shape.wants_accelerator:
            checks.append(
                Check("instance types", None, "not evaluated: the catalog lists accelerated types only")
            )
            return ()
        pool_types = self.types
        pod_reqs = self._term_requirements(shape) if shape.requirements is not None else Requirements()
        with_pod, fitting, known, found = self.fitting(shape, pod_reqs)
        if found is not None:
            checks.append(found)
            return known or fitting
        wanted = resources_text(shape.requests)
        detail: dict[str, object] = {}
        if not pool_types or not self.offers(shape):
            kinds = ", ".join(sorted(shape.accelerators))
            message = f"NodePool {self.pool.name} launches no instance type with {kinds}"
            if pool_types:
                message += f" (it admits {type_names(pool_types)})"
            fix = (
                f"use a NodePool whose requirements admit instance types with {kinds}, or create one "
                f"(see NO_ACCELERATOR_NODEPOOL in the README)"
            )
        elif not with_pod:
            message = (
                f"no instance type satisfies both NodePool {self.pool.name} (admits {type_names(pool_types)}) "
                f"and the pod's selectors"
            )
            fix = f"relax the pod's instance selectors or add matching families to NodePool {self.pool.name}"
            detail = {"podSelector": True}  # the pod's own selectors exclude this pool (targets.nearness)
        else:
            largest = max(with_pod, key=lambda e: tuple(self.fit.capacity(e, r) for r in shape.accelerators))
            why = self.fit.failure(largest, shape)
            message = (
                f"no instance type in NodePool {self.pool.name} has room for {wanted}: the largest, "
                f"{largest.it.name}, offers less ({why})"
            )
            fix = "request fewer accelerators per pod (shard the workload) or admit larger instance types"
        blockers.append(Blocker(Verdict.NO_INSTANCE_TYPE_FITS, SPEC, self.ref, message, fix, detail))
        checks.append(Check("instance types", False, message))
        return ()

    def unverified(self, entry: IndexedType, pod_reqs: Requirements) -> tuple[str, ...]:
        return self.index.unverified_keys(self.requirements, entry) + self.index.unverified_keys(
            pod_reqs, entry
        )

    def _limit_blockers(
        self, shape: PodShape, fitting: tuple[IndexedType, ...], blockers: list[Blocker], checks: list[Check]
    ) -> None:
        if not self.pool.limits:
            checks.append(Check("limits", True, "no limits"))
            return
        if "nodeclaims" in self.unreadable:
            checks.append(Check("limits", None, "NodeClaims could not be read (forbidden): usage unknown"))
            return
        remaining = self._remaining_text
        if not fitting:
            checks.append(Check("limits", None, f"remaining {remaining}"))
            return
        # Pools with as much left share the answer (identity key: the entry keeps `fitting` alive).
        key = ("limits", id(fitting), tuple(self.remaining.items()))
        kept, problem = self.memo.get(shape, key, lambda: (fitting, limit_problem(self.remaining, fitting)))
        if kept is not fitting:
            problem = limit_problem(self.remaining, fitting)
        if problem is None:
            checks.append(Check("limits", True, f"remaining {remaining}"))
            return
        limits = ", ".join(f"{k}={short_quantity(v, k)}" for k, v in sorted(self.pool.limits.items()))
        message = f"NodePool {self.pool.name} limits ({limits}) are used up: {problem}"
        fix = (
            f"raise spec.limits of NodePool {self.pool.name} (kubectl edit nodepool {self.pool.name}) or "
            "free capacity in it"
        )
        blockers.append(Blocker(Verdict.NODEPOOL_LIMIT_REACHED, CAPACITY, self.ref, message, fix))
        checks.append(Check("limits", False, message))
