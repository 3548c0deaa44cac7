"""Typed catalogs: GPU/accelerator instance types and their node labels, NVIDIA driver -> CUDA, Bottlerocket.

The tables are the package data files ``kubectl_gpu/data/*.json``, generated from the research
reference by ``scripts/build_catalogs.py``. This module only reads them (through
``importlib.resources``) and offers pure lookups; every table can also be built from plain dicts
with its ``from_data`` constructor, which is what the tests do.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from importlib.resources import files
from types import MappingProxyType
from typing import Any, Final, Literal, TypeGuard

from kubectl_gpu.core.versions import VersionKey, version_key

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

Provider = Literal["auto", "karpenter"]
PROVIDERS: Final[tuple[Provider, ...]] = ("auto", "karpenter")

_EMPTY: Final[Mapping[str, str]] = MappingProxyType({})


class CatalogError(ValueError):
    """Bad input to a catalog lookup or a malformed data file; the message is one line."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))


def _is_provider(value: str) -> TypeGuard[Provider]:
    return value in PROVIDERS


def _provider(value: str) -> Provider:
    if not _is_provider(value):
        raise CatalogError(f"unknown provider {value!r}: expected one of {', '.join(PROVIDERS)}")
    return value


# --------------------------------------------------------------------------- plain-data access


class _Obj:
    """Typed reads from one JSON object; errors name the file and row."""

    __slots__ = ("_d", "_where")

    def __init__(self, data: object, where: str) -> None:
        if not isinstance(data, dict):
            raise CatalogError(f"{where}: expected an object, got {type(data).__name__}")
        self._d: dict[str, Any] = data
        self._where = where

    def _get(self, key: str) -> object:
        try:
            return self._d[key]
        except KeyError:
            raise CatalogError(f"{self._where}: missing field {key!r}") from None

    def _bad(self, key: str, want: str) -> CatalogError:
        return CatalogError(f"{self._where}: field {key!r} should be {want}, got {self._d.get(key)!r}")

    def has(self, key: str) -> bool:
        return key in self._d

    def text(self, key: str) -> str:
        v = self._get(key)
        if not isinstance(v, str):
            raise self._bad(key, "a string")
        return v

    def opt_text(self, key: str) -> str | None:
        return None if self._d.get(key) is None else self.text(key)

    def integer(self, key: str) -> int:
        v = self._get(key)
        if not isinstance(v, int) or isinstance(v, bool):
            raise self._bad(key, "an integer")
        return v

    def opt_integer(self, key: str) -> int | None:
        return None if self._d.get(key) is None else self.integer(key)

    def opt_number(self, key: str) -> float | None:
        v = self._d.get(key)
        if v is None:
            return None
        if not isinstance(v, int | float) or isinstance(v, bool):
            raise self._bad(key, "a number")
        return float(v)

    def flag(self, key: str) -> bool:
        v = self._get(key)
        if not isinstance(v, bool):
            raise self._bad(key, "true or false")
        return v

    def opt_flag(self, key: str) -> bool | None:
        return None if self._d.get(key) is None else self.flag(key)

    def texts(self, key: str) -> tuple[str, ...]:
        v = self._get(key)
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise self._bad(key, "a list of strings")
        return tuple(v)

    def objs(self, key: str) -> list[_Obj]:
        v = self._get(key)
        if not isinstance(v, list):
            raise self._bad(key, "a list")
        return [_Obj(x, f"{self._where} {key}[{i}]") for i, x in enumerate(v)]

    def obj(self, key: str) -> _Obj:
        return _Obj(self._get(key), f"{self._where} {key}")

    def opt_obj(self, key: str) -> _Obj | None:
        return None if self._d.get(key) is None else self.obj(key)

    def str_map(self, key: str) -> dict[str, str]:
        v = self._get(key)
        if not isinstance(v, dict) or not all(isinstance(x, str) for x in v.values()):
            raise self._bad(key, "an object of strings")
        return dict(v)

    def int_map(self, key: str) -> dict[str, int]:
        v = self._get(key)
        if not isinstance(v, dict) or not all(
            isinstance(x, int) and not isinstance(x, bool) for x in v.values()
        ):
            raise self._bad(key, "an object of integers")
        return dict(v)


