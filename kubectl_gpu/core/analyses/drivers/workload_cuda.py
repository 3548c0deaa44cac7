"""Which CUDA version a workload needs, read from its pod spec; never from the network.

Sources, strongest first (each result says which one it came from and how sure it is):

1. ``declared``: the pod annotation ``kubectl-gpu.io/cuda: "12.8"``.
2. ``env``: a literal ``CUDA_VERSION`` env var in a container spec. Snapshots redact env values to
   ``<redacted>``; the result then says so and falls through to the image.
3. ``image-tag``: the tag of an NVIDIA CUDA base image (``nvidia/cuda:12.4.1-runtime-ubuntu22.04``).
4. ``release-table``: a release of a well-known image looked up in ``data/container_releases.json``
   (NGC PyTorch/TensorFlow/Triton ``YY.MM``, vLLM, TGI), each row with its public source.
5. ``heuristic``: a tag between two verified releases (read as *at least* the earlier one's CUDA), and
   ``cu124`` / ``cuda12.4`` fragments in any other tag.

Across containers the most demanding need wins: every container runs on the same node driver.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from enum import StrEnum
from functools import cache
from typing import Any

import msgspec

from kubectl_gpu.core.catalog.versions import VersionKey, version_key
from kubectl_gpu.core.data_files import data_file
from kubectl_gpu.core.k8s.models import Container, Pod
from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = [
    "CUDA_ANNOTATION",
    "REDACTED",
    "Confidence",
    "CudaNeed",
    "ImageCuda",
    "ReleaseFamily",
    "ReleaseRow",
    "ReleaseTable",
    "WorkloadCuda",
    "cuda_from_image",
    "load_release_table",
    "normalize_cuda",
    "split_image",
    "workload_cuda",
]

CUDA_ANNOTATION = "kubectl-gpu.io/cuda"
REDACTED = "<redacted>"


class Confidence(StrEnum):
    DECLARED = "declared"
    ENV = "env"
    IMAGE_TAG = "image-tag"
    RELEASE_TABLE = "release-table"
    HEURISTIC = "heuristic"

    @property
    def rank(self) -> int:
        """0 for the strongest (declared) to 4 for the weakest (heuristic)."""
        return list(Confidence).index(self)


_CUDA_TEXT = lazy_pattern(r"\d{1,2}(?:\.\d{1,3}){0,3}")


def normalize_cuda(text: str) -> str | None:
    """``12.8.0.38`` -> ``12.8.0``, ``12.4`` -> ``12.4``, ``12`` -> ``12.0``; None if not a CUDA version.

    Build numbers (the 4th component NVIDIA prints in container tables) are dropped: the driver table
    lists major.minor[.patch] releases.
    """
    value = text.strip().lstrip("vV")
    if not _CUDA_TEXT.fullmatch(value):
        return None
    parts = value.split(".")[:3]
    if len(parts) == 1:
        parts.append("0")
    major = int(parts[0])
    if not 7 <= major <= 30:
        return None
    return ".".join(str(int(p)) for p in parts)


class CudaNeed(msgspec.Struct, frozen=True):
    """The CUDA version one container (or the pod, when declared) needs, and why we think so."""

    version: str  # normalised, e.g. "12.8" or "12.8.1"
    confidence: Confidence
    source: str  # one line: where it was read
    container: str | None = None
    image: str | None = None
    at_least: bool = False  # a lower bound (release between two verified table rows)
    reference: str | None = None  # URL of the table row's source

    @property
    def key(self) -> VersionKey:
        return version_key(self.version) or (0,)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "confidence": str(self.confidence),
            "atLeast": self.at_least,
            "source": self.source,
            "container": self.container,
            "image": self.image,
            "reference": self.reference,
        }


class WorkloadCuda(msgspec.Struct, frozen=True):
    """A pod's CUDA need: the most demanding container need (or the declared one), plus what was noticed."""

    need: CudaNeed | None
    per_container: tuple[CudaNeed, ...] = ()
    notes: tuple[str, ...] = ()
    redacted: bool = False  # a CUDA_VERSION env value was redacted in the snapshot

    def to_dict(self) -> dict[str, Any]:
        return {
            "need": self.need.to_dict() if self.need else None,
            "containers": [n.to_dict() for n in self.per_container],
            "notes": list(self.notes),
            "redacted": self.redacted,
        }


