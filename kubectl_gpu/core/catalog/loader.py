"""The packaged catalog: reading `kubectl_gpu/data/*.json` (the package's only catalog I/O) and the
module-level lookups over it."""

from __future__ import annotations

from functools import cache
from typing import Any, Final

import orjson

from kubectl_gpu.core.catalog.bottlerocket import BottlerocketTable, OsImageInfo
from kubectl_gpu.core.catalog.catalog import Catalog
from kubectl_gpu.core.catalog.errors import CatalogError
from kubectl_gpu.core.catalog.providers import Provider
from kubectl_gpu.core.data_files import data_file

__all__ = [
    "gpu_compute_capabilities",
    "load_catalog",
    "other_provider_key",
    "parse_os_image",
    "read_data_files",
    "well_known_labels",
]

_DATA_FILES: Final = ("instance_types.json", "labels.json", "cuda_driver.json", "bottlerocket_nvidia.json")


def read_data_files() -> dict[str, dict[str, Any]]:
    """Parse the package's own data files (this module's only I/O), keyed by file name."""
    out: dict[str, dict[str, Any]] = {}
    for name in _DATA_FILES:
        data = orjson.loads(data_file(name))  # the same objects as `json.loads`, faster on every command
        if not isinstance(data, dict):
            raise CatalogError(f"{name}: top level is not an object")
        out[name] = data
    return out


@cache
def load_catalog() -> Catalog:
    """The packaged catalog, loaded once per process."""
    d = read_data_files()
    return Catalog.from_data(
        instance_types=d["instance_types.json"],
        labels=d["labels.json"],
        cuda=d["cuda_driver.json"],
        bottlerocket=d["bottlerocket_nvidia.json"],
    )


@cache
def gpu_compute_capabilities() -> dict[str, tuple[int, int]]:
    """CUDA compute capability per GPU name (the catalog's accelerator_name), from
    data/gpu_compute_capability.json (NVIDIA's CUDA GPUs page; the file names its source and date)."""
    data = orjson.loads(data_file("gpu_compute_capability.json"))
    table = data.get("compute_capability") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        raise CatalogError("gpu_compute_capability.json: no compute_capability mapping")
    out: dict[str, tuple[int, int]] = {}
    for name, text in table.items():
        major, _, minor = str(text).partition(".")
        out[str(name)] = (int(major), int(minor or 0))
    return out


def well_known_labels(provider: Provider) -> frozenset[str]:
    """Well-known label keys for ``provider`` in the packaged catalog."""
    return load_catalog().well_known_labels(provider)


def other_provider_key(key: str) -> str | None:
    """``key``'s counterpart under the other provider in the packaged catalog (see LabelTable)."""
    return load_catalog().other_provider_key(key)


def parse_os_image(os_image: str, table: BottlerocketTable | None = None) -> OsImageInfo:
    """Classify an osImage; uses the packaged Bottlerocket table unless ``table`` is given."""
    return (table if table is not None else load_catalog().bottlerocket).parse_os_image(os_image)
