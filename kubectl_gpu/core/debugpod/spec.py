"""The debug pod manifest: `kubectl debug --profile=sysadmin` (the host PID namespace, the node's `/` at
`/host`, privileged) less the node's network and IPC namespaces, plus GPU access and what keeps the pod
from outliving us. docs/security.md says what each privilege is for."""

from __future__ import annotations

from typing import Any

import msgspec

from kubectl_gpu.core.debugpod.kinds import Accelerator, Mode, Strategy
from kubectl_gpu.core.debugpod.leftover import CREATOR_ANNOTATION
from kubectl_gpu.core.debugpod.names import (
    CONTAINER,
    MANAGED_BY,
    MANAGED_BY_LABEL,
    MODE_LABEL,
    NODE_ANNOTATION,
    NODE_LABEL,
    STRATEGY_ANNOTATION,
    node_label_value,
    pod_name,
)

__all__ = [
    "CONTAINER",
    "HOST_ROOT",
    "SMALL_REQUESTS",
    "DebugPodSpec",
    "build_debug_pod",
    "container_env",
]

HOST_ROOT = "/host"
SMALL_REQUESTS = {"cpu": "50m", "memory": "64Mi"}


class DebugPodSpec(msgspec.Struct, frozen=True):
    """Everything that varies between debug pods."""

    node: str
    image: str
    suffix: str
    command: tuple[str, ...]
    namespace: str = "default"
    accelerator: Accelerator = Accelerator.NVIDIA
    strategy: Strategy = Strategy.PRIVILEGED_ALL
    #: The device-plugin resource the `request` strategy asks one of (nvidia.com/gpu, a MIG profile, Neuron).
    resource: str | None = None
    mode: Mode = Mode.SMI
    #: The kubelet kills the pod after this, even if we never come back to delete it.
    active_deadline_seconds: int = 300
    image_pull_policy: str = "IfNotPresent"
    #: Who creates the pod (`leftover.creator_value`): how `cleanup` tells a pod left behind from one in use.
    creator: str | None = None

    @property
    def name(self) -> str:
        return pod_name(self.node, self.suffix)


def container_env(spec: DebugPodSpec) -> list[dict[str, str]]:
    if spec.accelerator is not Accelerator.NVIDIA:
        return []
    env = [{"name": "NVIDIA_DRIVER_CAPABILITIES", "value": "utility"}]
    if spec.strategy is Strategy.PRIVILEGED_ALL:
        # With a request the device plugin sets NVIDIA_VISIBLE_DEVICES to the GPU it allocated.
        env.insert(0, {"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"})
    return env


def _resources(spec: DebugPodSpec) -> dict[str, dict[str, str]]:
    resources: dict[str, dict[str, str]] = {"requests": dict(SMALL_REQUESTS)}
    if spec.strategy is Strategy.REQUEST:
        assert spec.resource is not None
        resources["limits"] = {spec.resource: "1"}  # extended resources: limit, request defaults to it
    return resources


def build_debug_pod(spec: DebugPodSpec) -> dict[str, Any]:
    """The Pod manifest (a plain dict, as `kubectl get -o json` shows it)."""
    if spec.strategy is Strategy.AUTO:
        raise ValueError("build_debug_pod needs a concrete strategy; resolve auto with attempts()")
    if spec.strategy is Strategy.REQUEST and not spec.resource:
        raise ValueError("the request strategy needs the device-plugin resource to request")
    if not spec.command:
        raise ValueError("the debug pod needs a command")
    if spec.active_deadline_seconds < 1:
        raise ValueError("active_deadline_seconds must be positive")
    container: dict[str, Any] = {
        "name": CONTAINER,
        "image": spec.image,
        "imagePullPolicy": spec.image_pull_policy,
        "command": list(spec.command),
        "env": container_env(spec),
        "resources": _resources(spec),
        "securityContext": {"privileged": True},
        "volumeMounts": [
            {"name": "host-root", "mountPath": HOST_ROOT, "readOnly": spec.mode is Mode.SMI},
        ],
        "terminationMessagePolicy": "FallbackToLogsOnError",
    }
    if not container["env"]:
        del container["env"]
    annotations = {NODE_ANNOTATION: spec.node, STRATEGY_ANNOTATION: spec.strategy.value}
    if spec.creator:
        annotations[CREATOR_ANNOTATION] = spec.creator
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": spec.name,
            "namespace": spec.namespace,
            "labels": {
                MANAGED_BY_LABEL: MANAGED_BY,
                NODE_LABEL: node_label_value(spec.node),
                MODE_LABEL: spec.mode.value,
            },
            "annotations": annotations,
        },
        "spec": {
            "nodeName": spec.node,  # bypasses the scheduler: taints, cordons and selectors do not apply
            "restartPolicy": "Never",
            "terminationGracePeriodSeconds": 0,
            "activeDeadlineSeconds": spec.active_deadline_seconds,
            "automountServiceAccountToken": False,
            "enableServiceLinks": False,
            # The node's processes (GPU PIDs are host PIDs; nsenter -t 1), but not its network: a pod on the node's
            # network reaches the instance metadata service and the node role's credentials with one HTTP call
            # (Auto Mode's IMDS hop limit only stops pods on the pod network), and not its IPC. No mode needs them:
            # the shell can still `nsenter -t 1 -n` on purpose, being privileged with the host PID namespace.
            "hostPID": True,
            "tolerations": [{"operator": "Exists"}],  # every taint, NoExecute included
            "containers": [container],
            "volumes": [{"name": "host-root", "hostPath": {"path": "/"}}],
        },
    }
