"""`Catalog`: the instance types with their node labels per provider, plus the CUDA and Bottlerocket tables."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any, TypeVar, cast

from kubectl_gpu.core.catalog.bottlerocket import BottlerocketTable
from kubectl_gpu.core.catalog.cuda import CudaTable
from kubectl_gpu.core.catalog.errors import CatalogError
from kubectl_gpu.core.catalog.instance_types import InstanceType
from kubectl_gpu.core.catalog.label_values import concept_values
from kubectl_gpu.core.catalog.labels import LabelTable
from kubectl_gpu.core.catalog.provenance import Provenance
from kubectl_gpu.core.catalog.providers import Provider, check_provider
from kubectl_gpu.core.catalog.reader import Reader

__all__ = ["Catalog"]

T = TypeVar("T")


class Catalog:
    """Instance types with their node labels, plus the CUDA and Bottlerocket tables and provenance."""

    __slots__ = (
        "_by_family",
        "_by_name",
        "_derived",
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
        self._derived: dict[str, Any] = {}

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
        o = Reader(instance_types, "instance_types.json")
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

    def derived(self, key: str, build: Callable[[Catalog], T]) -> T:
        """What `build` computes from this catalog alone (an index, a set of names), built on first use and
        kept with the catalog, which does not change once built; `key` names it (one key, one `build`)."""
        try:
            return cast(T, self._derived[key])
        except KeyError:
            value = self._derived[key] = build(self)
            return value

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
        prov = check_provider(provider)
        t = self._resolve(it)
        key = (t.name, prov)
        cached = self._label_cache.get(key)
        if cached is not None and self._by_name.get(t.name) is t:
            return cached
        values, _ = concept_values(t)
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
        prov = check_provider(provider)
        t = self._resolve(it)
        key = (t.name, prov)
        cached = self._unknown_cache.get(key)
        if cached is not None and self._by_name.get(t.name) is t:
            return cached
        _, absent = concept_values(t)
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
