"""The GPU debug pod as data: its spec, its name, how to read its status, and what its output means.

Modelled on `kubectl debug node/NAME --profile=sysadmin` (host PID/network/IPC, the node's `/` at `/host`,
privileged) plus what a GPU needs and what keeps the pod from outliving us (grace period 0, a deadline, no
service account token, labels `cleanup` finds it by). Pure: the random name suffix, the collector script and
the image come in as arguments.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from kubectl_gpu import __version__
from kubectl_gpu.core.attribution import (
    ATTRIBUTION_NOTE,
    ProcessPod,
    attribute_processes,
    attribution_notes,
    cgroups_problem,
)
from kubectl_gpu.core.models import Node
from kubectl_gpu.core.probe import (
    ProbeResult,
    parse_nvidia_smi_list,
    parse_saved_output,
)
from kubectl_gpu.core.probe.errors import ProbeParseError
from kubectl_gpu.core.probe.models import JsonValue

__all__ = [
    "ATTRIBUTION_NOTE",
    "CONTAINER",
    "DEBUG_POD_SELECTOR",
    "DEFAULT_IMAGES",
    "HOST_ROOT",
    "IMAGE_ENV_VARS",
    "MANAGED_BY",
    "MANAGED_BY_LABEL",
    "MODE_LABEL",
    "NODE_LABEL",
    "SUFFIX_ALPHABET",
    "Accelerator",
    "DebugPodSpec",
    "Finding",
    "ImageChoice",
    "KubectlDebugCommand",
    "Mode",
    "PodProgress",
    "ShellProbe",
    "SmiResult",
    "Strategy",
    "accelerator_of",
    "attempts",
    "build_debug_pod",
    "collector_command",
    "findings",
    "is_gke_autopilot",
    "kubectl_debug_command",
    "node_blockers",
    "node_label_value",
    "parse_saved_output",
    "parse_shell_probe",
    "pod_name",
    "pod_progress",
    "resolve_image",
    "sees_accelerator",
    "shell_command",
    "unseen_reason",
]

MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
MANAGED_BY = "kubectl-gpu"
NODE_LABEL = "kubectl-gpu/node"
MODE_LABEL = "kubectl-gpu/mode"
NODE_ANNOTATION = "kubectl-gpu/node"  # the full node name; the label value may be shortened
STRATEGY_ANNOTATION = "kubectl-gpu/strategy"
DEBUG_POD_SELECTOR = f"{MANAGED_BY_LABEL}={MANAGED_BY}"
CONTAINER = "debugger"  # kubectl debug's container name, so `kubectl logs`/`exec` habits carry over
HOST_ROOT = "/host"
NAME_PREFIX = "gpu-debug-"
SUFFIX_LENGTH = 5
#: What the API server's generateName draws from (no vowels: no accidental words).
SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
NAME_MAX = 63
SMALL_REQUESTS = {"cpu": "50m", "memory": "64Mi"}


class Strategy(StrEnum):
    """How the container gets to see the node's GPUs (always reported in the output)."""

    #: privileged + NVIDIA_VISIBLE_DEVICES=all: every GPU, used or not, allocates nothing. Needs a runtime that
    #: honours the variable for privileged containers (Bottlerocket does; see README "Debug pods").
    PRIVILEGED_ALL = "privileged-all"
    #: a `nvidia.com/gpu: 1` limit: the device plugin injects one free GPU. Only when one is free.
    REQUEST = "request"
    #: privileged-all, then request when the container saw no device.
    AUTO = "auto"


class Accelerator(StrEnum):
    NVIDIA = "nvidia"
    NEURON = "neuron"


class Mode(StrEnum):
    SMI = "smi"  # run the collector, exit
    SHELL = "shell"  # stay up for `kubectl exec`


def attempts(strategy: Strategy) -> tuple[Strategy, ...]:
    """The concrete strategies to try, in order."""
    if strategy is Strategy.AUTO:
        return (Strategy.PRIVILEGED_ALL, Strategy.REQUEST)
    return (strategy,)


# --------------------------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------------------------