# --------------------------------------------------------------------------- provenance


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where one data file came from (copied from the reference files, never written by hand)."""

    file: str
    source: tuple[str, ...]
    retrieved: str
    notes: tuple[str, ...]
    reference_sha256: Mapping[str, str] = field(hash=False)

    @classmethod
    def from_data(cls, file: str, data: Mapping[str, Any]) -> Provenance:
        o = _Obj(data, file)
        if not o.has("source"):
            return cls(file, (), "", (), _EMPTY)
        shas = (
            {d.text("file"): d.text("sha256") for d in o.objs("derived_from")}
            if o.has("derived_from")
            else {}
        )
        return cls(file, o.texts("source"), o.text("retrieved"), o.texts("notes"), MappingProxyType(shas))


# --------------------------------------------------------------------------- instance types

# EKS-FACTS 3.3 / karpenter-provider-aws types.go: category = letters before the generation number.
_CATEGORY_GENERATION = re.compile(r"(^[a-z]+)(\-[0-9]+tb)?([0-9]+).*\.")


def parse_instance_type_name(name: str) -> tuple[str, str, int, str]:
    """``(family, category, generation, size)`` of an EC2 instance type name, e.g. ``p6-b300.48xlarge``
    -> ``("p6-b300", "p", 6, "48xlarge")``; CatalogError if the name does not parse."""
    family, dot, size = name.partition(".")
    m = _CATEGORY_GENERATION.match(name)
    if not dot or not family or not size or m is None:
        raise CatalogError(f"instance type {name!r} does not parse as <category><generation>...<.size>")
    return family, m.group(1), int(m.group(3)), size


@dataclass(frozen=True, slots=True)
class InstanceType:
    """One GPU/accelerator EC2 instance size.

    ``exact_labels`` is False for rows known only from vantage-derived data (``p3.*``): their EC2
    label values (memory, GPU name/memory, arch, bandwidths) are not in the sources, so
    ``Catalog.labels`` leaves those labels out and ``Catalog.unknown_label_keys`` lists them.
    ``derived`` says which fields were converted from other units or fields.
    """

    name: str
    family: str
    category: str
    generation: int
    size: str
    vcpu: int
    memory_mib: int
    arch: str | None  # "amd64" | "arm64"; None where the source does not say
    accelerator_kind: str  # "gpu" | "neuron"
    accelerator_name: str | None  # label value: "l40s", "h100", "a10g", "inferentia2", ...
    accelerator_manufacturer: str  # "nvidia" | "amd" | "aws"
    accelerator_count: int  # 0 on fractional-GPU types (g6f, gr6f)
    gpu_memory_mib: int | None  # per GPU (EC2 SizeInMiB = label value); None for Neuron
    local_nvme_count: int | None  # None: total known, disk split not
    local_nvme_size_gb: int | None
    local_nvme_total_gb: int  # GB (decimal), value of the instance-local-nvme label
    network_bandwidth_mbps: int | None
    ebs_bandwidth_mbps: int | None
    extended_resources: Mapping[str, int] | None = field(hash=False)  # None: not in the sources
    accelerator_resource: str | None  # "nvidia.com/gpu", "amd.com/gpu", "aws.amazon.com/neuron"; None on g6f
    price_usd_per_hour: float | None  # us-east-1 Linux on-demand
    price_source: str | None
    auto_mode_listed: bool | None  # family in the Auto Mode docs; None = not in the revision read
    allocatable_cpu_millicores: int | None  # Karpenter doc, AL2023 assumptions (not Auto Mode)
    allocatable_memory_mib: int | None
    allocatable_pods: int | None
    exact_labels: bool
    source: str
    derived: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def price_per_hour(self) -> float | None:
        """Same as ``price_usd_per_hour`` (us-east-1 Linux on-demand)."""
        return self.price_usd_per_hour

    @property
    def is_gpu(self) -> bool:
        return self.accelerator_kind == "gpu"

    @property
    def is_nvidia(self) -> bool:
        return self.accelerator_kind == "gpu" and self.accelerator_manufacturer == "nvidia"

    @property
    def is_neuron(self) -> bool:
        return self.accelerator_kind == "neuron"

    @classmethod
    def from_data(cls, row: Mapping[str, Any], sources: Mapping[str, str] | None = None) -> InstanceType:
        """Build from one ``instances`` row of the data file; ``sources`` resolves source keys."""
        where = f"instance {row.get('name', '?')!r}"
        o = _Obj(row, where)
        name = o.text("name")
        family, category, generation, size = parse_instance_type_name(name)
        if o.text("family") != family:
            raise CatalogError(f"{where}: family {o.text('family')!r} does not match the name")
        srcs = sources or {}
        alloc = o.opt_obj("allocatable_al2023")
        ext = o.int_map("extended_resources") if row.get("extended_resources") is not None else None
        price_key = o.opt_text("price_source")
        return cls(
            name=name,
            family=family,
            category=category,
            generation=generation,
            size=size,
            vcpu=o.integer("vcpu"),
            memory_mib=o.integer("memory_mib"),
            arch=o.opt_text("arch"),
            accelerator_kind=o.text("accelerator_kind"),
            accelerator_name=o.opt_text("accelerator_name"),
            accelerator_manufacturer=o.text("accelerator_manufacturer"),
            accelerator_count=o.integer("accelerator_count"),
            gpu_memory_mib=o.opt_integer("gpu_memory_mib"),
            local_nvme_count=o.opt_integer("local_nvme_count"),
            local_nvme_size_gb=o.opt_integer("local_nvme_size_gb"),
            local_nvme_total_gb=o.integer("local_nvme_total_gb"),
            network_bandwidth_mbps=o.opt_integer("network_bandwidth_mbps"),
            ebs_bandwidth_mbps=o.opt_integer("ebs_bandwidth_mbps"),
            extended_resources=None if ext is None else MappingProxyType(ext),
            accelerator_resource=o.opt_text("accelerator_resource"),
            price_usd_per_hour=o.opt_number("price_usd_per_hour"),
            price_source=None if price_key is None else srcs.get(price_key, price_key),
            auto_mode_listed=o.opt_flag("auto_mode_listed"),
            allocatable_cpu_millicores=None if alloc is None else alloc.integer("cpu_millicores"),
            allocatable_memory_mib=None if alloc is None else alloc.integer("memory_mib"),
            allocatable_pods=None if alloc is None else alloc.integer("pods"),
            exact_labels=o.flag("exact_labels"),
            source=srcs.get(o.text("source"), o.text("source")),
            derived=o.texts("derived") if o.has("derived") else (),
            notes=o.texts("notes") if o.has("notes") else (),
        )


# --------------------------------------------------------------------------- labels


@dataclass(frozen=True, slots=True)
class LabelSpec:
    """One label concept with its Auto Mode and self-managed Karpenter keys."""

    concept: str
    auto: str | None  # None: no Auto Mode key (or UNCONFIRMED, see auto_unconfirmed)
    karpenter: tuple[str, ...]
    auto_unconfirmed: bool
    value_and_unit: str
    source: str


class LabelTable:
    """Label keys per provider, well-known sets, aliases and the cross-provider key map."""

    __slots__ = (
        "_by_key",
        "_concept_key",
        "_instance_keys",
        "_other",
        "_owner",
        "_well_known",
        "aliases",
        "prefixes",
        "specs",
        "static",
    )

    def __init__(
        self,
        specs: Iterable[LabelSpec],
        prefixes: Mapping[Provider, str],
        static: Mapping[Provider, Mapping[str, str]],
        well_known: Mapping[Provider, Iterable[str]],
        aliases: Mapping[str, str],
    ) -> None:
        self.specs = tuple(specs)
        self.prefixes = MappingProxyType(dict(prefixes))
        self.static = MappingProxyType({p: MappingProxyType(dict(static.get(p, {}))) for p in PROVIDERS})
        self.aliases = MappingProxyType(dict(aliases))
        self._well_known = {p: frozenset(well_known.get(p, ())) for p in PROVIDERS}
        self._concept_key: dict[tuple[str, Provider], str] = {}
        self._by_key: dict[str, LabelSpec] = {}
        self._other: dict[str, str] = {}
        self._owner: dict[str, Provider] = {}
        for s in self.specs:
            if s.auto is not None:
                self._concept_key[(s.concept, "auto")] = s.auto
                self._by_key.setdefault(s.auto, s)
            if s.karpenter:
                self._concept_key[(s.concept, "karpenter")] = s.karpenter[0]
            for k in s.karpenter:
                self._by_key.setdefault(k, s)
            if s.auto is not None and len(s.karpenter) == 1 and s.karpenter[0] != s.auto:
                self._other[s.auto] = s.karpenter[0]
                self._other[s.karpenter[0]] = s.auto
            if s.auto is not None and s.auto not in s.karpenter:
                self._owner[s.auto] = "auto"
            for k in s.karpenter:
                if k != s.auto:
                    self._owner[k] = "karpenter"
        self._instance_keys = {
            p: frozenset(
                k
                for (_, prov), k in self._concept_key.items()
                if prov == p and k.partition("/")[2].startswith("instance-")
            )
            for p in PROVIDERS
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> LabelTable:
        o = _Obj(data, "labels.json")
        specs = [
            LabelSpec(
                concept=r.text("concept"),
                auto=r.opt_text("auto"),
                karpenter=r.texts("karpenter"),
                auto_unconfirmed=r.flag("auto_unconfirmed"),
                value_and_unit=r.text("value_and_unit"),
                source=r.text("source"),
            )
            for r in o.objs("labels")
        ]
        static = o.obj("static_node_labels")
        wk = o.obj("well_known")
        return cls(
            specs,
            prefixes={p: o.obj("prefixes").text(p) for p in PROVIDERS},
            static={p: static.str_map(p) for p in PROVIDERS if static.has(p)},
            well_known={p: wk.texts(p) for p in PROVIDERS if wk.has(p)},
            aliases=o.str_map("normalized_aliases"),
        )

    def key(self, concept: str, provider: Provider) -> str | None:
        """The label key of ``concept`` for ``provider`` (first key where several), or None."""
        return self._concept_key.get((concept, provider))

    def spec_for_key(self, key: str) -> LabelSpec | None:
        return self._by_key.get(self.normalize(key))

    def instance_keys(self, provider: Provider) -> frozenset[str]:
        """Every ``<prefix>/instance-*`` key the provider sets from the instance type."""
        return self._instance_keys[_provider(provider)]

    def well_known(self, provider: Provider) -> frozenset[str]:
        """Keys Karpenter accepts without the NodePool defining them (UNCONFIRMED for Auto Mode)."""
        return self._well_known[_provider(provider)]

    def normalize(self, key: str) -> str:
        """Deprecated alias -> current key (``beta.kubernetes.io/arch`` -> ``kubernetes.io/arch``)."""
        return self.aliases.get(key, key)

    def other_provider_key(self, key: str) -> str | None:
        """The same concept's key for the other provider (``karpenter.k8s.aws/instance-gpu-name`` <->
        ``eks.amazonaws.com/instance-gpu-name``); None when the key is shared, unknown, or has no
        confirmed counterpart (Neuron ``instance-accelerator-*`` on Auto Mode)."""
        return self._other.get(self.normalize(key))

    def provider_of(self, key: str) -> Provider | None:
        """Which provider alone uses ``key``; None for shared or unknown keys."""
        return self._owner.get(self.normalize(key))


# Label value formats (strings, exactly as on nodes; automode_labels.json "value_and_unit"):
#   instance-cpu = vCPUs; instance-memory = MiB; instance-gpu-memory = MiB *per GPU* (EC2 SizeInMiB,
#   e.g. L40S "45776", not the marketing 48 GB); instance-local-nvme = *total* instance store in GB
#   (decimal, Karpenter code; the EKS doc's "GiB" is contradicted by the code) and absent without
#   NVMe; instance-{network,ebs}-bandwidth = Mbps; instance-generation = integer string.
# UNCONFIRMED choices:
#   - Neuron on Auto Mode: the reference has no confirmed eks.amazonaws.com/instance-accelerator-*
#     keys, so provider "auto" gets no accelerator labels (self-managed gets
#     karpenter.k8s.aws/instance-accelerator-{name,manufacturer,count}).
#   - instance-capability-flex: emitted for both providers from the reference's rule ("true if the
#     family contains -flex"); the 2024 self-managed NodeClaim fixture predates the label.
#   - GPU labels on fractional g6f/gr6f carry gpu-count "0" as in the Karpenter doc; whether Auto
#     Mode supports those families at all is UNCONFIRMED (auto_mode_listed None).
# Label concepts whose value depends on the instance's accelerator (automode_labels.json concepts).
_GPU_CONCEPTS: Final = (
    "instance-gpu-name",
    "instance-gpu-manufacturer",
    "instance-gpu-count",
    "instance-gpu-memory",
)
_NEURON_CONCEPTS: Final = ("accelerator-name", "accelerator-manufacturer", "accelerator-count")


def _concept_values(it: InstanceType) -> tuple[dict[str, str], frozenset[str]]:
    """(concept -> label value, concepts known to be absent) for an instance type.

    Concepts in neither are unknown: the label exists on real nodes but the sources hold no value
    (cpu manufacturer, clock speed, hypervisor, encryption in transit; most labels of p3.*).
    Value formats follow automode_labels.json / karpenter-provider-aws computeRequirements().
    """
    values = {
        "instance-category": it.category,
        "instance-family": it.family,
        "instance-generation": str(it.generation),
        "instance-size": it.size,
        "instance-cpu": str(it.vcpu),
        # automode_labels.json: "true if family contains '-flex'"
        "instance-capability-flex": "true" if "-flex" in it.family else "false",
    }
    absent: set[str] = set()
    if it.local_nvme_total_gb > 0:
        values["instance-local-nvme"] = str(it.local_nvme_total_gb)
    else:
        absent.add("instance-local-nvme")
    if it.exact_labels:
        values["instance-memory"] = str(it.memory_mib)
        for concept, mbps in (
            ("instance-network-bandwidth", it.network_bandwidth_mbps),
            ("instance-ebs-bandwidth", it.ebs_bandwidth_mbps),
        ):
            if mbps is None:
                absent.add(concept)
            else:
                values[concept] = str(mbps)
    if it.is_gpu:
        absent.update(_NEURON_CONCEPTS)
        if it.exact_labels and it.accelerator_name is not None:
            # Karpenter sets GPU labels when the instance has exactly one GPU type; fractional types
            # (g6f, gr6f) carry them with gpu-count 0.
            values["instance-gpu-name"] = it.accelerator_name
            values["instance-gpu-manufacturer"] = it.accelerator_manufacturer
            values["instance-gpu-count"] = str(it.accelerator_count)
            if it.gpu_memory_mib is not None:
                values["instance-gpu-memory"] = str(it.gpu_memory_mib)
    elif it.is_neuron:
        absent.update(_GPU_CONCEPTS)
        if it.exact_labels and it.accelerator_name is not None:
            values["accelerator-name"] = it.accelerator_name
            values["accelerator-manufacturer"] = it.accelerator_manufacturer
            values["accelerator-count"] = str(it.accelerator_count)
    return values, frozenset(absent)


# --------------------------------------------------------------------------- catalog


class Catalog:
    """Instance types with their node labels, plus the CUDA and Bottlerocket tables and provenance."""

    __slots__ = (
        "_by_family",
        "_by_name",
        "_label_cache",
        "_unknown_cache",
        "bottlerocket",
        "cuda",
        "instance_types",
        "label_table",
        "provenance",
    )

    def __init__(
        self,
        instance_types: Iterable[InstanceType],
        label_table: LabelTable,
        cuda: CudaTable | None = None,
        bottlerocket: BottlerocketTable | None = None,
        provenance: Mapping[str, Provenance] | None = None,
    ) -> None:
        self.instance_types: tuple[InstanceType, ...] = tuple(instance_types)
        self.label_table = label_table
        self.cuda = cuda if cuda is not None else CudaTable(())
        self.bottlerocket = bottlerocket if bottlerocket is not None else BottlerocketTable(())
        self.provenance: Mapping[str, Provenance] = MappingProxyType(dict(provenance or {}))
        self._by_name: dict[str, InstanceType] = {}
        by_family: dict[str, list[InstanceType]] = {}
        for it in self.instance_types:
            if it.name in self._by_name:
                raise CatalogError(f"instance type {it.name!r} listed twice")
            self._by_name[it.name] = it
            by_family.setdefault(it.family, []).append(it)
        self._by_family = {f: tuple(v) for f, v in sorted(by_family.items())}
        self._label_cache: dict[tuple[str, Provider], Mapping[str, str]] = {}
        self._unknown_cache: dict[tuple[str, Provider], frozenset[str]] = {}

    @classmethod
    def from_data(
        cls,
        *,
        instance_types: Mapping[str, Any],
        labels: Mapping[str, Any],
        cuda: Mapping[str, Any] | None = None,
        bottlerocket: Mapping[str, Any] | None = None,
    ) -> Catalog:
        """Build from the parsed data files (or hand-written dicts of the same shape)."""
        o = _Obj(instance_types, "instance_types.json")
        sources = o.str_map("sources") if o.has("sources") else {}
        its = [InstanceType.from_data(r, sources) for r in instance_types["instances"]]
        docs = {"instance_types.json": instance_types, "labels.json": labels}
        if cuda is not None:
            docs["cuda_driver.json"] = cuda
        if bottlerocket is not None:
            docs["bottlerocket_nvidia.json"] = bottlerocket
        return cls(
            its,
            LabelTable.from_data(labels),
            cuda=None if cuda is None else CudaTable.from_data(cuda),
            bottlerocket=None if bottlerocket is None else BottlerocketTable.from_data(bottlerocket),
            provenance={name: Provenance.from_data(name, d) for name, d in docs.items()},
        )

    # -- instance types

    def by_name(self, name: str) -> InstanceType | None:
        """The instance type called ``name`` (e.g. ``g6e.2xlarge``), or None if not catalogued."""
        return self._by_name.get(name)

    def instance_type(self, name: str) -> InstanceType | None:
        """Same as ``by_name``."""
        return self._by_name.get(name)

    def max_cuda(self, driver: str) -> str | None:
        """Display helper: the CUDA ceiling of ``driver`` as nvidia-smi prints it (``"12.8"``), or None
        when the driver is older than every row or not a dotted version. Use ``cuda.max_cuda`` for
        the row and the minor-compat family, and to get an error for malformed input."""
        try:
            ceiling = self.cuda.max_cuda(driver)
        except CatalogError:
            return None
        return None if ceiling is None else ceiling.cuda

    def families(self) -> tuple[str, ...]:
        """Family names, sorted."""
        return tuple(self._by_family)

    def by_family(self, family: str) -> tuple[InstanceType, ...]:
        return self._by_family.get(family, ())

    def _resolve(self, it: InstanceType | str) -> InstanceType:
        if isinstance(it, str):
            found = self._by_name.get(it)
            if found is None:
                raise CatalogError(f"instance type {it!r} is not in the catalog")
            return found
        return it

    # -- labels

    def labels(self, it: InstanceType | str, provider: Provider) -> Mapping[str, str]:
        """Read-only node labels an instance of this type carries under ``provider``.

        Instance-determined labels only (plus fixed per-provider labels such as
        ``eks.amazonaws.com/compute-type=auto``): NodePool, zone and capacity-type labels come from
        the NodeClaim, not the type. Labels whose value the sources lack are left out; see
        ``unknown_label_keys``. Cached per (type, provider).
        """
        prov = _provider(provider)
        t = self._resolve(it)
        key = (t.name, prov)
        cached = self._label_cache.get(key)
        if cached is not None and self._by_name.get(t.name) is t:
            return cached
        values, _ = _concept_values(t)
        table = self.label_table
        out: dict[str, str] = dict(table.static[prov])
        out["node.kubernetes.io/instance-type"] = t.name
        if t.arch is not None:
            out["kubernetes.io/arch"] = t.arch
        for spec in table.specs:
            label_key = table.key(spec.concept, prov)
            value = values.get(spec.concept)
            # Neuron on Auto Mode: the reference marks eks.amazonaws.com/instance-accelerator-* as
            # UNCONFIRMED (auto key is None), so no Auto Mode accelerator label is emitted.
            if label_key is not None and value is not None:
                out[label_key] = value
        result: Mapping[str, str] = MappingProxyType(out)
        if self._by_name.get(t.name) is t:
            self._label_cache[key] = result
        return result

    def unknown_label_keys(self, it: InstanceType | str, provider: Provider) -> frozenset[str]:
        """Instance label keys real nodes may carry but whose value the catalog does not know.

        A requirement on one of these keys can be neither confirmed nor ruled out from the catalog
        (e.g. ``instance-hypervisor In [nitro]``).
        """
        prov = _provider(provider)
        t = self._resolve(it)
        key = (t.name, prov)
        cached = self._unknown_cache.get(key)
        if cached is not None and self._by_name.get(t.name) is t:
            return cached
        _, absent = _concept_values(t)
        table = self.label_table
        absent_keys = {k for c in absent if (k := table.key(c, prov)) is not None}
        unknown = set(table.instance_keys(prov)) - set(self.labels(t, prov)) - absent_keys
        if t.arch is None:
            unknown.add("kubernetes.io/arch")
        result = frozenset(unknown)
        if self._by_name.get(t.name) is t:
            self._unknown_cache[key] = result
        return result

    def well_known_labels(self, provider: Provider) -> frozenset[str]:
        return self.label_table.well_known(provider)

    def other_provider_key(self, key: str) -> str | None:
        return self.label_table.other_provider_key(key)

    def normalize_label_key(self, key: str) -> str:
        return self.label_table.normalize(key)


# --------------------------------------------------------------------------- CUDA

_CUDA_VERSION = re.compile(r"(\d+(?:\.\d+)*)(?:-[a-z0-9]+)?")


def _driver_key(driver: str) -> VersionKey:
    key = version_key(str(driver).strip())
    if key is None:
        raise CatalogError(
            f"malformed NVIDIA driver version {driver!r}: expected dotted numbers like 570.124.06"
        )
    return key


def _cuda_key(cuda: str, *, what: str = "CUDA version") -> VersionKey:
    m = _CUDA_VERSION.fullmatch(str(cuda).strip())
    key = None if m is None else version_key(m.group(1))
    if key is None:
        raise CatalogError(f"malformed {what} {cuda!r}: expected dotted numbers like 12.8")
    return key


@dataclass(frozen=True, slots=True)
class CudaRow:
    """One row of NVIDIA's 'CUDA Toolkit and Corresponding Driver Versions' table."""

    cuda: str  # "12.8.1", "11.0.1-rc"
    label: str  # "CUDA 12.8 Update 1"
    min_linux_driver: str

    @property
    def major_minor(self) -> str:
        """What nvidia-smi prints as "CUDA Version": ``12.8`` for 12.8.1."""
        m = _CUDA_VERSION.fullmatch(self.cuda)
        parts = (m.group(1) if m else self.cuda).split(".")
        return ".".join([*parts, "0"][:2])


