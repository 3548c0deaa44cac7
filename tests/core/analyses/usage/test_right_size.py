"""The right-size hint of USAGE_IDLE_GPUS keeps the GPU's compute capability or a higher one
(data/gpu_compute_capability.json), the CPU architecture, and says so."""

from __future__ import annotations

from decimal import Decimal

from kubectl_gpu.core.analyses.usage.fixes import compute_capability, smaller_instance
from kubectl_gpu.core.catalog import load_catalog

CATALOG = load_catalog()


def _it(name: str):  # type: ignore[no-untyped-def]
    it = CATALOG.by_name(name)
    assert it is not None, name
    return it


def test_every_nvidia_gpu_of_the_catalog_has_a_compute_capability() -> None:
    nvidia = {it.accelerator_name for it in CATALOG.instance_types if it.accelerator_manufacturer == "nvidia"}
    assert nvidia and all(
        compute_capability(next(i for i in CATALOG.instance_types if i.accelerator_name == n)) for n in nvidia
    )


def test_an_l40s_workload_is_not_sent_to_an_older_gpu() -> None:
    current = _it("g6e.xlarge")  # 1 x L40S (8.9)
    price = Decimal(str(current.price_usd_per_hour))
    smaller = smaller_instance(CATALOG, 1, 10_000, price, current)
    assert smaller is not None
    assert compute_capability(smaller) >= (8, 9)  # type: ignore[operator]
    assert smaller.accelerator_name not in ("t4", "t4g", "a10g", "v100", "a100")
    # the old rule (any NVIDIA GPU with the memory) had a cheaper, older answer: the new rule refuses it
    t4 = _it("g4dn.xlarge")
    assert t4.price_usd_per_hour < smaller.price_usd_per_hour  # type: ignore[operator]
    assert t4.gpu_memory_mib is not None and t4.gpu_memory_mib >= 10_000 * 1.2


def test_the_architecture_and_memory_still_hold() -> None:
    current = _it("g5g.xlarge")  # arm64, T4G
    smaller = smaller_instance(CATALOG, 1, 1_000, Decimal(100), current)
    assert smaller is not None and smaller.arch == "arm64"
    assert smaller_instance(CATALOG, 1, 200_000, Decimal(1000), current) is None  # no GPU that large