_LABEL_VALUE_RE = re.compile(r"^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?$")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def pod_name(node: str, suffix: str) -> str:
    """`gpu-debug-<node>-<suffix>`: an RFC 1123 label (≤ 63 chars) whatever the node is called."""
    if not re.fullmatch(r"[a-z0-9]{1,10}", suffix):
        raise ValueError(f"name suffix must be 1-10 lower-case letters or digits, got {suffix!r}")
    room = NAME_MAX - len(NAME_PREFIX) - 1 - len(suffix)
    middle = re.sub(r"[^a-z0-9-]+", "-", node.lower())[:room].strip("-") or "node"
    return f"{NAME_PREFIX}{middle}-{suffix}"


def node_label_value(node: str) -> str:
    """The node name as a label value; a name that is not one (too long) becomes a prefix plus a digest."""
    if len(node) <= 63 and _LABEL_VALUE_RE.match(node):
        return node
    head = re.sub(r"[^-A-Za-z0-9_.]+", "-", node)[:52].strip("-_.")
    return f"{head}-{_digest(node)}" if head else _digest(node)


# --------------------------------------------------------------------------------------------------------------
# The pod
# --------------------------------------------------------------------------------------------------------------


def collector_command(script: str) -> tuple[str, ...]:
    """Run the collector from its text, so any image with a POSIX sh works (no copy of the script needed)."""
    return ("sh", "-c", script)


#: Printed by the shell pod before it sleeps: whether the container sees a device (read from its log).
SHELL_READY = "===KUBECTL-GPU:SHELL-READY"
_SHELL_PROBES = {
    Accelerator.NVIDIA: "nvidia-smi -L",
    Accelerator.NEURON: "ls -1 /dev/neuron[0-9]*",
}


def shell_command(accelerator: Accelerator, seconds: int) -> tuple[str, ...]:
    """Keep the pod alive for `kubectl exec`, after saying (in the log) which devices it sees."""
    probe = _SHELL_PROBES[accelerator]
    script = (
        f"{probe} 2>&1; echo \"{SHELL_READY} rc=$?===\"; trap 'exit 0' TERM INT; sleep {int(seconds)} & wait"
    )
    return ("sh", "-c", script)


#: What `kubectl gpu shell` runs through `kubectl exec` (bash where the image has it).
SHELL_EXEC = ("sh", "-c", "command -v bash >/dev/null 2>&1 && exec bash || exec sh")


@dataclass(frozen=True, slots=True)
class DebugPodSpec:
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

    @property
    def name(self) -> str:
        return pod_name(self.node, self.suffix)


def _env(spec: DebugPodSpec) -> list[dict[str, str]]:
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
        "env": _env(spec),
        "resources": _resources(spec),
        "securityContext": {"privileged": True},
        "volumeMounts": [
            {"name": "host-root", "mountPath": HOST_ROOT, "readOnly": spec.mode is Mode.SMI},
        ],
        "terminationMessagePolicy": "FallbackToLogsOnError",
    }
    if not container["env"]:
        del container["env"]
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
            "annotations": {NODE_ANNOTATION: spec.node, STRATEGY_ANNOTATION: spec.strategy.value},
        },
        "spec": {
            "nodeName": spec.node,  # bypasses the scheduler: taints, cordons and selectors do not apply
            "restartPolicy": "Never",
            "terminationGracePeriodSeconds": 0,
            "activeDeadlineSeconds": spec.active_deadline_seconds,
            "automountServiceAccountToken": False,
            "enableServiceLinks": False,
            "hostPID": True,
            "hostNetwork": True,
            "hostIPC": True,
            "dnsPolicy": "ClusterFirstWithHostNet",
            "tolerations": [{"operator": "Exists"}],  # every taint, NoExecute included
            "containers": [container],
            "volumes": [{"name": "host-root", "hostPath": {"path": "/"}}],
        },
    }


