"""The same pod through `kubectl debug node/NAME --profile=sysadmin`, and what that command cannot express."""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from typing import Any

import msgspec

from kubectl_gpu.core.debugpod.kinds import Strategy
from kubectl_gpu.core.debugpod.spec import DebugPodSpec, container_env

__all__ = ["KubectlDebugCommand", "kubectl_debug_command"]


class KubectlDebugCommand(msgspec.Struct, frozen=True):
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
    argv += [f"--env={e['name']}={e['value']}" for e in container_env(spec)]
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
        "--profile=sysadmin also shares the node's network and IPC namespaces (hostNetwork, hostIPC), which "
        "kubectl-gpu's pod does not: on the node's network a pod reaches the instance metadata service",
    )
    return KubectlDebugCommand(tuple(argv), custom, differences=differences)
