"""Image references pinned by digest: what `name:tag@sha256:<hex>` must look like.

A tag can be moved to other bytes; a digest cannot. Every way of choosing the image (`--image`, the
environment, the config file) takes a reference with a digest, checked here, and sends it to the kubelet
unchanged. The default image (`images.py`) is pinned in its reference.
"""

from __future__ import annotations

from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = ["check_reference", "is_pinned"]

_DIGEST = lazy_pattern(r"(sha256:[0-9a-f]{64}|sha512:[0-9a-f]{128})")


def is_pinned(reference: str) -> bool:
    """Whether the reference names its image by digest (`...@sha256:<hex>`)."""
    _, at, digest = reference.rpartition("@")
    return bool(at) and _DIGEST.fullmatch(digest) is not None


def check_reference(reference: str, where: str) -> str:
    """`reference`, or ValueError naming `where` when it is empty, holds whitespace, or has a malformed digest."""
    if not reference or any(c.isspace() for c in reference):
        raise ValueError(f"{where}: not an image reference: {reference!r}")
    if "@" in reference and not is_pinned(reference):
        digest = reference.rpartition("@")[2]
        raise ValueError(
            f"{where}: {reference!r}: the digest {digest!r} is not sha256:<64 hex digits> (or sha512:<128>)"
        )
    return reference
