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
    # Issue 22: 2x from 1,000 nodes on (every layout); the many-Pending shape: pending and diagnose 3x.
    assert [targets.target_for(n) for n in (500, 999, 1000, 2000, 5000)] == [None, None, 2.0, 2.0, 2.0]
    assert (targets.target_for(500, "pending", "pending"), targets.target_for(500, "pending", "nodes")) == (
        3.0,
        2.0,
    )


def _row(**kw: object) -> object:
    base: dict[str, object] = {
        "shape": "C1000",
        "nodes": 1000,
        "command": "nodes",
        "seconds": 2.0,
        "orjson_nogc": 1.0,
        "peak_rss_mib": 900.0,
        "file_mib": 100.0,
        "rc": 0,
        "floor_rss_mib": 850.0,
        "out_mib": 1.0,
        "layout": "list",
    }
    return targets.Row(**{**base, **kw})


def test_every_target_of_a_row_is_printed_and_a_miss_counted(capsys: object) -> None:
    assert targets.print_targets([_row()], {}, {}, markdown=True) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "| time <= 2x | C1000 | nodes | 2.00x | met |" in out
    assert "RSS <= 1.5x floor's" in out and "JSON <= input" in out
    assert "x file" not in out  # a List is read whole: its RSS is judged against the floor's, not the file
    assert targets.print_targets([_row(seconds=2.1)], {}, {}, markdown=True) == 1
    assert targets.print_targets([_row(peak_rss_mib=1300.0)], {}, {}, markdown=True) == 1
    assert targets.print_targets([_row(out_mib=101.0)], {}, {}, markdown=True) == 1
    assert targets.print_targets([_row(layout="bundle", peak_rss_mib=400.0)], {}, {}, markdown=True) == 1
    loads = [targets.Load("C1000", 1.6)]
    assert targets.print_targets([], {}, {}, markdown=True, loads=loads) == 1
    growth = {"C": {"nodes": [(250, 1.0), (500, 2.5)]}}
    assert targets.print_targets([], growth, {}, markdown=True) == 2  # whole process and minus start-up


compact = load_script(ROOT / "bench" / "compact.py", "bench_compact")


def test_compact_list_family_is_a_kind_list_with_bare_pods(tmp_path: Path) -> None:
    out = tmp_path / "list.json"
    counts = compact.generate_compact(60, out, seed=3)
    assert (
        out.read_bytes().startswith(b'{"apiVersion":"v1","items":[{') and b"\n" not in out.read_bytes()[:-1]
    )
    state = load_snapshot([out])
    assert len(state.nodes) == 60 == counts["Node"] and len(state.pods) == 1200 == counts["Pod"]
    assert not state.notes and not state.duplicates
    bare = [p for p in state.pods if p.meta.owner_kind is None]
    assert 0.1 * len(state.pods) < len(bare) < 0.4 * len(state.pods)
    bare_gpu_images = {c.image for p in bare if "nvidia.com/gpu" in p.requests for c in p.containers}
    assert bare_gpu_images and bare_gpu_images <= set(compact.BARE_IMAGES)


def test_many_pending_shape(tmp_path: Path) -> None:
    out = tmp_path / "pending.json"
    compact.generate_many_pending(out, nodes=40, pods=800, pending=600, shapes=60, launching=50)
    state = load_snapshot([out])
    pending = [p for p in state.pods if p.node_name is None]
    assert len(pending) >= 600 and not state.duplicates
    assert sum(1 for c in state.nodeclaims if not c.node_name) >= 50
    assert len(state.nodepools) == 100 + 2
