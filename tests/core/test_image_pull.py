"""Why an image pull failed, from the kubelet's waiting reason and message, and the way to another image.

The messages are the runtime's and registries' own wording: containerd's resolver ("not found"), Docker Hub's
rate limit (the demo bundle's vllm pod), ECR's and GHCR's refusals, a node without a route, a single-arch
image on an arm64 node, and the kubelet >= 1.32 back-off message that repeats the pull error."""

from __future__ import annotations

import pytest

from kubectl_gpu.core.debugpod import DEFAULT_IMAGES, PUBLIC_BASE_IMAGE, Accelerator, explain_pull_failure

IMG = "registry.example.com/debug:1"

CASES = [
    ("ErrImagePull", f'rpc error: code = NotFound desc = failed to pull and unpack image "{IMG}": failed to resolve reference "{IMG}": {IMG}: not found', "not-found"),
    ("ErrImagePull", 'failed to pull and unpack image "docker.io/vllm/vllm-openai:v0.11.0": failed to copy: httpReadSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/vllm/vllm-openai/manifests/sha256:8505: 429 Too Many Requests - Server message: toomanyrequests: You have reached your unauthenticated pull rate limit. https://www.docker.com/increase-rate-limit', "rate-limit"),
    ("ErrImagePull", 'rpc error: code = Unknown desc = failed to pull and unpack image "123456789012.dkr.ecr.us-east-1.amazonaws.com/debug:1": failed to resolve reference: pull access denied, repository does not exist or may require authorization: authorization failed: no basic auth credentials', "auth"),
    ("ErrImagePull", 'rpc error: code = Unknown desc = failed to pull and unpack image "ghcr.io/kubectl-gpu/debug-nvidia:0.1.0": failed to resolve reference "ghcr.io/kubectl-gpu/debug-nvidia:0.1.0": failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://ghcr.io/token?scope=repository%3Akubectl-gpu%2Fdebug-nvidia%3Apull&service=ghcr.io: 403 Forbidden', "auth"),
    ("ErrImagePull", 'rpc error: code = Unknown desc = error pulling image configuration: denied: unauthenticated: User cannot be authenticated with the token provided.', "auth"),
    ("ErrImagePull", 'rpc error: code = DeadlineExceeded desc = failed to pull and unpack image "public.ecr.aws/docker/library/debian:bookworm-slim": failed to resolve reference: failed to do request: Head "https://public.ecr.aws/v2/docker/library/debian/manifests/bookworm-slim": dial tcp 75.2.101.78:443: i/o timeout', "network"),
    ("ErrImagePull", 'failed to resolve reference "registry.internal/debug:1": failed to do request: Head "https://registry.internal/v2/debug/manifests/1": dial tcp: lookup registry.internal on 10.0.0.2:53: no such host', "network"),
    ("ErrImagePull", f'rpc error: code = NotFound desc = failed to pull and unpack image "{IMG}": no match for platform in manifest: not found', "platform"),
    ("ImagePullBackOff", f'Back-off pulling image "{IMG}": ErrImagePull: failed to pull and unpack image "{IMG}": failed to resolve reference "{IMG}": not found', "not-found"),
    ("ImagePullBackOff", f'Back-off pulling image "{IMG}"', "unknown"),  # a kubelet before 1.32 says no more
    ("InvalidImageName", 'Failed to apply default image tag "Debug:1": couldn\'t parse image name "Debug:1": invalid reference format: repository name must be lowercase', "invalid"),
    ("ErrImagePull", None, "unknown"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("reason", "message", "cause"), CASES, ids=[f"{c}-{i}" for i, (_, _, c) in enumerate(CASES)]
)
def test_the_cause_is_read_from_the_message(reason: str, message: str | None, cause: str) -> None:
    failure = explain_pull_failure(IMG, reason, message, Accelerator.NVIDIA)
    assert failure.cause == cause
    assert failure.why and "\n" not in failure.why + failure.hint


@pytest.mark.parametrize(
    ("accelerator", "flag", "env", "key"),
    [
        (Accelerator.NVIDIA, "--image", "KUBECTL_GPU_IMAGE", "image.nvidia"),
        (Accelerator.NEURON, "--neuron-image", "KUBECTL_GPU_NEURON_IMAGE", "image.neuron"),
    ],
)
def test_the_hint_names_every_way_to_choose_another_image(
    accelerator: Accelerator, flag: str, env: str, key: str
) -> None:
    hint = explain_pull_failure(IMG, "ErrImagePull", "not found", accelerator).hint
    assert f"{flag} REF" in hint and f"{env}=REF" in hint
    assert f"{key}: REF in ~/.config/kubectl-gpu/config.yaml" in hint
    assert "default image" not in hint


def test_the_default_image_says_so_and_points_at_its_documentation() -> None:
    assert DEFAULT_IMAGES[Accelerator.NVIDIA] == PUBLIC_BASE_IMAGE
    hint = explain_pull_failure(
        PUBLIC_BASE_IMAGE, "ErrImagePull", "dial tcp: i/o timeout", Accelerator.NVIDIA
    ).hint
    assert "pull-through cache" in hint and "kubectl-gpu's default image" in hint
    assert "docs/debug-pods.md" in hint and "--image REF" in hint


def test_authorization_wins_over_not_found() -> None:
    """Docker Hub answers a missing repository with 'pull access denied ... does not exist': both are said."""
    failure = explain_pull_failure(
        "nope/nope:1",
        "ErrImagePull",
        "pull access denied for nope/nope, repository does not exist or may require 'docker login'",
        Accelerator.NVIDIA,
    )
    assert failure.cause == "auth" and "private or does not exist" in failure.why