# --------------------------------------------------------------------------------------------- release table


class ReleaseRow(msgspec.Struct, frozen=True):
    release: str
    cuda: str  # as the source prints it
    source: str
    evidence: str
    verification: str  # primary | secondary

    @property
    def key(self) -> VersionKey:
        return version_key(self.release) or (0,)


class ReleaseFamily(msgspec.Struct, frozen=True):
    name: str
    title: str
    repositories: tuple[str, ...]
    tag: re.Pattern[str]
    rows: tuple[ReleaseRow, ...]  # sorted by release

    def lookup(self, release: str) -> tuple[ReleaseRow, bool] | None:
        """(row, exact) for ``release``: the row itself, else the nearest earlier verified row."""
        key = version_key(release)
        if key is None:
            return None
        earlier = [r for r in self.rows if r.key <= key]
        if not earlier:
            return None
        row = earlier[-1]
        return row, row.key == key


class ReleaseTable(msgspec.Struct, frozen=True):
    families: tuple[ReleaseFamily, ...]
    unverified: tuple[str, ...] = ()
    retrieved: str = ""

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> ReleaseTable:
        families: list[ReleaseFamily] = []
        for fam in data.get("families", []):
            rows = [
                ReleaseRow(
                    release=str(r["release"]),
                    cuda=str(r["cuda"]),
                    source=str(r["source"]),
                    evidence=str(r.get("evidence", "")),
                    verification=str(r.get("verification", "")),
                )
                for r in fam["rows"]
            ]
            for row in rows:
                if version_key(row.release) is None or normalize_cuda(row.cuda) is None:
                    raise ValueError(
                        f"container_releases.json {fam['name']}: bad row {row.release}/{row.cuda}"
                    )
            rows.sort(key=lambda r: r.key)
            families.append(
                ReleaseFamily(
                    name=str(fam["name"]),
                    title=str(fam.get("title", fam["name"])),
                    repositories=tuple(str(r) for r in fam["repositories"]),
                    tag=re.compile(str(fam["tag"])),
                    rows=tuple(rows),
                )
            )
        return cls(
            tuple(families),
            tuple(str(u) for u in data.get("unverified", [])),
            str(data.get("retrieved", "")),
        )


@cache
def load_release_table() -> ReleaseTable:
    """The packaged container release table (this module's only I/O: the package's own data)."""
    raw = data_file("container_releases.json")
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError("container_releases.json: top level is not an object")
    return ReleaseTable.from_data(data)


# --------------------------------------------------------------------------------------------- images

_DOCKER_PREFIXES = ("docker.io/library/", "index.docker.io/library/", "docker.io/", "index.docker.io/")
_CUDA_BASE_REPOS = frozenset({"nvidia/cuda", "nvcr.io/nvidia/cuda"})
_CUDA_BASE_TAG = lazy_pattern(r"^(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)(?:$|-)")
# cu118, cu124, cu1241, +cu121; not "cudnn", not inside a word or a longer number.
_CU_FRAGMENT = lazy_pattern(r"(?:^|[^a-z0-9])cu(?P<d>\d{2,4})(?![0-9])")
# cuda12.4, cuda-12.4.1, cuda_12, cuda12
_CUDA_FRAGMENT = lazy_pattern(r"(?:^|[^a-z0-9])cuda[-_]?(?P<v>\d{1,2}(?:\.\d{1,3}){0,2})(?![0-9.]*\d)")


