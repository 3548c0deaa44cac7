"""CUDA need of a workload: image tags (table-driven), the container release table, pod-level precedence."""

from __future__ import annotations

import re
from typing import Any

import pytest

from kubectl_gpu.core.analyses.drivers.workload_cuda import (
    Confidence,
    cuda_from_image,
    load_release_table,
    normalize_cuda,
    split_image,
    workload_cuda,
)
from kubectl_gpu.core.catalog.versions import version_key
from kubectl_gpu.core.k8s.parse import parse_pod
from tests.helpers import pod

TAG, R, H = Confidence.IMAGE_TAG, Confidence.RELEASE_TABLE, Confidence.HEURISTIC

# (image, expected CUDA or None, confidence or None, at_least)
IMAGE_CASES: list[tuple[str, str | None, Confidence | None, bool]] = [
    # NVIDIA CUDA base images: the tag starts with the toolkit version.
    ("nvidia/cuda:12.4.1-runtime-ubuntu22.04", "12.4.1", TAG, False),
    ("nvidia/cuda:12.8.0-runtime-ubuntu22.04", "12.8.0", TAG, False),
    ("nvidia/cuda:13.0.0-base-ubuntu24.04", "13.0.0", TAG, False),
    ("docker.io/nvidia/cuda:12.2.2-cudnn8-devel-ubuntu22.04", "12.2.2", TAG, False),
    ("index.docker.io/nvidia/cuda:11.8.0-base-ubuntu20.04", "11.8.0", TAG, False),
    ("nvcr.io/nvidia/cuda:12.6.3-devel-ubuntu24.04", "12.6.3", TAG, False),
    ("nvidia/cuda:12.9.1-cudnn-runtime-ubi9@sha256:" + "a" * 64, "12.9.1", TAG, False),
    ("nvidia/cuda:12.1-base", "12.1", TAG, False),
    ("nvidia/cuda:latest", None, None, False),
    # NGC PyTorch YY.MM through the release table (exact rows, then "at least" between rows).
    ("nvcr.io/nvidia/pytorch:25.01-py3", "12.8", R, False),
    ("nvcr.io/nvidia/pytorch:25.02-py3", "12.8.0", R, False),
    ("nvcr.io/nvidia/pytorch:25.10-py3", "13.0.2", R, False),
    ("nvcr.io/nvidia/pytorch:25.12-py3", "13.1.0", R, False),
    ("nvcr.io/nvidia/pytorch:24.06-py3", "12.5", R, False),
    ("nvcr.io/nvidia/pytorch:21.10-py3", "11.4.2", R, False),
    ("nvcr.io/nvidia/pytorch:24.10-py3", "12.5", H, True),
    ("nvcr.io/nvidia/pytorch:25.06-py3", "12.8.0", H, True),
    ("nvcr.io/nvidia/pytorch:26.03-py3", "13.1.0", H, True),
    ("nvcr.io/nvidia/pytorch:24.12-py3-igpu", "12.5", H, True),
    ("nvcr.io/nvidia/pytorch:19.10-py3", None, None, False),  # older than every verified row
    ("nvcr.io/nvidia/tensorflow:21.11-tf2-py3", "11.5.0", R, False),
    ("nvcr.io/nvidia/tensorflow:21.12-tf1-py3", "11.5.0", R, False),
    ("nvcr.io/nvidia/mxnet:24.05-py3", "12.4.1", R, False),
    # Triton: plain, TRT-LLM and vLLM images are different tables.
    ("nvcr.io/nvidia/tritonserver:23.08-py3", "12.2.1", R, False),
    ("nvcr.io/nvidia/tritonserver:24.04-py3", "12.4", R, False),
    ("nvcr.io/nvidia/tritonserver:25.01-py3", "12.4", H, True),
    ("nvcr.io/nvidia/tritonserver:25.01-trtllm-python-py3", "12.8.0", R, False),
    ("nvcr.io/nvidia/tritonserver:25.03-trtllm-python-py3", "12.8.1", R, False),
    ("nvcr.io/nvidia/tritonserver:24.12-trtllm-python-py3", "12.6.3", R, False),
    ("nvcr.io/nvidia/tritonserver:25.10-vllm-python-py3", "13.0.2", R, False),
    ("nvcr.io/nvidia/tritonserver:26.08-vllm-python-py3", "13.4.1", R, False),
    ("nvcr.io/nvidia/tritonserver:24.05-vllm-python-py3", "12.4.1", R, False),
    # vLLM and TGI releases.
    ("vllm/vllm-openai:v0.9.0", "12.8", R, False),
    ("vllm/vllm-openai:v0.5.0", "12.4", R, False),
    ("vllm/vllm-openai:v0.14.1", "12.9", R, False),
    ("vllm/vllm-openai:v0.11.0", "12.8", H, True),
    ("docker.io/vllm/vllm-openai:v0.6.3.post1", "12.4", H, True),
    ("vllm/vllm-openai:v0.20.0", "12.9", H, True),
    ("vllm/vllm-openai:v0.4.2", None, None, False),
    ("vllm/vllm-openai:latest", None, None, False),
    ("ghcr.io/huggingface/text-generation-inference:3.3.1", "12.8", R, False),
    ("ghcr.io/huggingface/text-generation-inference:1.1.1", "11.8", R, False),
    ("ghcr.io/huggingface/text-generation-inference:2.4.1", "12.1", H, True),
    ("ghcr.io/huggingface/text-generation-inference:3.3.4", "12.8", H, True),
    # Tag fragments in any other image: heuristic.
    ("pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime", "12.4", H, False),
    ("pytorch/pytorch:2.7.1-cuda12.8-cudnn9-devel", "12.8", H, False),
    ("pytorch/pytorch:2.9.0-cuda13.0-cudnn9-runtime", "13.0", H, False),
    ("runpod/pytorch:0.7.0-dev-cu1241-torch240-ubuntu2204", "12.4.1", H, False),
    ("registry.example.com/ml/train:torch2.1.0-cu121", "12.1", H, False),
    ("registry.example.com/ml/train:torch2.4.0+cu118", "11.8", H, False),
    ("ghcr.io/org/infer:cu128-py312", "12.8", H, False),
    ("ghcr.io/org/infer:1.0-cu130", "13.0", H, False),
    ("quay.io/jupyter/pytorch-notebook:cuda12-python-3.12", "12.0", H, False),
    ("quay.io/jupyter/pytorch-notebook:cuda-12.6.3", "12.6.3", H, False),
    ("ghcr.io/org/app:cuda_11.8-runtime", "11.8", H, False),
    ("lmsysorg/sglang:v0.4.6-cu124", "12.4", H, False),
    # Nothing to say.
    ("nginx:1.27.3", None, None, False),
    ("registry.example.com/team/app:2026.11.27-3f9c2a1", None, None, False),
    (
        "public.ecr.aws/neuron/pytorch-inference-neuronx:2.5.1-neuronx-py310-sdk2.21.0-ubuntu22.04",
        None,
        None,
        False,
    ),
    ("nvidia/k8s-device-plugin:v0.17.0-cudnn", None, None, False),  # "cudnn" is not a CUDA version
    ("localhost:5000/cuda-app", None, None, False),  # no tag
    ("example.com/documents:docu118", None, None, False),  # "cu" inside a word
]


