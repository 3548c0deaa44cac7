"""What one DCGM exporter `/metrics` text says about each GPU (or MIG instance) of its node. Pure.

Fields (dcgm-exporter's default counters, `etc/default-counters.csv`; units as its HELP texts give them):

* utilisation: `DCGM_FI_PROF_GR_ENGINE_ACTIVE` (a ratio 0..1 of time the graphics engine is busy, the
  profiling field NVIDIA recommends, and the only one per MIG instance) when present, else
  `DCGM_FI_DEV_GPU_UTIL` (percent);
* memory: `DCGM_FI_DEV_FB_USED` and `DCGM_FI_DEV_FB_FREE` (MiB; total = used + free);
* power: `DCGM_FI_DEV_POWER_USAGE` (W); energy: `DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION` (a counter, mJ);
* identity: labels `gpu` (index), `UUID`, `device`, `modelName`, `Hostname`, and MIG's `GPU_I_ID` /
  `GPU_I_PROFILE`; attribution: `pod`, `namespace`, `container` (set by the exporter from the kubelet's
  pod-resources API in the GPU Operator; empty when no pod holds the GPU or attribution is off).

A series without `gpu` and `UUID` (a "dummy" line some test texts carry) names no GPU and is ignored.

A figure outside what the field can be (`RANGES`: a ratio above 1, a negative utilisation, memory past any
GPU's, power past any board's, a negative energy counter) is not believed: that field of that GPU is left
unknown and the reading counts it in `rejected`, as a NaN or an infinity (`metrics.usable`) is.
"""

from __future__ import annotations

import msgspec

from kubectl_gpu.core.usage.metrics import Metrics, Series

__all__ = [
    "GPU_UTIL",
    "GR_ENGINE_ACTIVE",
    "MAX_POWER_W",
    "RANGES",
    "GpuKey",
    "GpuReading",
    "PodRef",
    "dcgm_readings",
]

GR_ENGINE_ACTIVE = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL"
FB_USED = "DCGM_FI_DEV_FB_USED"
FB_FREE = "DCGM_FI_DEV_FB_FREE"
POWER = "DCGM_FI_DEV_POWER_USAGE"
ENERGY = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"
_FIELDS = (GR_ENGINE_ACTIVE, GPU_UTIL, FB_USED, FB_FREE, POWER, ENERGY)
#: The most one GPU board draws, with room to spare (a B200 is 1 kW, a GB200 superchip 2.7 kW).
MAX_POWER_W = 10_000.0
#: What each field can be, inclusive: a value outside is not believed. Memory: 16 TiB in MiB (an H200 has
#: 141 GiB); energy: mJ in an unsigned 64-bit counter, never below 0.
RANGES: dict[str, tuple[float, float]] = {
    GR_ENGINE_ACTIVE: (0.0, 1.01),  # a ratio; a hair over 1 is rounding (shown as 100%)
    GPU_UTIL: (0.0, 100.0),
    FB_USED: (0.0, 16 * 1024 * 1024),
    FB_FREE: (0.0, 16 * 1024 * 1024),
    POWER: (0.0, MAX_POWER_W),
    ENERGY: (0.0, float(2**64)),
}

# (UUID or "index:<gpu>", MIG instance id or ""): one GPU, or one MIG instance of it.
GpuKey = tuple[str, str]


class PodRef(msgspec.Struct, frozen=True, order=True):
    namespace: str
    name: str
    container: str | None = None


class GpuReading(msgspec.Struct, frozen=True):
    """One GPU (or MIG instance) in one scrape. Figures are None when the exporter did not export them."""

    key: GpuKey
    index: str | None
    uuid: str | None
    model: str | None
    hostname: str | None
    mig_profile: str | None
    util_percent: float | None
    util_field: str | None  # GR_ENGINE_ACTIVE | GPU_UTIL
    memory_used_mib: float | None
    memory_free_mib: float | None
    power_w: float | None
    energy_mj: float | None
    pods: tuple[PodRef, ...]  # the pods the exporter attributes the GPU to (several: time-slicing)
    rejected: int = 0  # values of this GPU outside their field's range (RANGES), not believed

    @property
    def memory_total_mib(self) -> float | None:
        if self.memory_used_mib is None or self.memory_free_mib is None:
            return None
        return self.memory_used_mib + self.memory_free_mib


def _key(series: Series) -> GpuKey | None:
    labels = series.labels
    uuid = labels.get("UUID") or labels.get("uuid")
    index = labels.get("gpu")
    if not uuid and index is None:
        return None
    return (uuid or f"index:{index}", labels.get("GPU_I_ID", ""))


def _pod(series: Series) -> PodRef | None:
    labels = series.labels
    name = labels.get("pod") or labels.get("exported_pod")
    namespace = labels.get("namespace") or labels.get("exported_namespace")
    if not name or not namespace:
        return None
    return PodRef(namespace, name, labels.get("container") or labels.get("exported_container") or None)


class _Gpu:
    """What the series of one GPU say, gathered."""

    def __init__(self, key: GpuKey) -> None:
        self.key = key
        self.labels: dict[str, str] = {}
        self.values: dict[str, float] = {}
        self.pods: set[PodRef] = set()
        self.rejected = 0

    def add(self, field: str, series: Series) -> None:
        for name, value in series.labels.items():
            self.labels.setdefault(name, value)
        low, high = RANGES[field]
        if low <= series.value <= high:
            # Time-slicing: one series per pod sharing the GPU, with the same device figure: keep the first.
            self.values.setdefault(field, series.value)
        else:
            self.rejected += 1
        pod = _pod(series)
        if pod is not None:
            self.pods.add(pod)

    def reading(self) -> GpuReading:
        labels, values = self.labels, self.values
        if GR_ENGINE_ACTIVE in values:
            util, util_field = values[GR_ENGINE_ACTIVE] * 100, GR_ENGINE_ACTIVE
        elif GPU_UTIL in values:
            util, util_field = values[GPU_UTIL], GPU_UTIL
        else:
            util, util_field = None, None
        return GpuReading(
            key=self.key,
            index=labels.get("gpu"),
            uuid=labels.get("UUID") or labels.get("uuid"),
            model=labels.get("modelName") or None,
            hostname=labels.get("Hostname") or labels.get("hostname") or None,
            mig_profile=labels.get("GPU_I_PROFILE") or None,
            util_percent=None if util is None else min(util, 100.0),
            util_field=util_field,
            memory_used_mib=values.get(FB_USED),
            memory_free_mib=values.get(FB_FREE),
            power_w=values.get(POWER),
            energy_mj=values.get(ENERGY),
            pods=tuple(sorted(self.pods)),
            rejected=self.rejected,
        )


def dcgm_readings(metrics: Metrics) -> tuple[GpuReading, ...]:
    """One reading per GPU (or MIG instance) the text names, in the order of their keys."""
    gpus: dict[GpuKey, _Gpu] = {}
    for field_name in _FIELDS:
        for series in metrics.get(field_name):
            key = _key(series)
            if key is not None:
                gpus.setdefault(key, _Gpu(key)).add(field_name, series)
    return tuple(gpus[k].reading() for k in sorted(gpus))
