"""Which debug image: the flag, else the environment, else the config file, else the default.

The default is a public image that starts on every GPU node whatever its driver: the collector is sent as a
script (`sh -c`), and `nvidia-smi` and NVML come from the node through the NVIDIA container runtime, so the
image only needs a glibc userland (the injected `nvidia-smi` is a glibc binary: musl images such as busybox or
alpine cannot run it), a POSIX `sh`, coreutils and util-linux (`lsblk`, `findmnt`, `nsenter`). Where it comes
from and why: docs/debug-pods.md "Images". The project's own richer images (debug-images/) are opt-in
(`PROJECT_IMAGES`) until a release publishes them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from kubectl_gpu import __version__
from kubectl_gpu.core.debugpod.digests import check_reference
from kubectl_gpu.core.debugpod.kinds import Accelerator

__all__ = [
    "CONFIG_KEYS",
    "DEFAULT_IMAGES",
    "IMAGE_ENV_VARS",
    "IMAGE_FLAGS",
    "PROJECT_IMAGES",
    "PUBLIC_BASE_IMAGE",
    "ImageChoice",
    "resolve_image",
]

#: Debian 12 slim from ECR Public's copy of the Docker Official Images (no Docker Hub rate limits; amd64 and
#: arm64). Digest of the OCI index `debian:bookworm-20260918-slim` as docker-library/repo-info records it
#: (repos/debian/remote/bookworm-20260918-slim.md); the tag says what it is, the digest is what is pulled.
PUBLIC_BASE_IMAGE = (
    "public.ecr.aws/docker/library/debian:bookworm-20260918-slim"
    "@sha256:3783cc01769c7b2b1b83a5c5ad96c815348e28ed7da68e2e3687004faa906251"
)
#: The default per accelerator. Neuron nodes get the same image: `neuron-ls` comes from the node
#: (/opt/aws/neuron/bin, through `chroot /host`) where it is installed, else use PROJECT_IMAGES' one.
DEFAULT_IMAGES: dict[Accelerator, str] = {
    Accelerator.NVIDIA: PUBLIC_BASE_IMAGE,
    Accelerator.NEURON: PUBLIC_BASE_IMAGE,
}
#: The project's own images (debug-images/: pciutils, nvme-cli, mdadm; aws-neuronx-tools), tagged with the CLI
#: version. Opt-in (--image, the environment or the config file) until a release publishes them.
PROJECT_IMAGES: dict[Accelerator, str] = {
    Accelerator.NVIDIA: f"ghcr.io/kubectl-gpu/debug-nvidia:{__version__}",
    Accelerator.NEURON: f"ghcr.io/kubectl-gpu/debug-neuron:{__version__}",
}
IMAGE_FLAGS: dict[Accelerator, str] = {
    Accelerator.NVIDIA: "--image",
    Accelerator.NEURON: "--neuron-image",
}
#: The config file's key for each image (`image: {nvidia: REF, neuron: REF}`).
CONFIG_KEYS: dict[Accelerator, str] = {
    Accelerator.NVIDIA: "image.nvidia",
    Accelerator.NEURON: "image.neuron",
}
IMAGE_ENV_VARS: dict[Accelerator, str] = {
    Accelerator.NVIDIA: "KUBECTL_GPU_IMAGE",
    Accelerator.NEURON: "KUBECTL_GPU_NEURON_IMAGE",
}


class ImageChoice(msgspec.Struct, frozen=True):
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
        return ImageChoice(check_reference(flag, IMAGE_FLAGS[accelerator]), IMAGE_FLAGS[accelerator])
    var = IMAGE_ENV_VARS[accelerator]
    if env.get(var):
        return ImageChoice(check_reference(env[var], var), f"env {var}")
    from_config = _config_image(config or {}, accelerator, config_path)
    if from_config:
        return ImageChoice(check_reference(from_config, config_path), f"config {config_path}")
    return ImageChoice(DEFAULT_IMAGES[accelerator], "default")
