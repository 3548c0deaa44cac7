"""Before any debug pod exists: which nodes, what they offer, and what would fail anyway.

Predictable failures (missing RBAC, a namespace whose Pod Security level forbids privileged pods, GKE
Autopilot, a node that is gone or NotReady) become one line up front instead of a pod stuck half-way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from kubectl_gpu.core.accelerators.nodes import build_node_row
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.debugpod import Accelerator, Mode, accelerator_of, is_gke_autopilot, node_blockers
from kubectl_gpu.core.errors import ClusterError, InvalidInput
from kubectl_gpu.core.k8s.models import Node
from kubectl_gpu.core.k8s.parse import ModelError, parse_node, parse_pod
from kubectl_gpu.core.k8s.state import StateBuilder
from kubectl_gpu.kube.debug.pod_api import ApiFailure, PodApi
from kubectl_gpu.kube.debug.runner import NodeTarget

__all__ = [
    "NEEDED",
    "PSA_ENFORCE_LABEL",
    "RBAC_MANIFEST",
    "Targets",
    "check_access",
    "check_pod_security",
    "missing_rules",
    "resolve_targets",
]

PSA_ENFORCE_LABEL = "pod-security.kubernetes.io/enforce"
_NODES_RBAC = "you need RBAC 'get' and 'list' on nodes"

#: (verb, resource, subresource) each mode needs in the debug namespace.
NEEDED: dict[Mode, tuple[tuple[str, str, str], ...]] = {
    Mode.SMI: (
        ("create", "pods", ""),
        ("get", "pods", ""),
        ("delete", "pods", ""),
        ("get", "pods", "log"),
    ),
    Mode.SHELL: (
        ("create", "pods", ""),
        ("get", "pods", ""),
        ("delete", "pods", ""),
        ("get", "pods", "log"),
        ("create", "pods", "exec"),
        # kubectl exec over WebSocket (kubectl's default transport) is a GET: `get` on API servers before 1.35
        ("get", "pods", "exec"),
    ),
}
#: Where every rule of NEEDED is granted (tests/kube/test_rbac_manifests.py checks it).
RBAC_MANIFEST = "deploy/rbac/debug.yaml"


def missing_rules(missing: Sequence[tuple[str, str, str]]) -> str:
    """The RBAC rules that grant `missing` (verb, resource, subresource), as YAML flow mappings."""
    verbs: dict[str, list[str]] = {}
    for verb, resource, sub in missing:
        verbs.setdefault(f"{resource}/{sub}" if sub else resource, []).append(verb)
    return ", ".join(
        f'{{apiGroups: [""], resources: [{resource}], verbs: [{", ".join(v)}]}}'
        for resource, v in verbs.items()
    )


def check_access(api: PodApi, namespace: str, mode: Mode) -> list[str]:
    """SelfSubjectAccessReviews for what `mode` needs; raises listing every missing permission.

    Returns warnings (e.g. the review API itself is forbidden, so nothing could be checked)."""
    missing: list[tuple[str, str, str]] = []
    for verb, resource, sub in NEEDED[mode]:
        attributes = {"namespace": namespace, "verb": verb, "resource": resource}
        if sub:
            attributes["subresource"] = sub
        try:
            allowed = api.access_review(attributes)
        except ApiFailure as exc:
            if exc.status == 401:
                raise api.failure_error(exc, "checking RBAC") from None
            return [f"could not check RBAC (SelfSubjectAccessReview answered {exc.status}); carrying on"]
        if not allowed:
            missing.append((verb, resource, sub))
    if missing:
        names = ", ".join(
            f"{verb} {resource}/{sub}" if sub else f"{verb} {resource}" for verb, resource, sub in missing
        )
        raise ClusterError(
            f"missing RBAC in namespace {namespace}: {names}",
            f"a Role in {namespace} needs {missing_rules(missing)} (the Role in {RBAC_MANIFEST} has every rule; "
            "README 'Debug pods', docs/rbac.md) or pick a namespace with -n",
        )
    return []


def check_pod_security(api: PodApi, namespace: str) -> list[str]:
    """The namespace's Pod Security `enforce` level must be `privileged` (or unset) for our pod."""
    try:
        ns = api.get_namespace(namespace)
    except ApiFailure as exc:
        if exc.status == 401:
            raise api.failure_error(exc, f"reading namespace {namespace}") from None
        if exc.status == 404:
            raise InvalidInput(f"namespace {namespace} not found", "choose an existing one with -n") from None
        if exc.status == 403:
            return [
                f"could not check the Pod Security level of namespace {namespace} (forbidden to get "
                "namespaces); a baseline or restricted level would reject the debug pod"
            ]
        return [f"could not check the Pod Security level of namespace {namespace} ({exc.status})"]
    labels = (ns.get("metadata") or {}).get("labels") or {}
    if not isinstance(labels, dict) or PSA_ENFORCE_LABEL not in labels:
        return []
    level = labels[PSA_ENFORCE_LABEL]
    if level == "privileged":
        return []
    # As Pod Security admission reads the label: any value but privileged, baseline or restricted (an
    # empty one, "Privileged") is invalid, and an invalid enforce level is enforced as restricted.
    shown = (
        f"level {level!r}"
        if level in ("baseline", "restricted")
        else f"{level!r}, which is no level, so restricted"
    )
    raise ClusterError(
        f"namespace {namespace} enforces Pod Security {shown} ({PSA_ENFORCE_LABEL}); the debug pod "
        "is privileged with host namespaces and a hostPath, so admission would reject it",
        f"use -n with a namespace labelled {PSA_ENFORCE_LABEL}=privileged",
    )


