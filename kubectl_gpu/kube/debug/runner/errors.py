"""How a debug pod can fail on one node (each a `ClusterError`, exit 3), and `Cancelled`, the user's interrupt."""

from __future__ import annotations

from kubectl_gpu.core.errors import ClusterError

__all__ = [
    "AdmissionRejected",
    "Cancelled",
    "DebugPodError",
    "DebugPodTimeout",
    "ImagePullFailed",
    "NoAcceleratorVisible",
    "NodeGone",
]


class DebugPodError(ClusterError):
    """A debug pod could not do its job on one node (exit 3)."""


class ImagePullFailed(DebugPodError):
    pass


class AdmissionRejected(DebugPodError):
    pass


class NoAcceleratorVisible(DebugPodError):
    pass


class DebugPodTimeout(DebugPodError):
    pass


class NodeGone(DebugPodError):
    pass


class Cancelled(Exception):
    """The user interrupted; the worker unwinds (deleting its pod) without reporting an error of its own."""
