"""Checks of an accelerator pool (GPU or Neuron: the same hygiene, issue 11): consolidation that repacks
running jobs, no taint, hard-coded instance lists (with a checked fix), training pools without a window."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubectl_gpu.core.analyses.lint.facts import INSTANCE_TYPE_KEYS, PREFIX, hard_taint, requirement_values
from kubectl_gpu.core.analyses.lint.fixes import accelerator_fix_candidates, verified_fix
from kubectl_gpu.core.catalog import InstanceType
from kubectl_gpu.core.karpenter.budgets import PoolBudgets
from kubectl_gpu.core.karpenter.settings import consolidation_policy_of, is_static, never_consolidated
from kubectl_gpu.core.report import Severity

if TYPE_CHECKING:
    from kubectl_gpu.core.analyses.lint.pools import PoolLint

__all__ = ["accelerator_checks", "pool_word"]


def pool_word(types: list[InstanceType]) -> str:
    """ "GPU" for a pool that admits GPU types, "Neuron" for one that admits only Neuron types."""
    return "GPU" if any(it.is_gpu for it in types) else "Neuron"


def accelerator_checks(lint: PoolLint, types: list[InstanceType], training: tuple[str, ...]) -> None:
    _consolidation(lint, types)
    _taint(lint, types)
    _hardcoded(lint, types)
    if training:
        _training_window(lint, training)


def _consolidation(lint: PoolLint, types: list[InstanceType]) -> None:
    pool = lint.pool
    policy = consolidation_policy_of(pool).value
    # A static pool (spec.replicas) is never consolidated: its consolidationPolicy is ignored.
    if never_consolidated(pool) or PoolBudgets(pool.budgets).blocked_always("Underutilized"):
        return
    if policy not in ("WhenEmptyOrUnderutilized", "Balanced"):
        return
    default = "" if pool.consolidation_policy else " (the default when consolidationPolicy is unset)"
    severity = Severity.INFO if policy == "Balanced" else None
    word = pool_word(types)
    lint.add(
        "LINT_GPU_POOL_CONSOLIDATES_UNDERUTILIZED",
        f"{word} NodePool {pool.name} uses consolidationPolicy {policy}{default}: Karpenter evicts running "
        f"{word} pods to repack them onto fewer or cheaper nodes, restarting jobs and reloading models",
        "disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 10m}  # or a budget "
        '{nodes: "0", reasons: [Underutilized]}',
        severity,
    )


def _taint(lint: PoolLint, types: list[InstanceType]) -> None:
    pool = lint.pool
    if hard_taint(pool):
        return
    gpus = [it for it in types if it.is_gpu]
    if not gpus:
        key = "aws.amazon.com/neuron"
    elif all(it.accelerator_manufacturer == "amd" for it in gpus):
        key = "amd.com/gpu"
    else:
        key = "nvidia.com/gpu"
    word = pool_word(types)
    # A static pool keeps its nodes whatever runs on them: ordinary pods take room, they block nothing.
    harm = (
        f" and take the room its {word} pods need"
        if is_static(pool)
        else ", keep them alive and block consolidation of expensive capacity"
    )
    lint.add(
        "LINT_GPU_POOL_NO_TAINT",
        f"{word} NodePool {pool.name} has no NoSchedule taint: ordinary pods can land on its {word} nodes{harm}",
        f"taints: [{{key: {key}, effect: NoSchedule}}]  # and tolerate it in {word} pods",
    )


def _hardcoded(lint: PoolLint, types: list[InstanceType]) -> None:
    pool = lint.pool
    listed = requirement_values(pool, INSTANCE_TYPE_KEYS)
    families = requirement_values(pool, (f"{PREFIX[lint.label_provider]}/instance-family",))
    if not listed and not families:
        return
    candidates = accelerator_fix_candidates(lint.label_provider, types)
    kept, dropped = verified_fix(candidates, types, lint.admits_with, lint.overlay)
    word = pool_word(types)
    if not kept:
        return  # nothing checked to offer instead (e.g. Neuron on Auto Mode: no accelerator label documented)
    fix = "\n".join(["requirements:", *(c.text for c in kept)])
    if dropped:
        fix += "\n# " + "\n# ".join(dropped)
    # The fix was checked (`verified_fix`): it admits every type the pool admits now.
    if listed:
        needs = (
            "instance-gpu-memory, instance-gpu-count"
            if word == "GPU"
            else "instance-accelerator-name, -count"
        )
        lint.add(
            "LINT_HARDCODED_INSTANCE_TYPES",
            f"{word} NodePool {pool.name} lists instance types ({', '.join(listed[:6])}"
            f"{' ...' if len(listed) > 6 else ''}): new sizes and families never qualify and a capacity "
            "shortage in the listed ones leaves pods Pending",
            f"select by what the job needs instead ({needs}):\n" + fix,
        )
    else:
        by = "GPU memory and count" if word == "GPU" else "accelerator name and count"
        lint.add(
            "LINT_HARDCODED_INSTANCE_TYPES",
            f"{word} NodePool {pool.name} lists instance families ({', '.join(families)}): newer {word} "
            "families never qualify",
            f"consider selecting by {by}, which new families satisfy:\n" + fix,
            Severity.INFO,
        )


def _training_window(lint: PoolLint, training: tuple[str, ...]) -> None:
    pool = lint.pool
    budgets = PoolBudgets(pool.budgets)
    if budgets.has_window or budgets.errors:
        return
    policy = consolidation_policy_of(pool).value
    repacks = (
        policy != "WhenEmpty" and not never_consolidated(pool) and not budgets.blocked_always("Underutilized")
    )
    if budgets.blocked_always("Drifted") and not repacks:
        return
    what = "the default 10% budget" if budgets.defaulted else "budgets without a schedule"
    # A static pool is never consolidated; drift still replaces its nodes (Karpenter's StaticDrift).
    by, reasons = (
        ("drift (e.g. a new AMI)", "[Drifted]")
        if is_static(pool)
        else (
            "drift (e.g. a new AMI) and consolidation",
            "[Drifted, Underutilized]",
        )
    )
    lint.add(
        "LINT_TRAINING_POOL_NO_BUDGET_WINDOW",
        f"NodePool {pool.name} looks like a training pool ({'; '.join(training)}) but has {what}: {by} "
        "may replace its nodes at any hour, killing multi-day jobs",
        "add a blocking window, e.g. no voluntary disruption on weekdays (UTC):\n"
        f'disruption:\n  budgets:\n  - nodes: "0"\n    reasons: {reasons}\n'
        '    schedule: "0 0 * * mon-fri"\n    duration: 24h\n  - nodes: "1"',
    )
