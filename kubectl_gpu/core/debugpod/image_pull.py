"""Why the node could not pull the debug image, read from the kubelet's waiting reason and message, and how to
point the CLI at another image.

The kubelet reports `ErrImagePull` (the first failed attempt, with the runtime's message) and then
`ImagePullBackOff` (waiting to retry, often with only `Back-off pulling image "..."`). Either ends the run at
once: waiting for the back-off to expire never makes a missing image appear."""

from __future__ import annotations

import msgspec

from kubectl_gpu.core.debugpod.images import CONFIG_KEYS, DEFAULT_IMAGES, IMAGE_ENV_VARS, IMAGE_FLAGS
from kubectl_gpu.core.debugpod.kinds import Accelerator

__all__ = ["PullFailure", "explain_pull_failure", "override_hint"]

#: (cause, what the runtime or registry says for it, lower case), first match wins: the message of a 401 from
#: a registry that hides private repositories can also say "not found", so authorization is checked first.
_CAUSES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("platform", ("no match for platform", "no matching manifest")),
    ("rate-limit", ("toomanyrequests", "429 too many requests", "rate limit")),
    (
        "auth",
        (
            "unauthorized",
            "authentication required",
            "no basic auth credentials",
            "access denied",
            "pull access denied",
            "denied: ",
            "403 forbidden",
        ),
    ),
    ("not-found", ("not found", "manifest unknown", "name unknown", "does not exist", "404")),
    (
        "network",
        (
            "i/o timeout",
            "dial tcp",
            "no such host",
            "connection refused",
            "connection reset",
            "tls handshake timeout",
            "context deadline exceeded",
            "network is unreachable",
            "server misbehaving",
        ),
    ),
)

_WHY: dict[str, str] = {
    "platform": "the image has no build for the node's CPU architecture",
    "rate-limit": "the registry refused the pull: rate limit (Docker Hub limits anonymous pulls per IP)",
    "auth": "the registry refused access: the image is private or does not exist (many registries answer both alike)",
    "not-found": "the registry has no such image or tag",
    "network": "the node cannot reach the registry (no route, DNS or TLS failure, or a timeout)",
    "invalid": "the reference is not a valid image name",
    "unknown": "the node could not pull it",
}

_FIX: dict[str, str] = {
    "platform": "use a multi-arch image (linux/amd64 and linux/arm64)",
    "rate-limit": "use an image on a registry without anonymous limits (public.ecr.aws, or ECR in your account)",
    "auth": "debug pods use no imagePullSecrets: use a public image or one in a registry the nodes' IAM role can pull",
    "not-found": "check the name and tag",
    "network": "mirror the image to a registry the nodes reach (an ECR pull-through cache for public.ecr.aws "
    "works in private subnets with ECR VPC endpoints)",
    "invalid": "check the reference (registry/repository:tag or @sha256:digest)",
    "unknown": "check the image reference and that the node can reach its registry",
}


class PullFailure(msgspec.Struct, frozen=True):
    """An image pull that failed: the cause (a stable word), why in words, and what to do."""

    cause: str  # platform | rate-limit | auth | not-found | network | invalid | unknown
    why: str
    hint: str


def _cause(reason: str | None, message: str | None) -> str:
    if reason == "InvalidImageName":
        return "invalid"
    text = (message or "").lower()
    for cause, needles in _CAUSES:
        if any(needle in text for needle in needles):
            return cause
    return "unknown"


def override_hint(accelerator: Accelerator) -> str:
    """Every way to name another image, in the order the CLI reads them."""
    return (
        f"set another image with {IMAGE_FLAGS[accelerator]} REF, the environment {IMAGE_ENV_VARS[accelerator]}=REF "
        f"or {CONFIG_KEYS[accelerator]}: REF in ~/.config/kubectl-gpu/config.yaml"
    )


def explain_pull_failure(
    image: str, reason: str | None, message: str | None, accelerator: Accelerator
) -> PullFailure:
    """Why `image` could not be pulled (from the kubelet's waiting `reason` and `message`) and the fix."""
    cause = _cause(reason, message)
    fix = _FIX[cause]
    if image == DEFAULT_IMAGES[accelerator]:
        fix = f"{fix}; this is kubectl-gpu's default image (docs/debug-pods.md 'Images' says where it comes from)"
    return PullFailure(cause, _WHY[cause], f"{fix}; {override_hint(accelerator)}")
