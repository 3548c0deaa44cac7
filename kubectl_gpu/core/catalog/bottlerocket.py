"""Bottlerocket: upstream releases -> NVIDIA drivers, and what a node's osImage says about its driver."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any

import msgspec

from kubectl_gpu.core.catalog.errors import CatalogError
from kubectl_gpu.core.catalog.reader import Reader
from kubectl_gpu.core.catalog.versions import version_key
from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = [
    "BottlerocketRelease",
    "BottlerocketTable",
    "DriverInference",
    "OsImageInfo",
    "OsImageStream",
]


class BottlerocketRelease(msgspec.Struct, frozen=True):
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


class OsImageInfo(msgspec.Struct, frozen=True):
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


_UPSTREAM_OS = lazy_pattern(r"Bottlerocket OS (?P<version>\d+\.\d+\.\d+) \((?P<variant>[a-z0-9.-]+)\)")
_AUTO_OS = lazy_pattern(
    r"Bottlerocket \(EKS Auto(?:, (?P<flavour>[A-Za-z]+))?\) (?P<version>\d{4}\.\d{1,2}\.\d{1,2}) "
    r"\((?P<variant>[a-z0-9.-]+)\)"
)
_K8S_VARIANT = lazy_pattern(r"aws-k8s-(?P<k8s>\d+\.\d+)(?:-.*)?")


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
        o = Reader(data, "bottlerocket_nvidia.json")
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