@dataclass(frozen=True, slots=True)
class MinorCompatFamily:
    """CUDA minor-version compatibility: drivers in [driver_min, driver_max_exclusive) run any
    ``cuda_major``.x toolkit, with limitations (``caveat``)."""

    cuda_major: int
    driver_min: str
    driver_max_exclusive: str | None
    as_printed: str
    caveat: str

    def covers(self, driver: str) -> bool:
        key = _driver_key(driver)
        if key < _driver_key(self.driver_min):
            return False
        return self.driver_max_exclusive is None or key < _driver_key(self.driver_max_exclusive)


@dataclass(frozen=True, slots=True)
class CudaCeiling:
    """Highest CUDA a driver fully supports (``cuda`` as nvidia-smi prints it) and its source row."""

    cuda: str
    row: CudaRow
    minor_compat: MinorCompatFamily | None  # the family the driver belongs to, if any
    # The row is the newest in the table: a driver newer than the table's edition may support more
    # (e.g. driver 610.57.04 prints CUDA 13.3 while the table ends at 13.2), so read ``cuda`` as
    # "at least".
    open_ended: bool = False


class CompatLevel(StrEnum):
    FULL = "full"
    MINOR_COMPAT = "minor-compat"  # only through minor-version compatibility; see the caveat
    NO = "no"
    UNKNOWN = "unknown"  # needs a CUDA newer than the table and the driver is at the table's end


