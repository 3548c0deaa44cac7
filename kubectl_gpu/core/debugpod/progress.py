"""Where a debug pod is, read from its status: coming up, running, finished, or failed for a known reason."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from kubectl_gpu.core.debugpod.spec import CONTAINER

__all__ = ["CONTAINER_FAILURE_REASONS", "IMAGE_PULL_REASONS", "PodProgress", "pod_progress"]

IMAGE_PULL_REASONS = frozenset(
    {"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull", "RegistryUnavailable"}
)
CONTAINER_FAILURE_REASONS = frozenset(
    {"CreateContainerConfigError", "CreateContainerError", "RunContainerError", "PreCreateHookError"}
)


class PodProgress(msgspec.Struct, frozen=True):
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
