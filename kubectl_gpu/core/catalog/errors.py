"""The one exception every catalog lookup and data-file read raises."""

from __future__ import annotations

from kubectl_gpu.core.errors import InvalidInput

__all__ = ["CatalogError"]


class CatalogError(InvalidInput):
    """Bad input to a catalog lookup or a malformed data file; the message is one line."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))