# --------------------------------------------------------------------------------------------------------------
# The same pod through `kubectl debug`
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KubectlDebugCommand:
    """`kubectl debug node/...` creating the closest pod it can, and what it cannot express."""

    argv: tuple[str, ...]
    #: A `--custom` profile (partial Container) the command refers to as `custom_file`, or None.
    custom: dict[str, Any] | None = None
    custom_file: str = "kubectl-gpu-custom.json"
    differences: tuple[str, ...] = ()

    def shell(self) -> str:
        """The command line, quoted for a POSIX shell (a here-document first when a profile is needed)."""
        line = shlex.join(self.argv)
        if self.custom is None:
            return line
        return f"cat > {self.custom_file} <<'EOF'\n{json.dumps(self.custom)}\nEOF\n{line}"


def kubectl_debug_command(spec: DebugPodSpec, kubectl_flags: Sequence[str] = ()) -> KubectlDebugCommand:
    """The equivalent `kubectl debug node/NAME --profile=sysadmin` (kubectl 1.30 or newer)."""
    argv = ["kubectl", *kubectl_flags, "debug", f"node/{spec.node}", "--namespace", spec.namespace]
    argv += [f"--image={spec.image}", f"--image-pull-policy={spec.image_pull_policy}", "--profile=sysadmin"]
    argv += [f"--env={e['name']}={e['value']}" for e in _env(spec)]
    custom: dict[str, Any] | None = None
    if spec.strategy is Strategy.REQUEST:
        custom = {"resources": {"limits": {spec.resource: "1"}}}
        argv.append("--custom=kubectl-gpu-custom.json")
    argv += ["--", *spec.command]
    differences = (
        "kubectl debug names the pod node-debugger-<node>-<random> and labels it "
        "app.kubernetes.io/managed-by=kubectl-debug",
        "it cannot set terminationGracePeriodSeconds, activeDeadlineSeconds, automountServiceAccountToken, "
        "resource requests or a read-only /host",
        "it never deletes the pod",
    )
    return KubectlDebugCommand(tuple(argv), custom, differences=differences)


# --------------------------------------------------------------------------------------------------------------
# Nodes
# --------------------------------------------------------------------------------------------------------------

_NEURON_FAMILIES = ("inf1", "inf2", "trn1", "trn2", "trn3")


def accelerator_of(node: Node) -> Accelerator:
    """Neuron when the node advertises Neuron devices or is an Inferentia/Trainium instance; else NVIDIA."""
    resources = {*node.capacity, *node.allocatable}
    if any(r.startswith("aws.amazon.com/neuron") for r in resources):
        return Accelerator.NEURON
    itype = node.labels.get("node.kubernetes.io/instance-type") or node.labels.get(
        "beta.kubernetes.io/instance-type", ""
    )
    if itype.split(".", 1)[0].startswith(_NEURON_FAMILIES):
        return Accelerator.NEURON
    return Accelerator.NVIDIA


def is_gke_autopilot(node: Node) -> bool:
    """GKE Autopilot nodes are called `gk3-...` and carry GKE labels; Autopilot refuses privileged pods."""
    return node.name.startswith("gk3-") and any(k.startswith("cloud.google.com/gke-") for k in node.labels)


def node_blockers(node: Node) -> tuple[list[str], list[str]]:
    """(errors, warnings) known before creating anything on this node."""
    errors: list[str] = []
    warnings: list[str] = []
    ready = node.condition("Ready")
    if ready is None:
        warnings.append(f"node {node.name} reports no Ready condition; its kubelet may not start the pod")
    elif not ready.is_true:
        state = "NotReady" if ready.status == "False" else f"Ready={ready.status}"
        why = f" ({ready.reason})" if ready.reason else ""
        errors.append(f"node {node.name} is {state}{why}: its kubelet would not start the debug pod")
    if node.unschedulable:
        warnings.append(
            f"node {node.name} is cordoned; the debug pod runs anyway (nodeName bypasses the scheduler)"
        )
    return errors, warnings


# --------------------------------------------------------------------------------------------------------------
# Images
# --------------------------------------------------------------------------------------------------------------

DEFAULT_IMAGES: dict[Accelerator, str] = {
    Accelerator.NVIDIA: f"ghcr.io/kubectl-gpu/debug-nvidia:{__version__}",
    Accelerator.NEURON: f"ghcr.io/kubectl-gpu/debug-neuron:{__version__}",
}
IMAGE_ENV_VARS: dict[Accelerator, str] = {
    Accelerator.NVIDIA: "KUBECTL_GPU_IMAGE",
    Accelerator.NEURON: "KUBECTL_GPU_NEURON_IMAGE",
}


