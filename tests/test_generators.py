"""The demo and benchmark generators: deterministic, and their bundles load with the expected contents."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from kubectl_gpu.kube.snapshot import build_bundle, load_snapshot, write_bundle
from tests.helpers import load_script

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "automode-gpu-demo.json"


demo = load_script(ROOT / "examples" / "generate_demo.py", "generate_demo")
bench = load_script(ROOT / "bench" / "generate.py", "bench_generate")


def test_demo_is_regenerated_byte_identically(tmp_path: Path) -> None:
    out = tmp_path / "demo.json"
    assert demo.main(["--out", str(out)]) == 0
    assert out.read_bytes() == DEMO.read_bytes(), "run: python examples/generate_demo.py"


def test_demo_bundle_contents() -> None:
    raw = DEMO.read_bytes()
    assert b"hf_DemoOnly" not in raw  # env values are redacted
    state = load_snapshot([DEMO])
    assert state.captured_at == datetime(2026, 11, 28, 9, tzinfo=UTC)
    assert state.context == "arn:aws:eks:us-west-2:111122223333:cluster/demo-prod"
    sizes = (len(state.nodes), len(state.nodeclaims), len(state.nodepools), len(state.nodeclasses))
    assert sizes == (7, 8, 4, 3)
    assert {p.name for p in state.nodepools} == {"general-purpose", "system", "gpu-inference", "gpu-training"}
    unbound = {p.meta.key for p in state.pods if p.node_name is None}
    assert unbound == {
        "default/chat-api-7d9f8c6b5d-x2k4p",
        "ml/finetune-llama-0",
        "ml/notebook-gpu",
        "ml/pretrain-8x-h100-1",
        "ml/batch-spot",
        "research/giant-model",
        "serving/vllm-l40s-2",
        "inference/neuron-bert",
    }
    xid = next(n for n in state.nodes if n.labels["node.kubernetes.io/instance-type"] == "g6e.12xlarge")
    condition = xid.condition("AcceleratedHardwareReady")
    assert condition is not None and condition.status == "False" and condition.reason == "NvidiaXID79Error"
    launching = next(c for c in state.nodeclaims if c.node_name is None)
    nominated = state.events_for("Pod", "vllm-l40s-2", "serving")
    assert any(e.message == f"Pod should schedule on: nodeclaim/{launching.name}" for e in nominated)
    drifted = [c for c in state.nodeclaims if (d := c.condition("Drifted")) is not None and d.is_true]
    assert [c.node_pool for c in drifted] == ["gpu-inference"]
    for pod in ("chat-api-7d9f8c6b5d-x2k4p", "neuron-bert"):
        namespace = "default" if pod.startswith("chat") else "inference"
        components = {e.component for e in state.events_for("Pod", pod, namespace)}
        assert components == {"default-scheduler", "eks-auto-mode/compute"}


def test_bench_tiny_bundle_loads_with_expected_counts(tmp_path: Path) -> None:
    out = tmp_path / "cluster-tiny.json"
    counts = bench.generate(20, 200, out, seed=3)
    state = load_snapshot([out])
    assert len(state.nodes) == 20 == counts["Node"]
    assert len(state.pods) == 200 == counts["Pod"]
    assert len(state.nodeclaims) == counts["NodeClaim"] == 21  # one per node and one still launching
    assert (len(state.nodepools), len(state.nodeclasses)) == (6, 3)
    pending = [p for p in state.pods if p.node_name is None]
    assert len(pending) == 6 and all(p.phase == "Pending" for p in pending)
    assert len(state.events) == counts["Event"] == 2 * len(pending)
    accelerated = [n for n in state.nodes if {"nvidia.com/gpu", "aws.amazon.com/neuron"} & set(n.capacity)]
    assert len(accelerated) == 3
    assert not state.notes


def test_bench_generator_is_deterministic(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    bench.generate(20, 120, a, seed=5)
    bench.generate(20, 120, b, seed=5)
    assert a.read_bytes() == b.read_bytes()


def test_streaming_writer_matches_write_bundle(tmp_path: Path) -> None:
    when = datetime(2026, 11, 28, 9, tzinfo=UTC)
    objects = [
        {"kind": "Node", "apiVersion": "v1", "metadata": {"name": "n1", "labels": {"b": "2", "a": "1"}}},
        {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p1"}, "spec": {"containers": []}},
    ]
    for objs in (objects, []):
        buf = io.BytesIO()
        writer = bench.BundleWriter(buf, captured_at=when, context="ctx")
        for obj in objs:
            writer.write(obj)
        writer.close()
        expected = tmp_path / "expected.json"
        sorted_objs = [orjson.loads(orjson.dumps(o, option=orjson.OPT_SORT_KEYS)) for o in objs]
        bundle = build_bundle(sorted_objs, captured_at=when, context="ctx", notes=[], absent=[])
        write_bundle(bundle, expected)
        assert buf.getvalue() == expected.read_bytes()


# Issue 38: the shapes written from the issue's descriptions (bench/shapes.py), as kubectl prints them.
shapes = load_script(ROOT / "bench" / "shapes.py", "bench_shapes")
pairs = load_script(ROOT / "bench" / "pairs.py", "bench_pairs")
pyspy_top = load_script(ROOT / "bench" / "pyspy_top.py", "bench_pyspy_top")
KINDS_IN_ORDER = ["Node", "Pod", "NodePool", "NodeClaim", "Event"]


def _shape(tmp_path: Path, name: str, nodes: int) -> tuple[Path, dict[str, int]]:
    out = tmp_path / f"{name}.{'yaml' if name == 'yaml' else 'json'}"
    return out, shapes.write(name, out, seed=3, nodes=nodes)


def test_every_shape_is_a_kubectl_list_the_tool_reads(tmp_path: Path) -> None:
    for name in sorted(shapes.SHAPES):
        out, counts = _shape(tmp_path, name, 12)
        state = load_snapshot([out])
        assert not state.notes, (name, state.notes)
        assert (len(state.nodes), len(state.pods), len(state.nodepools), len(state.nodeclaims)) == (
            counts["Node"],
            counts["Pod"],
            counts["NodePool"],
            counts["NodeClaim"],
        ), name
        assert len(state.events) == counts.get("Event", 0), name
        assert any(p.node_name is None for p in state.pods), name  # every shape has Pending pods
        gpu = [n for n in state.nodes if "nvidia.com/gpu" in n.capacity]
        assert gpu and all(n.labels.get("karpenter.sh/nodepool") for n in state.nodes), name


def test_kubectl_list_layout_and_its_yaml_twin(tmp_path: Path) -> None:
    out, _ = _shape(tmp_path, "kubectl-list", 10)
    text = out.read_text()
    assert text.startswith('{\n    "apiVersion": "v1",\n    "items": [\n        {\n')  # kubectl's 4 spaces
    doc = orjson.loads(text)
    assert (doc["kind"], doc["apiVersion"]) == ("List", "v1")
    kinds = [item["kind"] for item in doc["items"]]
    assert kinds == sorted(kinds, key=KINDS_IN_ORDER.index)  # grouped by kind, in kubectl's order
    full = [p for p in doc["items"] if p["kind"] == "Pod" and p["spec"].get("nodeName")]
    assert all(
        "livenessProbe" in p["spec"]["containers"][0] and "containerStatuses" in p["status"] for p in full
    )
    yaml_out, _ = _shape(tmp_path, "yaml", 10)
    import yaml

    assert yaml.load(yaml_out.read_text(), Loader=yaml.CSafeLoader) == doc  # the same cluster


def test_many_pending_and_pools300_have_the_issues_proportions(tmp_path: Path) -> None:
    out, counts = _shape(tmp_path, "many-pending", 10)
    state = load_snapshot([out])
    pending = [p for p in state.pods if p.node_name is None]
    assert len(pending) == 200 and len(state.nodepools) == 102  # 20 a node, 2 shapes a node; 100 + built-in
    assert counts["Event"] == 40  # an event per 5 pods
    assert sum(1 for c in state.nodeclaims if c.node_name is None) == 50
    assert all(1 <= int(p.requests["nvidia.com/gpu"]) <= 16 for p in pending)
    out, _ = _shape(tmp_path, "pools300", 20)
    doc = orjson.loads(out.read_bytes())
    gpu_pools = [
        i for i in doc["items"] if i["kind"] == "NodePool" and i["metadata"]["name"].startswith("gpu-")
    ]
    sizes = [len(p["spec"]["template"]["spec"]["requirements"]) for p in gpu_pools]
    assert len(gpu_pools) == 20 and min(sizes) >= 10 and max(sizes) <= 18


def test_shapes_are_deterministic(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    shapes.write("small", a, seed=5, nodes=8)
    shapes.write("small", b, seed=5, nodes=8)
    assert a.read_bytes() == b.read_bytes()


def test_pairs_table_and_profile_summary(tmp_path: Path) -> None:
    p = pairs.Pair("small", "nodes", 2.0, ratios=[1.5, 2.5, 1.8], seconds=[1.0, 1.1, 1.2])
    p.floor_seconds, p.peak_rss_mib, p.floor_rss_mib, p.out_mib, p.file_mib = [0.6] * 3, 300, 200, 1, 10
    p.load, p.cpu_ratios = (2.0, 3.5), [1.2, 1.4, 1.3]
    row = pairs.table([p]).splitlines()[-1]
    assert row.startswith(
        "| small | nodes | 1.80 (1.50, 2.50, 1.80) | 2.0 met | 1.10 | 0.60 | 1.30 | 1.50 | 0.100 |"
    )
    assert row.endswith("| 2.0-3.5 |")
    total, inclusive, own = pyspy_top.summarise("a (m.py:1);b (kubectl_gpu/x.py:2) 3\na (m.py:1) 1\n")
    assert (total, inclusive["a (m)"], own["b (x)"], own["a (m)"]) == (4, 4, 3, 1)


def test_ab_times_an_analysis_in_process_from_each_tree(tmp_path: Path) -> None:
    """`bench/ab.py --analyses`: one row per input and analysis, each tree's CPU seconds, minimum first."""
    ab = load_script(ROOT / "bench" / "ab.py", "bench_ab")
    out, _ = _shape(tmp_path, "pools300", 6)
    row = ab.compare_in_process(ROOT, out, "lint", 2)
    cells = row.strip("|").split("|")
    assert [c.strip() for c in cells[:2]] == [out.name, "lint"]
    for cell in cells[2:4]:
        low, rest = cell.split("/", 1)
        median, each = rest.split("(", 1)
        rounds = [float(x) for x in each.rstrip(") ").split(",")]
        assert len(rounds) == 2 and float(low) == min(rounds) and 0 < float(low) <= float(median)