@dataclass(frozen=True, slots=True)
class Compatibility:
    level: CompatLevel
    driver: str
    cuda_needed: str
    ceiling: CudaCeiling | None
    reason: str  # one line
    caveat: str | None = None


class CudaTable:
    """NVIDIA driver -> CUDA ceiling, by numeric comparison of dotted versions."""

    __slots__ = ("_best", "_drivers", "families", "forward_compat", "rows")

    def __init__(
        self,
        rows: Iterable[CudaRow],
        families: Iterable[MinorCompatFamily] = (),
        forward_compat: str = "",
    ) -> None:
        self.rows = tuple(rows)
        self.families = tuple(families)
        self.forward_compat = forward_compat
        ordered = sorted(self.rows, key=lambda r: (_driver_key(r.min_linux_driver), _cuda_key(r.cuda)))
        self._drivers = [_driver_key(r.min_linux_driver) for r in ordered]
        # _best[i]: the highest-CUDA row among ordered[:i+1]; makes max_cuda a bisection.
        self._best: list[CudaRow] = []
        for r in ordered:
            if not self._best or _cuda_key(r.cuda) > _cuda_key(self._best[-1].cuda):
                self._best.append(r)
            else:
                self._best.append(self._best[-1])

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> CudaTable:
        o = _Obj(data, "cuda_driver.json")
        rows = [CudaRow(r.text("cuda"), r.text("label"), r.text("min_linux_driver")) for r in o.objs("rows")]
        families: list[MinorCompatFamily] = []
        forward = ""
        if o.has("minor_version_compatibility"):
            mvc = o.obj("minor_version_compatibility")
            limitations = mvc.text("limitations")
            for f in mvc.objs("families"):
                footnote = f.opt_text("footnote")
                caveat = f"{f.text('as_printed')}. {limitations}" + (f" {footnote}" if footnote else "")
                families.append(
                    MinorCompatFamily(
                        cuda_major=f.integer("cuda_major"),
                        driver_min=f.text("driver_min"),
                        driver_max_exclusive=f.opt_text("driver_max_exclusive"),
                        as_printed=f.text("as_printed"),
                        caveat=caveat,
                    )
                )
        if o.has("forward_compatibility"):
            fc = o.obj("forward_compatibility")
            forward = (
                "Forward compatibility: " + "; ".join(fc.texts("facts")) + ". " + fc.text("bottlerocket_note")
            )
        return cls(rows, families, forward)

    def minor_compat_family(self, driver: str) -> MinorCompatFamily | None:
        """The minor-version-compatibility family whose driver range holds ``driver``."""
        _driver_key(driver)
        return next((f for f in self.families if f.covers(driver)), None)

    def max_cuda(self, driver: str) -> CudaCeiling | None:
        """Highest CUDA row whose minimum Linux driver <= ``driver``; None below the oldest row.

        Raises CatalogError for a malformed driver string.
        """
        i = bisect_right(self._drivers, _driver_key(driver))
        if i == 0:
            return None
        row = self._best[i - 1]
        return CudaCeiling(
            cuda=row.major_minor,
            row=row,
            minor_compat=self.minor_compat_family(driver),
            open_ended=row is self._best[-1],
        )

    def min_driver_for(self, cuda: str) -> CudaRow | None:
        """The lowest-driver row that fully supports ``cuda`` (None if no row reaches it)."""
        need = _cuda_key(cuda)
        fits = [r for r in self.rows if _cuda_key(r.cuda) >= need]
        return min(fits, key=lambda r: _driver_key(r.min_linux_driver), default=None)

    def satisfies(self, driver: str, cuda_needed: str) -> Compatibility:
        """Can ``driver`` run a CUDA ``cuda_needed`` application: FULL, MINOR_COMPAT or NO (UNKNOWN
        only past the table's newest CUDA). Raises CatalogError for malformed versions."""
        need = _cuda_key(cuda_needed, what="required CUDA version")
        ceiling = self.max_cuda(driver)
        if ceiling is not None and need <= _cuda_key(ceiling.row.cuda):
            return Compatibility(
                CompatLevel.FULL,
                driver,
                cuda_needed,
                ceiling,
                f"driver {driver} supports CUDA up to {ceiling.cuda} ({ceiling.row.label})",
            )
        beyond = (
            f" (the table ends at CUDA {ceiling.cuda}; this driver may support more)"
            if ceiling is not None and ceiling.open_ended
            else ""
        )
        family = self.minor_compat_family(driver)
        if family is not None and family.cuda_major == need[0]:
            top = ceiling.cuda if ceiling else "none"
            return Compatibility(
                CompatLevel.MINOR_COMPAT,
                driver,
                cuda_needed,
                ceiling,
                f"driver {driver} fully supports CUDA up to {top}{beyond}; CUDA {cuda_needed} runs "
                f"through CUDA {family.cuda_major}.x minor-version compatibility",
                family.caveat,
            )
        if ceiling is not None and ceiling.open_ended:
            return Compatibility(
                CompatLevel.UNKNOWN,
                driver,
                cuda_needed,
                ceiling,
                f"driver {driver} supports at least CUDA {ceiling.cuda}{beyond}; cannot tell whether it "
                f"runs CUDA {cuda_needed}",
            )
        needed_row = self.min_driver_for(cuda_needed)
        have = (
            f"supports CUDA up to {ceiling.cuda}"
            if ceiling
            else "is older than every CUDA release in the table"
        )
        want = (
            f"CUDA {cuda_needed} needs driver >= {needed_row.min_linux_driver} ({needed_row.label})"
            if needed_row
            else f"no driver in the table supports CUDA {cuda_needed}"
        )
        return Compatibility(
            CompatLevel.NO,
            driver,
            cuda_needed,
            ceiling,
            f"driver {driver} {have}; {want}",
            self.forward_compat or None,
        )


