"""bench/family.py (the N-nodes / 20N-pods family, many NodePools, fuzzed shapes) and bench/targets.py."""

from __future__ import annotations

from pathlib import Path

from kubectl_gpu.kube.snapshot import load_snapshot
from tests.helpers import load_script

ROOT = Path(__file__).resolve().parent.parent


family = load_script(ROOT / "bench" / "family.py", "bench_family")
targets = load_script(ROOT / "bench" / "targets.py", "bench_targets")


def test_family_bundle_has_the_shapes_it_promises(tmp_path: Path) -> None:
    out = tmp_path / "family.json"
    counts = family.generate_family(60, 1200, out, seed=3, gpu_pools=5, pending_shapes=20)
    state = load_snapshot([out])
    assert len(state.nodes) == 60 == counts["Node"] and len(state.pods) == 1200 == counts["Pod"]
    assert len(state.nodepools) == 5 + 2  # the GPU pools, general-purpose and system
    gpu = [n for n in state.nodes if "nvidia.com/gpu" in n.capacity]
    assert len(gpu) == 24  # 40%
    labelled = {n.labels.get("nvidia.com/cuda.driver-version.full") for n in gpu} - {None}
    assert len(labelled) >= 2  # mixed driver branches
    assert len({c.image_id for c in state.nodeclaims if c.image_id}) >= 3  # several AMIs
    pending = [p for p in state.pods if p.node_name is None]
    assert (
        len({(tuple(sorted(p.requests.items())), tuple(sorted(p.node_selector.items()))) for p in pending})
        > 5
    )
    namespace, name = family.EXAMPLE_PENDING_POD.split("/")
    assert any((p.namespace, p.name) == (namespace, name) for p in pending)
    gpu_owners = {p.meta.owner_name for p in state.pods if p.node_name and "nvidia.com/gpu" in p.requests}
    assert len(gpu_owners) >= 8  # many small GPU workloads
    assert not state.notes


def test_family_is_deterministic_and_fuzz_is_seeded(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    family.generate_family(30, 400, a, seed=5, gpu_pools=2, pending_shapes=6)
    family.generate_family(30, 400, b, seed=5, gpu_pools=2, pending_shapes=6)
    assert a.read_bytes() == b.read_bytes()
    assert family.fuzzed(1, 3) == family.fuzzed(1, 3) != family.fuzzed(2, 3)


def test_growth_exponent_and_time_targets() -> None:
    assert abs(targets.growth([(250, 1.0), (500, 2.0), (1000, 4.0)]) - 1.0) < 1e-9
    assert abs(targets.growth([(250, 1.0), (500, 4.0), (1000, 16.0)]) - 2.0) < 1e-9
    assert targets.growth([(250, 1.0)]) is None
    assert (targets.target_for(1000), targets.target_for(2000), targets.target_for(5000)) == (None, 2.0, 3.0)
