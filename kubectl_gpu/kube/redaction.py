"""What a redacted snapshot bundle (the default) leaves out: every field that can carry a credential,
except what an analysis reads, which is kept so that a bundle answers as the live cluster does.

Replaced by `<redacted>` (the field and its place kept, so the shape and counts stay):
- container (and init and ephemeral container) `command`, `args` and env `value`s, except the values of
  `KEPT_ENV` (CUDA_VERSION: the drivers analysis reads it; a version is no secret); env names and
  `valueFrom` references stay (names of Secrets, never their data);
- probe and lifecycle-hook `exec.command` and `httpGet.httpHeaders` values (an `Authorization` header);
- annotation values, in `metadata` and in a NodePool's `spec.template.metadata`, except `KEPT_ANNOTATIONS`
  (the ones analyses read); `kubectl.kubernetes.io/last-applied-configuration` is dropped whole (it is the
  whole object again, env values included);
- a NodeClass's or EC2NodeClass's `spec.userData` (node bootstrap scripts hold tokens and passwords),
  but for the words that say it sets up local disks, which lint reads (`USER_DATA_WORDS`).

Kept: names, labels, images, resources, scheduling fields, statuses, events, NodePool and NodeClass specs
otherwise. docs/security.md lists it for whoever is sent a bundle.
"""

from __future__ import annotations

from typing import Any

__all__ = ["KEPT_ANNOTATIONS", "KEPT_ENV", "REDACTED", "USER_DATA_WORDS", "redact"]

REDACTED = "<redacted>"
#: Annotations whose values the analyses read (karpenter, cost and lint: do-not-disrupt; smi: mirror pods;
#: drivers: a declared CUDA version; pending: ignore).
KEPT_ANNOTATIONS = frozenset(
    {
        "karpenter.sh/do-not-disrupt",
        "kubernetes.io/config.mirror",
        "kubectl-gpu.io/cuda",
        "kubectl-gpu.io/ignore",
    }
)
_DROPPED_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)
#: Env variables whose values the analyses read and that hold no secret.
KEPT_ENV = frozenset({"CUDA_VERSION"})
#: What lint looks for in an EC2NodeClass's userData (core/analyses/lint: "sets up local disks itself").
USER_DATA_WORDS = ("localstorage", "mdadm", "raid")
_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_NODE_CLASSES = ("NodeClass", "EC2NodeClass")


def _annotations(meta: Any) -> None:
    if not isinstance(meta, dict) or not isinstance(meta.get("annotations"), dict):
        return
    annotations = meta["annotations"]
    for key in _DROPPED_ANNOTATIONS:
        annotations.pop(key, None)
    for key in annotations:
        if key not in KEPT_ANNOTATIONS:
            annotations[key] = REDACTED


def _strings(values: Any) -> Any:
    return [REDACTED for _ in values] if isinstance(values, list) else values


def _handler(handler: Any) -> None:
    """A probe or a lifecycle hook: the command it runs and the headers it sends."""
    if not isinstance(handler, dict):
        return
    exec_ = handler.get("exec")
    if isinstance(exec_, dict) and "command" in exec_:
        exec_["command"] = _strings(exec_["command"])
    http = handler.get("httpGet")
    if isinstance(http, dict) and isinstance(http.get("httpHeaders"), list):
        for header in http["httpHeaders"]:
            if isinstance(header, dict) and "value" in header:
                header["value"] = REDACTED


def _container(container: dict[str, Any]) -> None:
    for env in container.get("env") or []:
        if isinstance(env, dict) and "value" in env and env.get("name") not in KEPT_ENV:
            env["value"] = REDACTED
    for key in ("command", "args"):  # they carry tokens as often as env does: keep their count, not text
        if key in container:
            container[key] = _strings(container[key])
    for probe in _PROBES:
        _handler(container.get(probe))
    lifecycle = container.get("lifecycle")
    if isinstance(lifecycle, dict):
        for hook in ("postStart", "preStop"):
            _handler(lifecycle.get(hook))


def _user_data(spec: dict[str, Any]) -> None:
    text = spec.get("userData")
    if not isinstance(text, str):
        return
    words = [w for w in USER_DATA_WORDS if w in text.lower()]
    spec["userData"] = f"{REDACTED} (mentions: {', '.join(words)})" if words else REDACTED


def redact(obj: dict[str, Any]) -> dict[str, Any]:
    """Remove what a support bundle must not carry (see the module's docstring).

    Works in place on a fresh dict from the API (the live source owns it) and returns it."""
    _annotations(obj.get("metadata"))
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return obj
    kind = obj.get("kind")
    template = spec.get("template")
    pod_spec = spec if kind == "Pod" else None
    if kind == "DaemonSet" and isinstance(template, dict) and isinstance(template.get("spec"), dict):
        pod_spec = template["spec"]  # a pod template carries the same secrets as a pod
    if pod_spec is not None:
        for key in _CONTAINER_LISTS:
            for container in pod_spec.get(key) or []:
                if isinstance(container, dict):
                    _container(container)
    elif kind in _NODE_CLASSES:
        _user_data(spec)
    if isinstance(template, dict):
        _annotations(template.get("metadata"))
    return obj
