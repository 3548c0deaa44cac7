"""The GPU debug pod as data: its spec, its name, how to read its status, and what its output means.

Modelled on `kubectl debug node/NAME --profile=sysadmin` (host PID, the node's `/` at `/host`, privileged;
not the node's network or IPC) plus what a GPU needs and what keeps the pod from outliving us (grace period 0, a deadline, no
service account token, labels `cleanup` finds it by). Pure: the random name suffix, the collector script and
the image come in as arguments.

Modules: `kinds` (accelerator, mode, strategy), `names` (pod name, labels), `commands` (what the container
runs, the shell pod's report), `spec` (the manifest), `kubectl_debug` (the same through kubectl debug),
`nodes` (before creating anything), `images` (which image), `image_pull` (why an image could not be pulled),
`progress` (the pod's status). What the pod
found is read by `core.analyses.smi`.
"""

from kubectl_gpu.core.debugpod.commands import SHELL_EXEC as SHELL_EXEC
from kubectl_gpu.core.debugpod.commands import SHELL_READY as SHELL_READY
from kubectl_gpu.core.debugpod.commands import (
    ShellProbe,
    collector_command,
    parse_shell_probe,
    shell_command,
)
from kubectl_gpu.core.debugpod.digests import is_pinned
from kubectl_gpu.core.debugpod.image_pull import PullFailure, explain_pull_failure
from kubectl_gpu.core.debugpod.images import (
    DEFAULT_IMAGES,
    IMAGE_ENV_VARS,
    PROJECT_IMAGES,
    PUBLIC_BASE_IMAGE,
    ImageChoice,
    resolve_image,
)
from kubectl_gpu.core.debugpod.kinds import Accelerator, Mode, Strategy, attempts
from kubectl_gpu.core.debugpod.kubectl_debug import KubectlDebugCommand, kubectl_debug_command
from kubectl_gpu.core.debugpod.names import (
    DEBUG_POD_SELECTOR,
    MANAGED_BY,
    MANAGED_BY_LABEL,
    MODE_LABEL,
    NODE_LABEL,
    SUFFIX_ALPHABET,
    node_label_value,
    not_our_pod,
    pod_name,
)
from kubectl_gpu.core.debugpod.names import NAME_MAX as NAME_MAX
from kubectl_gpu.core.debugpod.names import NAME_PREFIX as NAME_PREFIX
from kubectl_gpu.core.debugpod.names import NODE_ANNOTATION as NODE_ANNOTATION
from kubectl_gpu.core.debugpod.names import STRATEGY_ANNOTATION as STRATEGY_ANNOTATION
from kubectl_gpu.core.debugpod.names import SUFFIX_LENGTH as SUFFIX_LENGTH
from kubectl_gpu.core.debugpod.nodes import accelerator_of, is_gke_autopilot, node_blockers
from kubectl_gpu.core.debugpod.progress import CONTAINER_FAILURE_REASONS as CONTAINER_FAILURE_REASONS
from kubectl_gpu.core.debugpod.progress import IMAGE_PULL_REASONS as IMAGE_PULL_REASONS
from kubectl_gpu.core.debugpod.progress import PodProgress, pod_progress
from kubectl_gpu.core.debugpod.spec import CONTAINER, HOST_ROOT, DebugPodSpec, build_debug_pod
from kubectl_gpu.core.debugpod.spec import SMALL_REQUESTS as SMALL_REQUESTS
from kubectl_gpu.core.probe import parse_saved_output
from kubectl_gpu.core.probe.attribution import ATTRIBUTION_NOTE

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
    "PROJECT_IMAGES",
    "PUBLIC_BASE_IMAGE",
    "SUFFIX_ALPHABET",
    "Accelerator",
    "DebugPodSpec",
    "ImageChoice",
    "KubectlDebugCommand",
    "Mode",
    "PodProgress",
    "PullFailure",
    "ShellProbe",
    "Strategy",
    "accelerator_of",
    "attempts",
    "build_debug_pod",
    "collector_command",
    "explain_pull_failure",
    "is_gke_autopilot",
    "is_pinned",
    "kubectl_debug_command",
    "node_blockers",
    "node_label_value",
    "not_our_pod",
    "parse_saved_output",
    "parse_shell_probe",
    "pod_name",
    "pod_progress",
    "resolve_image",
    "shell_command",
]