@dataclass(frozen=True, slots=True)
class ImageChoice:
    image: str
    source: str  # "--image", "env KUBECTL_GPU_IMAGE", "config <path>", "default"


def _config_image(config: Mapping[str, Any], accelerator: Accelerator, where: str) -> str | None:
    value = config.get("image")
    if value is None:
        return None
    if isinstance(value, str):  # `image: REF` is the NVIDIA image
        return value if accelerator is Accelerator.NVIDIA else None
    if not isinstance(value, Mapping):
        raise ValueError(f"{where}: image must be a string or a mapping with nvidia/neuron keys")
    chosen = value.get(accelerator.value)
    if chosen is not None and not isinstance(chosen, str):
        raise ValueError(f"{where}: image.{accelerator.value} must be a string")
    return chosen or None


def resolve_image(
    accelerator: Accelerator,
    *,
    flag: str | None,
    env: Mapping[str, str],
    config: Mapping[str, Any] | None = None,
    config_path: str = "config",
) -> ImageChoice:
    """The debug image: the flag, else the environment, else the config file, else the default."""
    if flag:
        return ImageChoice(flag, "--image" if accelerator is Accelerator.NVIDIA else "--neuron-image")
    var = IMAGE_ENV_VARS[accelerator]
    if env.get(var):
        return ImageChoice(env[var], f"env {var}")
    from_config = _config_image(config or {}, accelerator, config_path)
    if from_config:
        return ImageChoice(from_config, f"config {config_path}")
    return ImageChoice(DEFAULT_IMAGES[accelerator], "default")


# --------------------------------------------------------------------------------------------------------------
# Pod status
# --------------------------------------------------------------------------------------------------------------

IMAGE_PULL_REASONS = frozenset(
    {"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull", "RegistryUnavailable"}
)
CONTAINER_FAILURE_REASONS = frozenset(
    {"CreateContainerConfigError", "CreateContainerError", "RunContainerError", "PreCreateHookError"}
)


@dataclass(frozen=True, slots=True)
class PodProgress:
    """Where a debug pod is, read from its status."""

    phase: str
    #: pending | running | terminated | failed
    state: str
    reason: str | None = None
    message: str | None = None
    exit_code: int | None = None
    #: image-pull | container | evicted | deadline | rejected (set when state is "failed")
    failure: str | None = None
    image: str | None = None

    @property
    def done(self) -> bool:
        return self.state in ("terminated", "failed")

    def describe(self) -> str:
        detail = self.reason or ""
        if self.message:
            detail = f"{detail}: {self.message}" if detail else self.message
        return f"{self.phase} ({detail})" if detail else self.phase


def _container_status(pod: Mapping[str, Any]) -> Mapping[str, Any]:
    for status in (pod.get("status") or {}).get("containerStatuses") or []:
        if isinstance(status, Mapping) and status.get("name") == CONTAINER:
            return status
    return {}


def _spec_image(pod: Mapping[str, Any]) -> str | None:
    for container in (pod.get("spec") or {}).get("containers") or []:
        if isinstance(container, Mapping) and container.get("name") == CONTAINER:
            image = container.get("image")
            return str(image) if image else None
    return None


