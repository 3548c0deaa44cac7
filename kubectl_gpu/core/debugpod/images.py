"""Which debug image: the flag, else the environment, else the config file, else this version's default."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kubectl_gpu import __version__
from kubectl_gpu.core.debugpod.digests import DEFAULT_DIGESTS, check_reference, pin
from kubectl_gpu.core.debugpod.kinds import Accelerator

__all__ = ["DEFAULT_IMAGES", "IMAGE_ENV_VARS", "ImageChoice", "resolve_image"]

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
        where = "--image" if accelerator is Accelerator.NVIDIA else "--neuron-image"
        return ImageChoice(check_reference(flag, where), where)
    var = IMAGE_ENV_VARS[accelerator]
    if env.get(var):
        return ImageChoice(check_reference(env[var], var), f"env {var}")
    from_config = _config_image(config or {}, accelerator, config_path)
    if from_config:
        return ImageChoice(check_reference(from_config, config_path), f"config {config_path}")
    return ImageChoice(pin(DEFAULT_IMAGES[accelerator], DEFAULT_DIGESTS[accelerator]), "default")
