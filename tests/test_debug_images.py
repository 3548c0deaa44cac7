"""The debug images stay in sync with the CLI: the collector they carry, their version, their references.

The Dockerfiles do not keep a copy of the collector: they COPY the packaged file (build context = the
repository root), so the script in the image is byte-identical to the text `kubectl gpu smi` sends.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

from kubectl_gpu import __version__
from kubectl_gpu.core.debugpod import (
    DEFAULT_IMAGES,
    IMAGE_ENV_VARS,
    PROJECT_IMAGES,
    PUBLIC_BASE_IMAGE,
    Accelerator,
)
from kubectl_gpu.core.debugpod.digests import check_reference, is_pinned

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "debug-images"
COLLECTOR = "kubectl_gpu/data/collector.sh"
NAMES = {Accelerator.NVIDIA: "nvidia", Accelerator.NEURON: "neuron"}


def dockerfile(accelerator: Accelerator) -> str:
    return (IMAGES / NAMES[accelerator] / "Dockerfile").read_text()


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with line continuations joined and comments dropped."""
    joined = re.sub(
        r"\\\n\s*", " ", "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    )
    out = []
    for line in joined.splitlines():
        if line.strip():
            word, _, rest = line.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


@pytest.mark.parametrize("accelerator", list(Accelerator))
def test_image_copies_the_packaged_collector(accelerator: Accelerator) -> None:
    copies = [args.split() for op, args in instructions(dockerfile(accelerator)) if op in ("COPY", "ADD")]
    assert copies == [[COLLECTOR, "/usr/local/share/kubectl-gpu/collector.sh"]]
    packaged = resources.files("kubectl_gpu.data").joinpath("collector.sh")
    assert Path(str(packaged)).resolve() == (ROOT / COLLECTOR).resolve()  # what the CLI sends is this file
    assert (ROOT / COLLECTOR).read_bytes().startswith(b"#!/bin/sh\n# kubectl-gpu collector")
    ignore = (IMAGES / NAMES[accelerator] / "Dockerfile.dockerignore").read_text().split()
    assert ignore[-2:] == ["*", f"!{COLLECTOR}"]  # the context carries only what is copied


def test_the_cli_sends_the_same_bytes() -> None:
    from kubectl_gpu.cli.debug import _collector_script

    assert _collector_script().encode() == (ROOT / COLLECTOR).read_bytes()


@pytest.mark.parametrize("accelerator", list(Accelerator))
def test_versions_and_default_references_agree(accelerator: Accelerator) -> None:
    ops = instructions(dockerfile(accelerator))
    assert ("ARG", f"VERSION={__version__}") in ops
    # The project's images are opt-in until a release publishes them; the default is a public base image.
    assert PROJECT_IMAGES[accelerator] == f"ghcr.io/kubectl-gpu/debug-{NAMES[accelerator]}:{__version__}"
    assert DEFAULT_IMAGES[accelerator] == PUBLIC_BASE_IMAGE != PROJECT_IMAGES[accelerator]
    readme = (IMAGES / NAMES[accelerator] / "README.md").read_text()
    assert PUBLIC_BASE_IMAGE in readme and "opt-in" in readme
    assert f"ghcr.io/kubectl-gpu/debug-{NAMES[accelerator]}:$VERSION" in readme  # the publish command
    for needle in (
        IMAGE_ENV_VARS[accelerator],
        "config.yaml",
        "--image" if accelerator is Accelerator.NVIDIA else "--neuron-image",
    ):
        assert needle in readme


#: The Neuron base as docker-library/repo-info records it (repos/amazonlinux/remote/2023.12.20260831.0.md at
#: 6ab49dc528cf58df88e941abde7910bc95633ec5: the OCI index of `amazonlinux:2023.12.20260831.0`).
AMAZONLINUX_2023 = (
    "public.ecr.aws/docker/library/amazonlinux:2023.12.20260831.0"
    "@sha256:74c545e3e04db388b00bd31d7cc5640d4e9c12058a6d72af938d113da3c82893"
)


def base_image(accelerator: Accelerator) -> str:
    (base,) = [args for op, args in instructions(dockerfile(accelerator)) if op == "FROM"]
    return base


def test_neuron_base_is_pinned_by_the_recorded_digest() -> None:
    base = base_image(Accelerator.NEURON)
    assert base == AMAZONLINUX_2023
    assert is_pinned(base)
    assert check_reference(base, "FROM") == base  # the CLI's own rule for a digest (sha256, 64 hex digits)
    readme = (IMAGES / "neuron" / "README.md").read_text()
    assert "amazonlinux:2023.12.20260831.0@sha256:74c545e3" in readme


#: The NVIDIA base: the multi-arch index of `nvidia/cuda:12.8.1-base-ubuntu24.04` as public lockfiles and
#: digest-pinned Dockerfiles record it (issue 41, item 3; the Dockerfile's comment says where from).
CUDA_BASE = "nvidia/cuda:12.8.1-base-ubuntu24.04@sha256:133c78a0575303be34164d0b90137a042172bdf60696af01a3c424ab402d86e2"


def test_nvidia_base_is_pinned_by_the_recorded_digest() -> None:
    base = base_image(Accelerator.NVIDIA)
    assert base == CUDA_BASE
    assert is_pinned(base) and check_reference(base, "FROM") == base
    assert CUDA_BASE in (IMAGES / "nvidia" / "README.md").read_text()


def test_nvidia_image_has_no_driver_and_the_tools() -> None:
    ops = instructions(dockerfile(Accelerator.NVIDIA))
    base = base_image(Accelerator.NVIDIA)
    assert re.fullmatch(r"nvidia/cuda:\d+\.\d+\.\d+-base-ubuntu\d+\.\d+(@sha256:[0-9a-f]{64})?", base)
    env = " ".join(args for op, args in ops if op == "ENV")
    assert "NVIDIA_DRIVER_CAPABILITIES=utility" in env and "NVIDIA_DISABLE_REQUIRE=1" in env
    run = " ".join(args for op, args in ops if op == "RUN")
    for package in ("pciutils", "nvme-cli", "mdadm", "util-linux", "iproute2"):
        assert re.search(rf"\b{package}\b", run)
    assert not re.search(r"nvidia-driver|libnvidia|nvidia-utils|cuda-toolkit", run)


def test_neuron_image_has_the_neuron_tools() -> None:
    ops = instructions(dockerfile(Accelerator.NEURON))
    text = " ".join(args for _, args in ops)
    assert "NEURON_TOOLS=aws-neuronx-tools" in text and "yum.repos.neuron.amazonaws.com" in text
    assert 'PATH="/opt/aws/neuron/bin:${PATH}"' in text
    assert "aws-neuronx-dkms" not in text  # no driver in the image
