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

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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


#: name -> (module, attribute): resolved on first use (PEP 562), so that `from kubectl_gpu.core.debugpod
#: import Strategy` (an option's type in the CLI) does not import the probe parsers and the pod spec.
_LAZY: dict[str, tuple[str, str]] = {
    "SHELL_EXEC": ("kubectl_gpu.core.debugpod.commands", "SHELL_EXEC"),
    "SHELL_READY": ("kubectl_gpu.core.debugpod.commands", "SHELL_READY"),
    "ShellProbe": ("kubectl_gpu.core.debugpod.commands", "ShellProbe"),
    "collector_command": ("kubectl_gpu.core.debugpod.commands", "collector_command"),
    "parse_shell_probe": ("kubectl_gpu.core.debugpod.commands", "parse_shell_probe"),
    "shell_command": ("kubectl_gpu.core.debugpod.commands", "shell_command"),
    "is_pinned": ("kubectl_gpu.core.debugpod.digests", "is_pinned"),
    "PullFailure": ("kubectl_gpu.core.debugpod.image_pull", "PullFailure"),
    "explain_pull_failure": ("kubectl_gpu.core.debugpod.image_pull", "explain_pull_failure"),
    "DEFAULT_IMAGES": ("kubectl_gpu.core.debugpod.images", "DEFAULT_IMAGES"),
    "IMAGE_ENV_VARS": ("kubectl_gpu.core.debugpod.images", "IMAGE_ENV_VARS"),
    "PROJECT_IMAGES": ("kubectl_gpu.core.debugpod.images", "PROJECT_IMAGES"),
    "PUBLIC_BASE_IMAGE": ("kubectl_gpu.core.debugpod.images", "PUBLIC_BASE_IMAGE"),
    "ImageChoice": ("kubectl_gpu.core.debugpod.images", "ImageChoice"),
    "resolve_image": ("kubectl_gpu.core.debugpod.images", "resolve_image"),
    "Accelerator": ("kubectl_gpu.core.debugpod.kinds", "Accelerator"),
    "Mode": ("kubectl_gpu.core.debugpod.kinds", "Mode"),
    "Strategy": ("kubectl_gpu.core.debugpod.kinds", "Strategy"),
    "attempts": ("kubectl_gpu.core.debugpod.kinds", "attempts"),
    "KubectlDebugCommand": ("kubectl_gpu.core.debugpod.kubectl_debug", "KubectlDebugCommand"),
    "kubectl_debug_command": ("kubectl_gpu.core.debugpod.kubectl_debug", "kubectl_debug_command"),
    "DEBUG_POD_SELECTOR": ("kubectl_gpu.core.debugpod.names", "DEBUG_POD_SELECTOR"),
    "MANAGED_BY": ("kubectl_gpu.core.debugpod.names", "MANAGED_BY"),
    "MANAGED_BY_LABEL": ("kubectl_gpu.core.debugpod.names", "MANAGED_BY_LABEL"),
    "MODE_LABEL": ("kubectl_gpu.core.debugpod.names", "MODE_LABEL"),
    "NODE_LABEL": ("kubectl_gpu.core.debugpod.names", "NODE_LABEL"),
    "SUFFIX_ALPHABET": ("kubectl_gpu.core.debugpod.names", "SUFFIX_ALPHABET"),
    "node_label_value": ("kubectl_gpu.core.debugpod.names", "node_label_value"),
    "not_our_pod": ("kubectl_gpu.core.debugpod.names", "not_our_pod"),
    "pod_name": ("kubectl_gpu.core.debugpod.names", "pod_name"),
    "NAME_MAX": ("kubectl_gpu.core.debugpod.names", "NAME_MAX"),
    "NAME_PREFIX": ("kubectl_gpu.core.debugpod.names", "NAME_PREFIX"),
    "NODE_ANNOTATION": ("kubectl_gpu.core.debugpod.names", "NODE_ANNOTATION"),
    "STRATEGY_ANNOTATION": ("kubectl_gpu.core.debugpod.names", "STRATEGY_ANNOTATION"),
    "SUFFIX_LENGTH": ("kubectl_gpu.core.debugpod.names", "SUFFIX_LENGTH"),
    "accelerator_of": ("kubectl_gpu.core.debugpod.nodes", "accelerator_of"),
    "is_gke_autopilot": ("kubectl_gpu.core.debugpod.nodes", "is_gke_autopilot"),
    "node_blockers": ("kubectl_gpu.core.debugpod.nodes", "node_blockers"),
    "CONTAINER_FAILURE_REASONS": ("kubectl_gpu.core.debugpod.progress", "CONTAINER_FAILURE_REASONS"),
    "IMAGE_PULL_REASONS": ("kubectl_gpu.core.debugpod.progress", "IMAGE_PULL_REASONS"),
    "PodProgress": ("kubectl_gpu.core.debugpod.progress", "PodProgress"),
    "pod_progress": ("kubectl_gpu.core.debugpod.progress", "pod_progress"),
    "CONTAINER": ("kubectl_gpu.core.debugpod.spec", "CONTAINER"),
    "HOST_ROOT": ("kubectl_gpu.core.debugpod.spec", "HOST_ROOT"),
    "DebugPodSpec": ("kubectl_gpu.core.debugpod.spec", "DebugPodSpec"),
    "build_debug_pod": ("kubectl_gpu.core.debugpod.spec", "build_debug_pod"),
    "SMALL_REQUESTS": ("kubectl_gpu.core.debugpod.spec", "SMALL_REQUESTS"),
    "parse_saved_output": ("kubectl_gpu.core.probe", "parse_saved_output"),
    "ATTRIBUTION_NOTE": ("kubectl_gpu.core.probe.attribution", "ATTRIBUTION_NOTE"),
}


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    import importlib

    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value
