"""Small builders for test objects, shaped exactly like `kubectl get -o json` output."""

from __future__ import annotations

import importlib.util
import json
import signal
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
SCENARIOS = REPO / "tests" / "scenarios"
REFERENCE = FIXTURES / "reference"  # shared/reference, vendored (see its NOTICE and PROVENANCE.jsonl)


def load_yaml_docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def node(
    name: str,
    *,
    labels: dict[str, str] | None = None,
    capacity: dict[str, str] | None = None,
    allocatable: dict[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
    conditions: list[dict[str, str]] | None = None,
    created: str = "2026-11-20T00:00:00Z",
    os_image: str = "Bottlerocket (EKS Auto, Nvidia) 2026.11.6 (aws-k8s-1.34-nvidia)",
    provider_id: str | None = None,
    unschedulable: bool = False,
) -> dict[str, Any]:
    cap = capacity or {"cpu": "4", "memory": "16Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": f"uid-{name}",
            "labels": labels or {},
            "creationTimestamp": created,
        },
        "spec": {
            "providerID": provider_id or f"aws:///us-west-2a/{name}",
            "taints": taints or [],
            **({"unschedulable": True} if unschedulable else {}),
        },
        "status": {
            "capacity": cap,
            "allocatable": allocatable or cap,
            "conditions": conditions or [{"type": "Ready", "status": "True"}],
            "nodeInfo": {"osImage": os_image, "kernelVersion": "6.12.40", "architecture": "amd64"},
        },
    }


def pod(
    name: str,
    namespace: str = "default",
    *,
    node_name: str | None = None,
    phase: str = "Running",
    requests: dict[str, str] | None = None,
    tolerations: list[dict[str, Any]] | None = None,
    node_selector: dict[str, str] | None = None,
    affinity: dict[str, Any] | None = None,
    init_requests: list[dict[str, str]] | None = None,
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    image: str = "nvidia/cuda:12.8.0-runtime-ubuntu22.04",
    env: list[dict[str, str]] | None = None,
    conditions: list[dict[str, Any]] | None = None,
    container_statuses: list[dict[str, Any]] | None = None,
    created: str = "2026-11-28T08:00:00Z",
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [
            {"name": "main", "image": image, "resources": {"requests": requests or {}}, "env": env or []}
        ],
        "tolerations": tolerations or [],
    }
    if node_name:
        spec["nodeName"] = node_name
    if node_selector:
        spec["nodeSelector"] = node_selector
    if affinity:
        spec["affinity"] = affinity
    if init_requests:
        spec["initContainers"] = [
            {"name": f"init-{i}", "image": "busybox", "resources": {"requests": r}}
            for i, r in enumerate(init_requests)
        ]
    status: dict[str, Any] = {"phase": phase, "conditions": conditions or []}
    if container_statuses:
        status["containerStatuses"] = container_statuses
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": f"uid-{namespace}-{name}",
            "labels": labels or {},
            "annotations": annotations or {},
            "creationTimestamp": created,
        },
        "spec": spec,
        "status": status,
    }


def as_list(*items: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": list(items)}


def nodepool(
    name: str,
    *,
    requirements: list[dict[str, Any]] | None = None,
    taints: list[dict[str, str]] | None = None,
    node_class: dict[str, str] | None = None,
    disruption: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A karpenter.sh/v1 NodePool; by default an Auto Mode one (NodeClass `default`) that empties nodes
    only when they are empty, with a 10% budget and no requirement or taint."""
    template: dict[str, Any] = {
        "nodeClassRef": node_class or {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"},
        "requirements": requirements or [],
    }
    if taints:
        template["taints"] = taints
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {
            "name": name,
            "uid": f"uid-nodepool-{name}",
            "creationTimestamp": "2026-11-01T00:00:00Z",
        },
        "spec": {
            "disruption": disruption
            or {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "1h", "budgets": [{"nodes": "10%"}]},
            "template": {"spec": template},
        },
    }


def write_snapshot(path: Path, *items: dict[str, Any]) -> Path:
    """`items` as a `kubectl get -o json` List in `path`, which `--snapshot` reads; returns `path`."""
    path.write_text(json.dumps(as_list(*items), indent=1))
    return path


def load_script(path: Path, name: str) -> ModuleType:
    """A script that is not a package module (bench/, examples/, scripts/), imported under `name`."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class body runs
    spec.loader.exec_module(module)
    return module


def cordon_some(bundle: Path) -> None:
    """Cordon every third accelerator node and mark every fifth NotReady, in place (ours: generated)."""
    raw = json.loads(bundle.read_text())
    gpu_nodes = [
        o
        for o in raw["objects"]
        if o["kind"] == "Node" and "nvidia.com/gpu" in o["status"].get("capacity", {})
    ]
    for index, node in enumerate(gpu_nodes):
        if index % 3 == 0:
            node["spec"]["unschedulable"] = True
        if index % 5 == 1:
            for condition in node["status"]["conditions"]:
                if condition["type"] == "Ready":
                    condition["status"] = "False"
    bundle.write_text(json.dumps(raw))


def default_hangup() -> None:
    """`preexec_fn` of a spawned kubectl-gpu: SIGHUP at its default, as a shell starts a job. The suite may
    run under `nohup` (a CI runner's), whose ignored SIGHUP every child would inherit; a test that sends
    SIGHUP would then see a process that, rightly, ignores it (tests/tui/test_terminal_loss.py tests that
    case on purpose)."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
