"""Where each data file came from: the sources and reference digests copied in by the build script."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

import msgspec

from kubectl_gpu.core.catalog.reader import Reader
from kubectl_gpu.core.compared import hashed_without

__all__ = ["Provenance"]

_EMPTY: Final[Mapping[str, str]] = MappingProxyType({})


@hashed_without("reference_sha256")
class Provenance(msgspec.Struct, frozen=True):
    """Where one data file came from (copied from the reference files, never written by hand)."""

    file: str
    source: tuple[str, ...]
    retrieved: str
    notes: tuple[str, ...]
    reference_sha256: Mapping[str, str]

    @classmethod
    def from_data(cls, file: str, data: Mapping[str, Any]) -> Provenance:
        o = Reader(data, file)
        if not o.has("source"):
            return cls(file, (), "", (), _EMPTY)
        shas = (
            {d.text("file"): d.text("sha256") for d in o.objs("derived_from")}
            if o.has("derived_from")
            else {}
        )
        return cls(file, o.texts("source"), o.text("retrieved"), o.texts("notes"), MappingProxyType(shas))