# --------------------------------------------------------------------------- Bottlerocket


@dataclass(frozen=True, slots=True)
class BottlerocketRelease:
    """NVIDIA driver of one group of aws-k8s-*-nvidia variants in one upstream Bottlerocket release."""

    version: str  # "1.26.1" (upstream semver; not the Auto Mode date versions)
    variants: tuple[str, ...]
    kernel: str
    kmod_package: str
    drivers: tuple[str, ...]
    date: str | None  # None where the release date is UNCONFIRMED (see date_kind)
    date_kind: str
    website_data_added: str | None
    kernel_kit_version: str | None


class OsImageStream(StrEnum):
    UPSTREAM = "upstream"  # "Bottlerocket OS 1.x.y (variant)"
    EKS_AUTO = "eks-auto"  # "Bottlerocket (EKS Auto[, Flavour]) YYYY.M.D (variant)"
    UNRECOGNISED = "unrecognised"


class DriverInference(StrEnum):
    INFERRED = "inferred"  # drivers taken from the upstream release table, not read from the node
    NOT_MAPPABLE = "not-mappable"  # Auto Mode date version: no public mapping to upstream releases
    UNKNOWN_RELEASE = "unknown-release"
    UNKNOWN_VARIANT = "unknown-variant"
    NO_NVIDIA_DRIVER = "no-nvidia-driver"
    UNRECOGNISED = "unrecognised"