def test_ab_counts_an_analysis_less_its_load(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`bench/ab.py --instructions`: valgrind's count of the analysis's child less the load-only child's, per
    tree, read from cachegrind's summary line (canned here: valgrind runs ~50x slower than the analysis)."""
    import subprocess

    ab = load_script(ROOT / "bench" / "ab.py", "bench_ab")
    seen: list[list[str]] = []
    counts = {("before", "none"): 1000, ("before", "lint"): 5000, ("after", "none"): 1000, ("after", "lint"): 4000}

    def run(argv: list[str], env: dict[str, str], **_: object) -> subprocess.CompletedProcess[str]:
        seen.append(argv)
        tree = "before" if env["PYTHONPATH"] == str(tmp_path) else "after"
        refs = f"{counts[(tree, argv[-2])] * 1_000_000:,}"
        return subprocess.CompletedProcess(argv, 0, "", f"==1== \n==1== I   refs:      {refs}\n")

    monkeypatch.setattr(ab.subprocess, "run", run)
    row = ab.compare_instructions(tmp_path, tmp_path / "in.json", "lint")
    assert row == "| in.json | lint | 4,000 | 3,000 | 0.750 |"
    assert all(a[:3] == ["valgrind", "--tool=cachegrind", "--cache-sim=no"] for a in seen) and len(seen) == 4
