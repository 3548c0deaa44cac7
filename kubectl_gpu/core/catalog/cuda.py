"""NVIDIA driver -> CUDA: the highest CUDA a driver runs, minor-version compatibility, and why not."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any

import msgspec

from kubectl_gpu.core.catalog.errors import CatalogError
from kubectl_gpu.core.catalog.reader import Reader
from kubectl_gpu.core.catalog.versions import VersionKey, version_key
from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = [
    "CompatLevel",
    "Compatibility",
    "CudaCeiling",
    "CudaRow",
    "CudaTable",
    "MinorCompatFamily",
]

_CUDA_VERSION = lazy_pattern(r"(\d+(?:\.\d+)*)(?:-[a-z0-9]+)?")


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


class CudaRow(msgspec.Struct, frozen=True):
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


class MinorCompatFamily(msgspec.Struct, frozen=True):
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


class CudaCeiling(msgspec.Struct, frozen=True):
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


class Compatibility(msgspec.Struct, frozen=True):
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
        o = Reader(data, "cuda_driver.json")
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