def check_autopilot(nodes: Sequence[Node]) -> None:
    if any(is_gke_autopilot(n) for n in nodes):
        raise ClusterError(
            "this is a GKE Autopilot cluster: it refuses privileged pods with host namespaces and hostPath",
            "debug pods cannot run here; use GKE's own node tools",
        )


class Targets(msgspec.Struct, dict=True):
    """Nodes to run on, nodes that cannot be run on (with why), and warnings for the user."""

    ready: list[NodeTarget] = msgspec.field(default_factory=list)
    errors: list[tuple[str, str]] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)
    nodes: list[Node] = msgspec.field(default_factory=list)


def _node_models(raw: Sequence[dict[str, object]], targets: Targets) -> list[Node]:
    nodes: list[Node] = []
    for obj in raw:
        try:
            nodes.append(parse_node(obj))
        except ModelError as exc:
            targets.warnings.append(f"unreadable node skipped: {exc}")
    return nodes


def _fetch_nodes(
    api: PodApi, names: Sequence[str], selector: str | None, all_gpu: bool, targets: Targets
) -> list[Node]:
    if names:
        raw: list[dict[str, object]] = []
        for name in dict.fromkeys(names):
            try:
                raw.append(api.get_node(name))
            except ApiFailure as exc:
                if exc.status == 404 and exc.status_body:
                    targets.errors.append((name, f"node {name} not found"))
                    continue
                raise api.failure_error(exc, f"reading node {name}", forbidden_hint=_NODES_RBAC) from None
        return _node_models(raw, targets)
    if not (selector or all_gpu):
        raise InvalidInput("name the nodes, or use --all or -l SELECTOR", "e.g. kubectl gpu smi i-0abc")
    try:
        return _node_models(api.list_nodes(label=selector), targets)
    except ApiFailure as exc:
        raise api.failure_error(exc, "listing nodes", forbidden_hint=_NODES_RBAC) from None


def _fetch_pods(api: PodApi, nodes: Sequence[Node], targets: Targets) -> list[dict[str, object]]:
    """Pods bound to the nodes (for free-GPU counts); one cluster-wide list when there are many nodes."""
    try:
        if len(nodes) > 3:
            return list(api.list_pods(None))
        pods: list[dict[str, object]] = []
        for node in nodes:
            pods.extend(api.list_node_pods(node.name))
        return pods
    except ApiFailure as exc:
        targets.warnings.append(
            f"cannot list pods ({exc.status}): free GPUs unknown, so the request strategy is not available"
        )
        return []


def resolve_targets(
    api: PodApi,
    *,
    names: Sequence[str],
    selector: str | None,
    all_gpu: bool,
    catalog: Catalog,
    image_for: Callable[[Accelerator], str],
) -> Targets:
    """Read the nodes (by name, or every accelerator node matching the selector) and what they offer."""
    targets = Targets()
    nodes = _fetch_nodes(api, names, selector, all_gpu, targets)
    targets.nodes = nodes
    check_autopilot(nodes)
    builder = StateBuilder()
    builder.add(nodes)
    for obj in _fetch_pods(api, nodes, targets):
        try:
            builder.add([parse_pod(obj)])
        except ModelError:
            continue
    state = builder.build()
    for node in nodes:
        row = build_node_row(node, state, catalog)
        if row.accelerator is None:
            if names:
                targets.warnings.append(f"node {node.name} advertises no accelerator; running anyway")
            else:
                continue
        errors, warnings = node_blockers(node)
        targets.warnings.extend(warnings)
        if errors:
            targets.errors.append((node.name, "; ".join(errors)))
            continue
        accelerator = accelerator_of(node)
        acc = row.accelerator
        resource = acc.resource if acc is not None else None
        free = int(acc.unrequested) if acc is not None and acc.source == "device-plugin" else 0
        targets.ready.append(NodeTarget(node, accelerator, image_for(accelerator), resource, free))
    if not names and not targets.ready and not targets.errors:
        where = f" matching {selector!r}" if selector else ""
        raise InvalidInput(f"no accelerator nodes{where}", "list them with kubectl gpu nodes")
    return targets