def split_image(image: str) -> tuple[str, str | None]:
    """``(repository, tag)`` of an image reference, digest dropped, Docker Hub prefixes removed.

    ``nvcr.io/nvidia/pytorch:25.01-py3`` -> ``("nvcr.io/nvidia/pytorch", "25.01-py3")``;
    ``localhost:5000/app`` -> ``("localhost:5000/app", None)``.
    """
    ref = image.strip().split("@", 1)[0]
    repo, tag = ref, None
    slash = ref.rfind("/")
    colon = ref.rfind(":")
    if colon > slash:
        repo, tag = ref[:colon], ref[colon + 1 :] or None
    lowered = repo.lower()
    for prefix in _DOCKER_PREFIXES:
        if lowered.startswith(prefix):
            lowered = lowered[len(prefix) :]
            break
    return lowered, tag


def _compact_cu(digits: str) -> str | None:
    """``118`` -> 11.8, ``124`` -> 12.4, ``1241`` -> 12.4.1, ``92`` -> 9.2, ``12`` -> 12.0."""
    if len(digits) == 2:
        return normalize_cuda(digits if digits.startswith("1") else f"{digits[0]}.{digits[1]}")
    if len(digits) == 3:
        return normalize_cuda(f"{digits[:2]}.{digits[2]}")
    return normalize_cuda(f"{digits[:2]}.{digits[2]}.{digits[3]}")


class ImageCuda(msgspec.Struct, frozen=True):
    """What an image reference says about CUDA: a need, or why it says nothing."""

    need: CudaNeed | None
    note: str | None = None


def _from_release_table(
    image: str, repo: str, tag: str, table: ReleaseTable, container: str | None
) -> ImageCuda | None:
    """A release of a well-known image found in the table (or the nearest earlier one); None when no family
    of the table has this repository and tag form."""
    for family in table.families:
        if repo not in family.repositories:
            continue
        m = family.tag.match(tag)
        if m is None:
            continue
        found = family.lookup(m.group("release"))
        if found is None:
            return ImageCuda(
                None,
                f"image {image}: {family.title} {m.group('release')} is older than every verified "
                f"release in the table",
            )
        row, exact = found
        version = normalize_cuda(row.cuda)
        assert version is not None  # checked when the table was loaded
        if exact:
            need = CudaNeed(
                version,
                Confidence.RELEASE_TABLE,
                f"{family.title} {row.release} is built on CUDA {row.cuda} ({row.verification} source)",
                container,
                image,
                reference=row.source,
            )
        else:
            need = CudaNeed(
                version,
                Confidence.HEURISTIC,
                f"{family.title} {m.group('release')} is not in the table; the nearest earlier verified "
                f"release {row.release} is built on CUDA {row.cuda}, so at least that",
                container,
                image,
                at_least=True,
                reference=row.source,
            )
        return ImageCuda(need)
    return None


def _from_tag_fragment(image: str, repo: str, tag: str, container: str | None) -> ImageCuda | None:
    """A `cuda12.4` or `cu124` fragment anywhere in the tag (a heuristic)."""
    lowered = tag.lower()
    m_cuda = _CUDA_FRAGMENT.search(lowered)
    if m_cuda is not None:
        version = normalize_cuda(m_cuda.group("v"))
        if version:
            text = f"tag fragment '{m_cuda.group(0).lstrip('-_.+:')}' in {repo}:{tag}"
            return ImageCuda(CudaNeed(version, Confidence.HEURISTIC, text, container, image))
    m_cu = _CU_FRAGMENT.search(lowered)
    if m_cu is not None:
        version = _compact_cu(m_cu.group("d"))
        if version:
            text = f"tag fragment 'cu{m_cu.group('d')}' in {repo}:{tag}"
            return ImageCuda(CudaNeed(version, Confidence.HEURISTIC, text, container, image))
    return None


