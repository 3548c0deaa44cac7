"""Node label keys per provider: the concept -> key table, well-known keys, aliases, cross-provider keys."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

import msgspec

from kubectl_gpu.core.catalog.providers import PROVIDERS, Provider, check_provider
from kubectl_gpu.core.catalog.reader import Reader

__all__ = ["LabelSpec", "LabelTable"]


class LabelSpec(msgspec.Struct, frozen=True):
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
        o = Reader(data, "labels.json")
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

    def instance_keys(self, provider: Provider) -> frozenset[str]:
        """Every ``<prefix>/instance-*`` key the provider sets from the instance type."""
        return self._instance_keys[check_provider(provider)]

    def well_known(self, provider: Provider) -> frozenset[str]:
        """Keys Karpenter accepts without the NodePool defining them (UNCONFIRMED for Auto Mode)."""
        return self._well_known[check_provider(provider)]

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
