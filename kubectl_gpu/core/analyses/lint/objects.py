"""Findings about the objects of the input as a whole: one defined twice, a node class or a pre-v1 Karpenter
object in an API version Karpenter v1 no longer serves."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from kubectl_gpu.core.analyses.lint.facts import REMOVED_API_VERSIONS
from kubectl_gpu.core.analyses.lint.report import lint_finding
from kubectl_gpu.core.analyses.lint.schema_checks import removed_api_message
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import Finding, ObjectRef

__all__ = ["LINTED_KINDS", "object_findings"]

LINTED_KINDS = frozenset({"NodePool", "NodeClass", "EC2NodeClass", "Provisioner", "AWSNodeTemplate"})
_SUCCESSOR = {
    "Provisioner": "a karpenter.sh/v1 NodePool",
    "AWSNodeTemplate": "a karpenter.k8s.aws/v1 EC2NodeClass",
}


def object_findings(state: ClusterState) -> Iterator[Finding]:
    yield from _duplicates(state)
    for node_class in state.nodeclasses:
        version = node_class.api_version
        if version in REMOVED_API_VERSIONS:
            yield lint_finding(
                "LINT_REMOVED_API_VERSION",
                ObjectRef(node_class.kind, node_class.name),
                removed_api_message(node_class.kind, node_class.name, str(version)),
                "migrate it to karpenter.k8s.aws/v1 (https://karpenter.sh/docs/upgrading/v1-migration/)",
            )
    for obj in state.legacy_karpenter:
        if obj.kind not in _SUCCESSOR:
            continue  # a Machine is state, not configuration: `pending` names it
        yield lint_finding(
            "LINT_REMOVED_API_VERSION",
            ObjectRef(obj.kind, obj.name),
            removed_api_message(obj.kind, obj.name, obj.api_version, checked=False),
            f"rewrite it as {_SUCCESSOR[obj.kind]} (https://karpenter.sh/docs/upgrading/v1beta1-migration/, "
            "then https://karpenter.sh/docs/upgrading/v1-migration/)",
        )


def _duplicates(state: ClusterState) -> Iterator[Finding]:
    reported: set[tuple[str, str]] = set()
    for dup in state.duplicates:
        if dup.kind not in LINTED_KINDS or (dup.kind, dup.name) in reported:
            continue
        reported.add((dup.kind, dup.name))
        where = ", ".join(dup.sources)
        yield _duplicate(dup.kind, dup.name, len(dup.sources), f"in {where}", dup.sources[-1])
    # Inputs read separately (files and stdin) and merged: the same name twice in one list.
    named = [(p.meta.key, "NodePool") for p in state.nodepools]
    named += [(c.meta.key, c.kind) for c in state.nodeclasses]
    for (name, kind), count in sorted(Counter(named).items()):
        if count > 1 and (kind, name) not in reported:
            reported.add((kind, name))
            yield _duplicate(kind, name, count, "in the input (files and stdin)", None)


def _duplicate(kind: str, name: str, count: int, where: str, last: str | None) -> Finding:
    checked = f"; the checks below are of the last one ({last})" if last else ""
    return lint_finding(
        "LINT_DUPLICATE_OBJECT",
        ObjectRef(kind, name),
        f"{kind} {name} is defined {count} times {where}: the cluster keeps whichever is applied last, so "
        f"the others never take effect{checked}",
        f"keep one {kind} {name} (or rename the others)",
    )