@pytest.mark.parametrize(("image", "cuda", "confidence", "at_least"), IMAGE_CASES)
def test_cuda_from_image(image: str, cuda: str | None, confidence: Confidence | None, at_least: bool) -> None:
    found = cuda_from_image(image)
    if cuda is None:
        assert found.need is None, found.need
        return
    assert found.need is not None, found.note
    assert found.need.version == cuda
    assert found.need.confidence is confidence
    assert found.need.at_least is at_least
    assert found.need.image == image


def test_release_rows_carry_a_reference() -> None:
    found = cuda_from_image("nvcr.io/nvidia/tritonserver:25.03-trtllm-python-py3")
    assert found.need is not None
    assert found.need.reference is not None and "compatibility.md" in found.need.reference
    assert "primary source" in found.need.source


def test_unknown_tags_of_known_images_say_why() -> None:
    assert "not a vLLM" in (cuda_from_image("vllm/vllm-openai:latest").note or "")
    assert "older than every verified" in (cuda_from_image("nvcr.io/nvidia/pytorch:19.10-py3").note or "")
    assert "no tag" in (cuda_from_image("localhost:5000/cuda-app").note or "")


@pytest.mark.parametrize(
    ("image", "repo", "tag"),
    [
        ("nvcr.io/nvidia/pytorch:25.01-py3", "nvcr.io/nvidia/pytorch", "25.01-py3"),
        ("docker.io/library/ubuntu:24.04", "ubuntu", "24.04"),
        ("docker.io/vllm/vllm-openai:v0.9.0", "vllm/vllm-openai", "v0.9.0"),
        ("localhost:5000/app", "localhost:5000/app", None),
        ("localhost:5000/app:1.2", "localhost:5000/app", "1.2"),
        ("nvidia/cuda@sha256:" + "b" * 64, "nvidia/cuda", None),
    ],
)
def test_split_image(image: str, repo: str, tag: str | None) -> None:
    assert split_image(image) == (repo, tag)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12.8", "12.8"),
        ("12.8.0.38", "12.8.0"),
        ("13.0.2.006", "13.0.2"),
        ("v12.4", "12.4"),
        ("12", "12.0"),
        (" 11.8 ", "11.8"),
        ("latest", None),
        ("1.2", None),  # not a CUDA major
        ("12.x", None),
        ("", None),
    ],
)
def test_normalize_cuda(text: str, expected: str | None) -> None:
    assert normalize_cuda(text) == expected