def pod_progress(pod: Mapping[str, Any]) -> PodProgress:
    """Classify a debug pod's status: still coming up, running, finished, or failed for a known reason."""
    status = pod.get("status") or {}
    phase = str(status.get("phase") or "Pending")
    container = _container_status(pod)
    image = _spec_image(pod)
    state = container.get("state") or {}
    terminated = state.get("terminated")
    waiting = state.get("waiting")
    if isinstance(terminated, Mapping):
        code = terminated.get("exitCode")
        return PodProgress(
            phase,
            "terminated",
            terminated.get("reason"),
            terminated.get("message"),
            code if isinstance(code, int) else None,
            image=image,
        )
    if phase == "Failed":
        reason = status.get("reason")
        failure = {"Evicted": "evicted", "DeadlineExceeded": "deadline"}.get(str(reason), "rejected")
        return PodProgress(phase, "failed", reason, status.get("message"), failure=failure, image=image)
    if phase == "Succeeded":
        return PodProgress(phase, "terminated", "Completed", exit_code=0, image=image)
    if isinstance(waiting, Mapping):
        reason = waiting.get("reason")
        message = waiting.get("message")
        if reason in IMAGE_PULL_REASONS:
            return PodProgress(phase, "failed", reason, message, failure="image-pull", image=image)
        if reason in CONTAINER_FAILURE_REASONS:
            return PodProgress(phase, "failed", reason, message, failure="container", image=image)
        return PodProgress(phase, "pending", reason, message, image=image)
    if isinstance(state.get("running"), Mapping):
        return PodProgress(phase, "running", image=image)
    for condition in status.get("conditions") or []:
        if isinstance(condition, Mapping) and condition.get("status") == "False" and condition.get("reason"):
            return PodProgress(
                phase, "pending", condition.get("reason"), condition.get("message"), image=image
            )
    return PodProgress(phase, "pending", image=image)


# --------------------------------------------------------------------------------------------------------------
# What the container saw
# --------------------------------------------------------------------------------------------------------------


def sees_accelerator(result: ProbeResult, accelerator: Accelerator) -> bool:
    if accelerator is Accelerator.NEURON:
        return result.neuron is not None and bool(result.neuron.devices)
    return bool(result.gpus)


def unseen_reason(result: ProbeResult, accelerator: Accelerator) -> str:
    """Why the collector found no device, from the first failing tool section."""
    names = ("neuron-ls",) if accelerator is Accelerator.NEURON else ("nvidia-smi-xml", "nvidia-smi-list")
    for issue in result.issues:
        if issue.section in names:
            return issue.message
    return "the tools ran but listed no device"


@dataclass(frozen=True, slots=True)
class ShellProbe:
    """What the shell pod printed before going to sleep."""

    ready: bool
    devices: int
    detail: str


def parse_shell_probe(log: str, accelerator: Accelerator) -> ShellProbe:
    """Read the shell pod's device check (see `shell_command`); `ready` once its marker line is there."""
    head, marker, tail = log.partition(SHELL_READY)
    if not marker:
        return ShellProbe(False, 0, "")
    rc_match = re.match(r" rc=(\d+)===", tail)
    rc = int(rc_match.group(1)) if rc_match else None
    text = head.strip()
    first = text.splitlines()[0] if text else ""
    if accelerator is Accelerator.NEURON:
        devices = len(re.findall(r"^/dev/neuron\d+$", text, re.MULTILINE))
    else:
        try:
            devices = len(parse_nvidia_smi_list(text)) if rc == 0 else 0
        except ProbeParseError:
            devices = 0
    return ShellProbe(True, devices, first[:200])


# --------------------------------------------------------------------------------------------------------------
# smi results and findings
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Finding:
    """A GPU health problem in nvidia-smi's output. `error` findings make `smi` exit 1."""

    code: str
    severity: str  # error | warning
    gpu: int | None
    message: str

    def to_dict(self) -> dict[str, JsonValue]:
        return {"code": self.code, "severity": self.severity, "gpu": self.gpu, "message": self.message}


_SLOWDOWNS = ("hw_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown", "sw_thermal_slowdown")


