"""The usage report's findings, each with its fix (codes: `report.FINDING_CODES`). Pure."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from decimal import Decimal

from kubectl_gpu.core.analyses.usage.fixes import idle_fix
from kubectl_gpu.core.analyses.usage.report import NodeUsage, PodUsage, TokenCost, count
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.report import Finding, ObjectRef, Severity
from kubectl_gpu.core.usage.inference import SERVER_NAMES
from kubectl_gpu.core.usage.window import FailedRead

__all__ = ["findings_of"]

_SOURCE = "usage"


def _per_hour(value: Decimal | None) -> str:
    return "price unknown" if value is None else f"${value:.2f}/h"


def _idle(pod: PodUsage, node: NodeUsage | None, catalog: Catalog, idle_below: float) -> Finding:
    model = node.model if node else None
    bound = " at most" if pod.attribution == "node-max" else ""
    return Finding(
        code="USAGE_IDLE_GPUS",
        severity=Severity.WARNING,
        object=ObjectRef("Pod", pod.name, pod.namespace),
        message=(
            f"holds {count(pod.held)} x {model or 'GPU'} on {pod.node} at{bound} {pod.util_percent:.1f}% "
            f"utilisation over the window (below {idle_below:g}%, {pod.source}): "
            f"{_per_hour(pod.held_cost_per_hour)} idle"
        ),
        fix=idle_fix(pod, model, node.instance_type if node else None, catalog),
        source=_SOURCE,
    )


def _empty(node: NodeUsage, static_pools: Collection[str]) -> Finding:
    what = f"{count(node.gpus)} x {node.model or 'GPU'}"
    if node.util_percent is not None and node.util_percent > 0:
        # Measured busy: something the pods do not show uses the GPUs; never call them idle.
        message = (
            f"{node.instance_type or 'node'} ({what}) runs no GPU pod, yet its GPUs were measured at "
            f"{node.util_percent:.1f}% utilisation ({node.source}): something outside the GPU pods uses them "
            f"(a pod without a GPU request, a process on the host), {_per_hour(node.price_per_hour)}"
        )
        fix = f"find what runs there before removing the node: kubectl gpu smi {node.name}"
    else:
        message = (
            f"{node.instance_type or 'node'} ({what}) runs no GPU pod: every GPU is paid for and idle, "
            f"{_per_hour(node.price_per_hour)}"
        )
        fix = "let Karpenter consolidate it (kubectl gpu cost says what keeps it), or delete the node"
    if node.node_pool in static_pools:  # a static pool is never consolidated: only fewer replicas help
        fix = f"lower spec.replicas on NodePool {node.node_pool} (a static pool keeps its nodes)"
    return Finding(
        code="USAGE_EMPTY_GPU_NODE",
        severity=Severity.WARNING,
        object=ObjectRef("Node", node.name),
        message=message,
        fix=fix,
        source=_SOURCE,
    )


def _failed(read: FailedRead) -> Finding:
    what = "DCGM exporter" if read.source == "dcgm" else "inference server"
    fix = (
        "grant get on pods/proxy (deploy/rbac/, docs/rbac.md)"
        if read.forbidden
        else "check the pod answers on its metrics port (kubectl get --raw "
        f"/api/v1/namespaces/{read.namespace}/pods/{read.pod}:PORT/proxy/metrics)"
    )
    return Finding(
        code="USAGE_READ_FAILED",
        severity=Severity.WARNING if read.forbidden else Severity.INFO,
        object=ObjectRef("Pod", read.pod, read.namespace),
        message=f"{what} could not be read ({read.reads} read(s)): {read.error}",
        fix=fix,
        source=_SOURCE,
    )


def _unrecognised(row: TokenCost) -> Finding | None:
    messages = {
        "not-recognised": "its /metrics matches no inference server this tool knows (vLLM, SGLang, TGI, "
        "TensorRT-LLM, Triton, NIM): no token rate",
        "no-token-counter": f"{SERVER_NAMES.get(row.server or '', row.server)} exports no token counter: "
        "no $ per 1M tokens",
    }
    message = messages.get(row.status)
    if message is None:
        return None
    w = row.workload
    fix = "expose vLLM-style token counters (e.g. vllm:generation_tokens_total) on its /metrics"
    if row.unread:  # it counts tokens already: telling it to expose them cannot help
        message += f"; it does export {row.unread}, a token counter under a name this tool does not read"
        fix = (
            "nothing to change on the server; kubectl-gpu reads the counters of vLLM, SGLang, TGI, "
            "TensorRT-LLM and NIM, also behind a gateway prefix (ray_vllm:generation_tokens_total)"
        )
    return Finding(
        code="USAGE_SERVER_UNRECOGNISED",
        severity=Severity.INFO,
        object=ObjectRef(w.kind, w.name, w.namespace),
        message=message,
        fix=fix,
        source=_SOURCE,
    )


def findings_of(
    nodes: Sequence[NodeUsage],
    pods: Sequence[PodUsage],
    inference: Sequence[TokenCost],
    failed: Sequence[FailedRead],
    catalog: Catalog,
    idle_below: float,
    static_pools: Collection[str] = (),
) -> tuple[Finding, ...]:
    by_name = {n.name: n for n in nodes}
    found = [_idle(p, by_name.get(p.node), catalog, idle_below) for p in pods if p.idle]
    found += [_empty(n, static_pools) for n in nodes if n.state == "empty" and n.gpus > 0]
    found += [_failed(f) for f in failed]
    found += [f for row in inference if (f := _unrecognised(row)) is not None]
    return tuple(sorted(found, key=Finding.sort_key))