# ----------------------------------------------------------------------------------------------- the table


def test_release_table_is_sourced_and_sorted() -> None:
    table = load_release_table()
    assert table.unverified, "the file must say what is not verified"
    names = [f.name for f in table.families]
    assert len(names) == len(set(names))
    for family in table.families:
        assert family.rows, family.name
        keys = [r.key for r in family.rows]
        assert keys == sorted(keys) and len(keys) == len(set(keys)), family.name
        for row in family.rows:
            assert re.match(r"https://", row.source), (family.name, row.release)
            assert row.verification in ("primary", "secondary")
            assert row.evidence
            assert normalize_cuda(row.cuda) is not None


def test_triton_tables_are_complete_where_the_source_is() -> None:
    table = {f.name: f for f in load_release_table().families}
    trtllm = [r.release for r in table["ngc-tritonserver-trtllm"].rows]
    vllm = [r.release for r in table["ngc-tritonserver-vllm"].rows]
    months = [f"{y}.{m:02d}" for y in (24, 25, 26) for m in range(1, 13)]
    assert trtllm == [m for m in months if "24.04" <= m <= "26.07"]
    assert vllm == [m for m in months if "24.04" <= m <= "26.08"]


def test_cuda_in_a_family_never_goes_back() -> None:
    for family in load_release_table().families:
        cudas = [version_key(normalize_cuda(r.cuda) or "") for r in family.rows]
        assert cudas == sorted(cudas), family.name  # the "at least" reading depends on it


# ----------------------------------------------------------------------------------------------- pods


def _pod(**kw: Any) -> Any:
    return parse_pod(pod("p", "ml", **kw))


def test_annotation_wins_over_everything() -> None:
    w = workload_cuda(
        _pod(
            annotations={"kubectl-gpu.io/cuda": "12.8"},
            image="nvidia/cuda:13.0.0-base-ubuntu24.04",
            env=[{"name": "CUDA_VERSION", "value": "13.0.0"}],
        )
    )
    assert w.need is not None and (w.need.version, w.need.confidence) == ("12.8", Confidence.DECLARED)


def test_bad_annotation_is_ignored_with_a_note() -> None:
    w = workload_cuda(_pod(annotations={"kubectl-gpu.io/cuda": "latest"}, image="nvidia/cuda:12.4.1-base"))
    assert w.need is not None and w.need.confidence is Confidence.IMAGE_TAG
    assert any("not a CUDA version" in n for n in w.notes)


def test_env_wins_over_the_image() -> None:
    w = workload_cuda(
        _pod(image="nvidia/cuda:12.4.1-base", env=[{"name": "CUDA_VERSION", "value": "12.6.3"}])
    )
    assert w.need is not None and (w.need.version, w.need.confidence) == ("12.6.3", Confidence.ENV)


def test_redacted_env_says_so_and_falls_back_to_the_image() -> None:
    w = workload_cuda(
        _pod(image="nvcr.io/nvidia/pytorch:25.01-py3", env=[{"name": "CUDA_VERSION", "value": "<redacted>"}])
    )
    assert w.redacted
    assert any("redacted" in n for n in w.notes)
    assert w.need is not None and w.need.confidence is Confidence.RELEASE_TABLE


def test_redacted_env_without_image_hint_has_no_need() -> None:
    w = workload_cuda(
        _pod(image="registry.example.com/app:1", env=[{"name": "CUDA_VERSION", "value": "<redacted>"}])
    )
    assert w.redacted and w.need is None


def test_value_from_env_is_noted() -> None:
    raw = pod("p", "ml", image="registry.example.com/app:1")
    raw["spec"]["containers"][0]["env"] = [
        {"name": "CUDA_VERSION", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "cuda"}}}
    ]
    w = workload_cuda(parse_pod(raw))
    assert w.need is None and any("valueFrom" in n for n in w.notes)


def test_most_demanding_gpu_container_wins() -> None:
    raw = pod("p", "ml", image="nvidia/cuda:12.4.1-base", requests={"nvidia.com/gpu": "1"})
    raw["spec"]["containers"].append(
        {
            "name": "sidecar",
            "image": "vllm/vllm-openai:v0.9.0",
            "resources": {"limits": {"nvidia.com/gpu": "1"}},
        }
    )
    raw["spec"]["containers"].append({"name": "logs", "image": "nvidia/cuda:13.0.0-base", "resources": {}})
    w = workload_cuda(parse_pod(raw))
    # The CPU-only "logs" container is not considered when some container asks for a GPU.
    assert w.need is not None and (w.need.version, w.need.container) == ("12.8", "sidecar")
    assert len(w.per_container) == 2


def test_no_need_when_nothing_says() -> None:
    w = workload_cuda(_pod(image="registry.example.com/app:2026.11.27"))
    assert w.need is None and not w.redacted