def findings(result: ProbeResult) -> tuple[Finding, ...]:
    """Health findings per GPU: uncorrectable ECC, row-remap failure/pending, pending page retirement,
    NVML error values (GPU lost / requires reset), hardware slowdowns, a pending MIG change."""
    out: list[Finding] = []
    for gpu in result.gpus:
        i = gpu.index
        ecc = gpu.ecc
        if ecc is not None and (ecc.volatile_uncorrectable or 0) > 0:
            out.append(
                Finding(
                    "ECC_UNCORRECTABLE",
                    "error",
                    i,
                    f"GPU {i}: {ecc.volatile_uncorrectable} uncorrectable ECC errors since the driver loaded",
                )
            )
        rows = gpu.remapped_rows
        if rows is not None and rows.failure:
            out.append(Finding("ROW_REMAP_FAILURE", "error", i, f"GPU {i}: row remapping failed; replace it"))
        if rows is not None and rows.pending:
            out.append(
                Finding("ROW_REMAP_PENDING", "error", i, f"GPU {i}: row remapping pending; reset the GPU")
            )
        pages = gpu.retired_pages
        if pages is not None and pages.pending:
            out.append(
                Finding(
                    "PAGE_RETIREMENT_PENDING", "error", i, f"GPU {i}: page retirement pending; reset the GPU"
                )
            )
        for error in gpu.errors:
            out.append(Finding("GPU_ERROR", "error", i, f"GPU {i}: nvidia-smi reports {error!r}"))
        slow = [r for r in gpu.clock_event_reasons if r in _SLOWDOWNS]
        if slow:
            out.append(Finding("CLOCK_SLOWDOWN", "warning", i, f"GPU {i}: clocks slowed: {', '.join(slow)}"))
        if gpu.mig_mode_pending and gpu.mig_mode and gpu.mig_mode_pending != gpu.mig_mode:
            out.append(
                Finding(
                    "MIG_CHANGE_PENDING",
                    "warning",
                    i,
                    f"GPU {i}: MIG mode {gpu.mig_mode} -> {gpu.mig_mode_pending} waits for a GPU reset",
                )
            )
    return tuple(out)


@dataclass(frozen=True, slots=True)
class SmiResult:
    """One node's `smi` outcome: the parsed collector output, or the error that prevented it."""

    node: str | None
    strategy: str | None
    probe: ProbeResult | None
    error: str | None = None
    raw: str | None = field(default=None, repr=False)
    notes: tuple[str, ...] = ()
    image: str | None = None
    #: The node's pods, UID -> `namespace/name` (see `attribution.pod_names_by_uid`); None: no pod list.
    pods: Mapping[str, str] | None = field(default=None, hash=False)
    #: Why there is no pod list (`pods` is None), for the note on processes left without a pod.
    pods_unknown: str | None = None

    @property
    def findings(self) -> tuple[Finding, ...]:
        return findings(self.probe) if self.probe is not None else ()

    def attribution(self) -> tuple[ProcessPod, ...]:
        """The pod of every process (GPU, MIG, Neuron), or why it has none."""
        return attribute_processes(self.probe, self.pods) if self.probe is not None else ()

    def process_pods(self) -> dict[int, str]:
        """PID -> `namespace/name` of the processes attributed to a pod."""
        return {p.pid: p.pod for p in self.attribution() if p.pid is not None and p.pod is not None}

    def all_notes(self) -> tuple[str, ...]:
        notes = list(self.notes)
        if self.probe is not None:
            notes += attribution_notes(
                self.attribution(),
                section_problem=cgroups_problem(self.probe),
                pods_problem=self.pods_unknown,
            )
        return tuple(notes)

    def to_dict(self) -> dict[str, JsonValue]:
        """The `SmiReport` result: the contract keys first, then findings, notes and tool issues."""
        probe = self.probe
        pods = self.process_pods()
        out: dict[str, JsonValue] = {
            "node": self.node,
            "strategy": self.strategy,
            "driverVersion": probe.driver_version if probe else None,
            "cudaVersion": probe.cuda_version if probe else None,
            "gpus": [g.to_dict(detail=True, pods=pods) for g in probe.gpus] if probe else [],
            "error": self.error,
        }
        if probe is not None and probe.neuron is not None:
            out["neuronDevices"] = [
                {
                    "index": d.index,
                    "ncCount": d.nc_count,
                    "memoryBytes": d.memory_bytes,
                    "bdf": d.bdf,
                    "processes": [
                        {
                            "pid": p.pid,
                            "command": p.command,
                            "pod": None if p.pid is None else pods.get(p.pid),
                        }
                        for p in d.processes
                    ],
                }
                for d in probe.neuron.devices
            ]
        out["image"] = self.image
        out["findings"] = [f.to_dict() for f in self.findings]
        out["notes"] = list(self.all_notes())
        out["issues"] = [i.to_dict() for i in probe.issues] if probe else []
        return out
