"""Builders shared by the issue 11 round-two tests (resources, minValues, topology, volumes, NodeOverlay)."""

from __future__ import annotations

from typing import Any

from tests.core.analyses.pending._scenarios import Obj, analyse, diagnosis, find

TOLERATE_ALL = [{"operator": "Exists"}]


def gpu_pod(
    name: str = "p",
    *,
    requests: dict[str, str] | None = None,
    labels: dict[str, str] | None = None,
    ports: list[dict[str, Any]] | None = None,
    namespace: str = "t",
    node: str | None = None,
    phase: str = "Pending",
    **spec: Any,
) -> Obj:
    container: dict[str, Any] = {
        "name": "m",
        "image": "x",
        "resources": {"requests": requests if requests is not None else {"nvidia.com/gpu": "1"}},
    }
    if ports:
        container["ports"] = ports
    body: dict[str, Any] = {"tolerations": TOLERATE_ALL, "containers": [container], **spec}
    if node:
        body["nodeName"] = node
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}", "labels": labels or {}},
        "spec": body,
        "status": {"phase": phase},
    }


def daemonset(
    name: str,
    *,
    requests: dict[str, str] | None = None,
    ports: list[dict[str, Any]] | None = None,
    tolerations: list[dict[str, Any]] | None = None,
    **spec: Any,
) -> Obj:
    container: dict[str, Any] = {"name": "d", "image": "x", "resources": {"requests": requests or {}}}
    if ports:
        container["ports"] = ports
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": name, "namespace": "kube-system"},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "tolerations": TOLERATE_ALL if tolerations is None else tolerations,
                    "containers": [container],
                    **spec,
                },
            },
        },
    }


def add_requirement(objects: list[Obj], pool: str, requirement: dict[str, Any]) -> list[Obj]:
    reqs = find(objects, "NodePool", pool)["spec"]["template"]["spec"]["requirements"]
    reqs[:] = [r for r in reqs if r["key"] != requirement["key"]] + [requirement]
    return objects


def verdict(objects: list[Obj], name: str = "p", namespace: str = "t") -> Any:
    key = f"{namespace}/{name}"
    return diagnosis(analyse(objects, only=[key]), key)


def check(diag: Any, target: str, name: str) -> Any:
    evaluation = next(e for e in diag.evaluations if e.target.name == target)
    return next(c for c in evaluation.checks if c.name == name)
