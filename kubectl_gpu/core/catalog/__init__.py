"""Typed catalogs: GPU/accelerator instance types and their node labels, NVIDIA driver -> CUDA, Bottlerocket.

The tables are the package data files ``kubectl_gpu/data/*.json``, generated from the research
reference by ``scripts/build_catalogs.py``. This package only reads them (``loader``,
through ``kubectl_gpu.core.data_files``) and offers pure lookups; every table can also be built from
plain dicts with its ``from_data`` constructor, which is what the tests do.

Modules: ``instance_types`` (EC2 types), ``labels`` (label keys per provider), ``label_values`` (the
values a type implies), ``cuda`` (driver -> CUDA), ``bottlerocket`` (release -> driver, osImage),
``catalog`` (``Catalog``, which ties them together), ``loader`` (the packaged data files).
"""

from kubectl_gpu.core.catalog.bottlerocket import (
    BottlerocketRelease,
    BottlerocketTable,
    DriverInference,
    OsImageInfo,
    OsImageStream,
)
from kubectl_gpu.core.catalog.catalog import Catalog
from kubectl_gpu.core.catalog.cuda import (
    Compatibility,
    CompatLevel,
    CudaCeiling,
    CudaRow,
    CudaTable,
    MinorCompatFamily,
)
from kubectl_gpu.core.catalog.errors import CatalogError
from kubectl_gpu.core.catalog.instance_types import InstanceType, parse_instance_type_name
from kubectl_gpu.core.catalog.labels import LabelSpec, LabelTable
from kubectl_gpu.core.catalog.loader import (
    load_catalog,
    other_provider_key,
    parse_os_image,
    well_known_labels,
)
from kubectl_gpu.core.catalog.loader import read_data_files as read_data_files
from kubectl_gpu.core.catalog.provenance import Provenance
from kubectl_gpu.core.catalog.providers import PROVIDERS, Provider

__all__ = [
    "PROVIDERS",
    "BottlerocketRelease",
    "BottlerocketTable",
    "Catalog",
    "CatalogError",
    "CompatLevel",
    "Compatibility",
    "CudaCeiling",
    "CudaRow",
    "CudaTable",
    "DriverInference",
    "InstanceType",
    "LabelSpec",
    "LabelTable",
    "MinorCompatFamily",
    "OsImageInfo",
    "OsImageStream",
    "Provenance",
    "Provider",
    "load_catalog",
    "other_provider_key",
    "parse_instance_type_name",
    "parse_os_image",
    "well_known_labels",
]
