"""The two ways a cluster gets its nodes: EKS Auto Mode ("auto") and self-managed Karpenter ("karpenter")."""

from __future__ import annotations

from typing import Final, Literal, TypeGuard

from kubectl_gpu.core.catalog.errors import CatalogError

__all__ = ["PROVIDERS", "Provider", "check_provider"]

Provider = Literal["auto", "karpenter"]
PROVIDERS: Final[tuple[Provider, ...]] = ("auto", "karpenter")


def _is_provider(value: str) -> TypeGuard[Provider]:
    return value in PROVIDERS


def check_provider(value: str) -> Provider:
    if not _is_provider(value):
        raise CatalogError(f"unknown provider {value!r}: expected one of {', '.join(PROVIDERS)}")
    return value