def cuda_from_image(
    image: str, table: ReleaseTable | None = None, *, container: str | None = None
) -> ImageCuda:
    """The CUDA an image needs, from its tag alone (see the module docstring for the order)."""
    table = table if table is not None else load_release_table()
    repo, tag = split_image(image)
    if tag is None:
        return ImageCuda(None, f"image {image} has no tag (implicitly :latest); its CUDA is unknown")
    if repo in _CUDA_BASE_REPOS:
        m = _CUDA_BASE_TAG.match(tag)
        version = normalize_cuda(m.group("v")) if m else None
        if version:
            return ImageCuda(
                CudaNeed(version, Confidence.IMAGE_TAG, f"image tag {repo}:{tag}", container, image)
            )
        return ImageCuda(None, f"image {image}: tag does not start with a CUDA version")
    found = _from_release_table(image, repo, tag, table, container)
    if found is None:
        found = _from_tag_fragment(image, repo, tag, container)
    if found is not None:
        return found
    known = [f for f in table.families if repo in f.repositories]
    if known:
        return ImageCuda(
            None, f"image {image}: tag {tag!r} is not a {known[0].title} release; its CUDA is unknown"
        )
    return ImageCuda(None)


# --------------------------------------------------------------------------------------------- pods


def _wants_gpu(container: Container) -> bool:
    return any(name.startswith("nvidia.com/") for name in container.resource_names)


def _env_need(container: Container, name: str) -> tuple[CudaNeed | None, str | None, bool]:
    if "CUDA_VERSION" not in container.env:
        return None, None, False
    value = container.env["CUDA_VERSION"]
    if value is None:
        return (
            None,
            f"container {name}: CUDA_VERSION comes from valueFrom; its value is not in the spec",
            False,
        )
    if value == REDACTED:
        return (
            None,
            f"container {name}: CUDA_VERSION is set but this snapshot redacted its value "
            "(capture with --no-redact, or declare kubectl-gpu.io/cuda)",
            True,
        )
    version = normalize_cuda(value)
    if version is None:
        return None, f"container {name}: CUDA_VERSION={value!r} is not a CUDA version", False
    return (
        CudaNeed(version, Confidence.ENV, f"env CUDA_VERSION={value} in container {name}", name),
        None,
        False,
    )


def _pick(needs: Sequence[CudaNeed]) -> CudaNeed | None:
    """The most demanding need; on a tie, the most certain one."""
    if not needs:
        return None
    return max(needs, key=lambda n: (n.key, -n.confidence.rank))


def workload_cuda(
    pod: Pod, table: ReleaseTable | None = None, images: dict[tuple[str, str], ImageCuda] | None = None
) -> WorkloadCuda:
    """The CUDA a pod needs (see the module docstring); ``need`` is None when nothing says. `images`, when
    given, keeps what each (image, container name) needs for the next pod that runs it (one `table`)."""
    table = table if table is not None else load_release_table()
    images = {} if images is None else images
    notes: list[str] = []
    declared = pod.meta.annotations.get(CUDA_ANNOTATION)
    if declared is not None:
        version = normalize_cuda(declared)
        if version is not None:
            need = CudaNeed(version, Confidence.DECLARED, f"annotation {CUDA_ANNOTATION}={declared}")
            return WorkloadCuda(need, (need,))
        notes.append(f"annotation {CUDA_ANNOTATION}={declared!r} is not a CUDA version; ignored")
    containers = pod.containers
    gpu_containers = [c for c in containers if _wants_gpu(c)]
    considered = gpu_containers or containers
    per: list[CudaNeed] = []
    redacted = False
    for container in considered:
        name = container.name if container.name is not None else "?"
        env_need, env_note, was_redacted = _env_need(container, name)
        redacted = redacted or was_redacted
        if env_note:
            notes.append(env_note)
        if env_need is not None:
            per.append(env_need)
            continue
        image = container.image
        if image is None:
            continue
        found = images.get((image, name))
        if found is None:
            found = images[(image, name)] = cuda_from_image(image, table, container=name)
        if found.note:
            notes.append(f"container {name}: {found.note}")
        if found.need is not None:
            per.append(found.need)
    return WorkloadCuda(_pick(per), tuple(per), tuple(notes), redacted)