@dataclass(frozen=True, slots=True)
class OsImageInfo:
    """What a node's ``status.nodeInfo.osImage`` says, and what (if anything) it implies about the
    NVIDIA driver. ``inferred`` is True only when ``drivers`` come from the catalog table."""

    os_image: str
    stream: OsImageStream
    version: str | None
    flavour: str | None  # Auto Mode "Nvidia" / "Standard"; None upstream or on early Auto images
    variant: str | None
    k8s_version: str | None
    nvidia_variant: bool
    inference: DriverInference
    inferred: bool
    drivers: tuple[str, ...]
    release: BottlerocketRelease | None
    reason: str


_UPSTREAM_OS = re.compile(r"Bottlerocket OS (?P<version>\d+\.\d+\.\d+) \((?P<variant>[a-z0-9.-]+)\)")
_AUTO_OS = re.compile(
    r"Bottlerocket \(EKS Auto(?:, (?P<flavour>[A-Za-z]+))?\) (?P<version>\d{4}\.\d{1,2}\.\d{1,2}) "
    r"\((?P<variant>[a-z0-9.-]+)\)"
)
_K8S_VARIANT = re.compile(r"aws-k8s-(?P<k8s>\d+\.\d+)(?:-.*)?")


class BottlerocketTable:
    """Upstream Bottlerocket release -> aws-k8s-*-nvidia variants -> kernel -> NVIDIA driver."""

    __slots__ = ("_by_version", "auto_mode_caveat", "releases")

    def __init__(self, releases: Iterable[BottlerocketRelease], auto_mode_caveat: str = "") -> None:
        self.releases = tuple(releases)
        self.auto_mode_caveat = auto_mode_caveat
        by_version: dict[str, list[BottlerocketRelease]] = {}
        for r in self.releases:
            if version_key(r.version) is None:
                raise CatalogError(f"bottlerocket release version {r.version!r} is not dotted numbers")
            by_version.setdefault(r.version, []).append(r)
        self._by_version = {v: tuple(rs) for v, rs in by_version.items()}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> BottlerocketTable:
        o = _Obj(data, "bottlerocket_nvidia.json")
        kinds = o.str_map("date_kinds") if o.has("date_kinds") else {}
        releases = [
            BottlerocketRelease(
                version=r.text("version"),
                variants=r.texts("variants"),
                kernel=r.text("kernel"),
                kmod_package=r.text("kmod_package"),
                drivers=r.texts("drivers"),
                date=r.opt_text("date"),
                date_kind=kinds.get(r.text("date_kind"), r.text("date_kind")),
                website_data_added=r.opt_text("website_data_added"),
                kernel_kit_version=r.opt_text("kernel_kit_version"),
            )
            for r in o.objs("releases")
        ]
        caveat = o.text("auto_mode_caveat") if o.has("auto_mode_caveat") else ""
        return cls(releases, caveat)

    def versions(self) -> tuple[str, ...]:
        """Release versions, oldest first."""
        return tuple(sorted(self._by_version, key=lambda v: version_key(v) or ()))

    def rows_for(self, version: str) -> tuple[BottlerocketRelease, ...]:
        return self._by_version.get(version, ())

    def release_for(self, version: str, k8s_variant: str) -> BottlerocketRelease | None:
        return next((r for r in self.rows_for(version) if k8s_variant in r.variants), None)

    def drivers_for(self, bottlerocket_version: str, k8s_variant: str | None = None) -> tuple[str, ...]:
        """NVIDIA driver versions shipped in an upstream release (for one variant if given), sorted.

        Empty when the release or variant is not in the table; never a guess.
        """
        rows = self.rows_for(bottlerocket_version)
        if k8s_variant is not None:
            rows = tuple(r for r in rows if k8s_variant in r.variants)
        drivers = {d for r in rows for d in r.drivers}
        return tuple(sorted(drivers, key=lambda d: version_key(d) or ()))

    def parse_os_image(self, os_image: str) -> OsImageInfo:
        """Classify an osImage string and infer its NVIDIA driver only where the table allows."""
        text = os_image.strip()
        m = _UPSTREAM_OS.fullmatch(text)
        stream = OsImageStream.UPSTREAM
        if m is None:
            m = _AUTO_OS.fullmatch(text)
            stream = OsImageStream.EKS_AUTO
        if m is None:
            return OsImageInfo(
                os_image,
                OsImageStream.UNRECOGNISED,
                None,
                None,
                None,
                None,
                False,
                DriverInference.UNRECOGNISED,
                False,
                (),
                None,
                "not a Bottlerocket osImage this catalog recognises; read the driver from the node",
            )
        version, variant = m.group("version"), m.group("variant")
        flavour = m.groupdict().get("flavour")
        km = _K8S_VARIANT.fullmatch(variant)
        k8s = km.group("k8s") if km else None
        nvidia = "nvidia" in variant.split("-")

        def info(
            inference: DriverInference, reason: str, release: BottlerocketRelease | None = None
        ) -> OsImageInfo:
            drivers = release.drivers if release is not None else ()
            return OsImageInfo(
                os_image,
                stream,
                version,
                flavour,
                variant,
                k8s,
                nvidia,
                inference,
                inference is DriverInference.INFERRED,
                drivers,
                release,
                reason,
            )

        if stream is OsImageStream.EKS_AUTO:
            return info(
                DriverInference.NOT_MAPPABLE,
                self.auto_mode_caveat
                or "EKS Auto Mode image versions do not map to upstream "
                "Bottlerocket releases; read the driver from the node",
            )
        if not nvidia:
            return info(DriverInference.NO_NVIDIA_DRIVER, f"variant {variant} is not an NVIDIA variant")
        if not self.rows_for(version):
            known = self.versions()
            span = f"{known[0]}..{known[-1]}" if known else "nothing"
            return info(
                DriverInference.UNKNOWN_RELEASE,
                f"Bottlerocket {version} is not in the driver table (covers {span}); "
                "read the driver from the node",
            )
        release = self.release_for(version, variant)
        if release is None:
            return info(
                DriverInference.UNKNOWN_VARIANT,
                f"Bottlerocket {version} lists no driver for variant {variant}",
            )
        return info(
            DriverInference.INFERRED,
            f"inferred from upstream Bottlerocket {version} release data ({release.kmod_package}, "
            f"kernel {release.kernel}); not read from the node",
            release,
        )


# --------------------------------------------------------------------------- loading

_DATA_FILES: Final = ("instance_types.json", "labels.json", "cuda_driver.json", "bottlerocket_nvidia.json")


def read_data_files() -> dict[str, dict[str, Any]]:
    """Parse the package's own data files (this module's only I/O), keyed by file name."""
    root = files("kubectl_gpu").joinpath("data")
    out: dict[str, dict[str, Any]] = {}
    for name in _DATA_FILES:
        data = json.loads(root.joinpath(name).read_bytes())
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


def well_known_labels(provider: Provider) -> frozenset[str]:
    """Well-known label keys for ``provider`` in the packaged catalog."""
    return load_catalog().well_known_labels(provider)


def other_provider_key(key: str) -> str | None:
    """``key``'s counterpart under the other provider in the packaged catalog (see LabelTable)."""
    return load_catalog().other_provider_key(key)


def parse_os_image(os_image: str, table: BottlerocketTable | None = None) -> OsImageInfo:
    """Classify an osImage; uses the packaged Bottlerocket table unless ``table`` is given."""
    return (table if table is not None else load_catalog().bottlerocket).parse_os_image(os_image)
