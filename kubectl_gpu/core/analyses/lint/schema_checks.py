"""What a NodePool manifest says that Karpenter does not accept: a removed API version, fields the
karpenter.sh/v1 CRD schema does not have (or has elsewhere), instance names that do not exist."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubectl_gpu.core.analyses.lint.facts import REMOVED_API_VERSIONS
from kubectl_gpu.core.analyses.lint.names import unknown_names
from kubectl_gpu.core.catalog.schema import load_nodepool_schema

if TYPE_CHECKING:
    from kubectl_gpu.core.analyses.lint.pools import PoolLint

__all__ = ["removed_api_message", "schema_checks", "unknown_name_checks"]

V1 = "karpenter.sh/v1"


def removed_api_message(kind: str, name: str, api_version: str, *, checked: bool = True) -> str:
    why = REMOVED_API_VERSIONS.get(api_version, "not served by Karpenter v1")
    then = "the other checks read it as if it were v1" if checked else "it is not checked further"
    return (
        f"{kind} {name} is {api_version}: {why}; a Karpenter v1.1+ or EKS Auto Mode API server refuses it "
        f"(no matches for kind); {then}"
    )


def schema_checks(lint: PoolLint) -> None:
    pool = lint.pool
    version = pool.api_version
    if version is not None and version in REMOVED_API_VERSIONS:
        lint.add(
            "LINT_REMOVED_API_VERSION",
            removed_api_message("NodePool", pool.name, version),
            "migrate it to karpenter.sh/v1 (https://karpenter.sh/docs/upgrading/v1-migration/): nodeClassRef "
            "gets group and kind, expireAfter moves to spec.template.spec, consolidationPolicy WhenUnderutilized "
            "becomes WhenEmptyOrUnderutilized",
        )
        return  # the v1 schema does not apply to it
    if version != V1:
        return  # no apiVersion (a fragment) or one we do not know: nothing to check the fields against
    schema = load_nodepool_schema()
    for problem in schema.problems(pool.field_paths):
        field = problem.path.lstrip(".")
        if problem.belongs_at:
            where = " or ".join(p.lstrip(".") for p in problem.belongs_at)
            message = f"NodePool {pool.name} sets {field}, which the karpenter.sh/v1 NodePool has at {where}"
            fix = f"move it to {where}"
        else:
            message = (
                f"NodePool {pool.name} sets {field}, which the karpenter.sh/v1 NodePool schema does not have"
            )
            fix = f"remove {field}"
        lint.add(
            "LINT_UNKNOWN_FIELD",
            message + ": kubectl apply refuses it (strict field validation), and with --validate=false "
            "the API server drops it, so the setting never takes effect",
            fix,
        )


def unknown_name_checks(lint: PoolLint) -> None:
    for name in unknown_names(lint.pool, lint.catalog):
        close = f"; the closest real ones: {', '.join(name.closest)}" if name.closest else ""
        lint.add(
            "LINT_UNKNOWN_INSTANCE_NAME",
            f"NodePool {lint.pool.name} asks for {name.what} {name.value} ({name.key} In), which does not exist "
            f"among the accelerated EC2 types this tool knows{close}: it matches no instance, so it adds nothing "
            "(and alone, the pool launches nothing)",
            f"use {' or '.join(name.closest)}" if name.closest else f"remove {name.value}",
        )
