"""Whose /metrics is believed (issue 36, item 2; core/usage/trust.py), on the demo bundle's cluster and its
saved window (examples/README.md: dcgm-exporter DaemonSet pods, texts in the real formats): a look-alike
exporter in a tenant's namespace, two exporters claiming one GPU, a GPU read from another node than its
ResourceSlice's, a DaemonSet rollout, an inference server's text that names GPUs and other pods."""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest

from kubectl_gpu.core.analyses import usage
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.k8s.parse import parse_object
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.usage import Scrape, ScrapeSet
from kubectl_gpu.core.usage.bundle import scrapes_from_dict
from kubectl_gpu.core.usage.trust import DAEMONSET, NAMED, UNTRUSTED, exporter_rank, gpu_homes
from tests.helpers import pod

DEMO = json.loads((Path(__file__).resolve().parents[3] / "examples" / "automode-gpu-demo.json").read_text())
CATALOG = load_catalog()
NOW = scrapes_from_dict(DEMO["usage"], "demo").scrapes[-1].taken_at + timedelta(minutes=1)
P5 = "i-0fb95c97fae96da58"  # p5.48xlarge: ml/pretrain-8x-h100-0 on its 8 H100s at ~97 %
EMPTY = "i-06cc6be1805fdf179"  # g6e.xlarge with no GPU pod
REAL = "dcgm-exporter-6vkz5"  # the DaemonSet's exporter on the p5 node
TRAINER = "pretrain-8x-h100-0"


def _demo_scrapes() -> ScrapeSet:
    return scrapes_from_dict(DEMO["usage"], "demo")


def _lookalike(name: str, namespace: str, node: str, owner: str | None) -> dict[str, Any]:
    obj = pod(name, namespace, node_name=node, labels={"app": "dcgm-exporter"}, image="example/exporter:1")
    if owner is not None:
        obj["metadata"]["ownerReferences"] = [
            {
                "apiVersion": "apps/v1",
                "kind": owner,
                "name": name.rsplit("-", 1)[0],
                "uid": "u",
                "controller": True,
            }
        ]
    return obj


def _state(*extra: dict[str, Any]) -> ClusterState:
    objects = [*copy.deepcopy(DEMO["objects"]), *extra]
    return ClusterState.of(parse_object(o) for o in objects)


def _zeroed(text: str) -> str:
    """The p5 exporter's text with every GPU at 0 % (what a hostile pod would write)."""
    return re.sub(r"^(DCGM_FI_DEV_GPU_UTIL\{[^}]*\}) \S+$", r"\1 0", text, flags=re.M)


def _copies(
    namespace: str, name: str, node: str, *, text: Any = _zeroed, shift_s: float = 0.0
) -> list[Scrape]:
    """The p5 exporter's reads, as if `namespace/name` on `node` had written them (`text` applied)."""
    reads = [s for s in _demo_scrapes().scrapes if s.pod == REAL]
    return [
        msgspec.structs.replace(
            s,
            namespace=namespace,
            pod=name,
            node=node,
            text=text(s.text),
            taken_at=s.taken_at + timedelta(seconds=shift_s),
        )
        for s in reads
    ]


def _report(state: ClusterState, extra: list[Scrape], **kw: Any) -> usage.UsageReport:
    saved = _demo_scrapes()
    scrapes = msgspec.structs.replace(saved, scrapes=(*saved.scrapes, *extra))
    return usage.analyse(state, CATALOG, NOW, scrapes=scrapes, **kw)


def _trainer(report: usage.UsageReport) -> float | None:
    (row,) = [p for p in report.pods if p.name == TRAINER]
    return row.util_percent


def _uuids_on_two_rows(report: usage.UsageReport) -> list[str]:
    counts = Counter(g.uuid for g in report.gpus if g.uuid)
    return [uuid for uuid, n in counts.items() if n > 1]


def test_the_demo_as_saved() -> None:
    report = _report(_state(), [])
    assert _trainer(report) == pytest.approx(96.6, abs=0.5)
    assert not _uuids_on_two_rows(report)


def test_a_labelled_pod_in_a_tenant_namespace_is_not_believed() -> None:
    """The review's case: a bare pod labelled app=dcgm-exporter on another node, claiming the trainer's GPUs at
    0 %: before, the trainer read 97 % -> 48.5 % with no word and a UUID sat on two nodes."""
    fake = _lookalike("fake-dcgm", "team-a", EMPTY, owner=None)
    report = _report(_state(fake), _copies("team-a", "fake-dcgm", EMPTY))
    assert _trainer(report) == pytest.approx(96.6, abs=0.5)
    assert not _uuids_on_two_rows(report)
    (note,) = [n for n in report.notes if "team-a/fake-dcgm" in n]
    assert note.startswith(
        "not believed: 1 pod(s) that look like a DCGM exporter but are not owned by a DaemonSet"
    )


def test_two_daemonset_exporters_claiming_one_gpu_are_a_conflict_never_averaged() -> None:
    """A tenant allowed to create DaemonSets: its exporter on another node claims the trainer's GPUs. Neither is
    believed: the trainer's utilisation is unknown, and a note names both pods."""
    fake = _lookalike("fake-dcgm-x1", "team-a", EMPTY, owner="DaemonSet")
    report = _report(_state(fake), _copies("team-a", "fake-dcgm-x1", EMPTY))
    assert _trainer(report) is None
    assert not _uuids_on_two_rows(report)
    conflicts = [n for n in report.notes if n.startswith("conflict: GPU GPU-")]
    assert len(conflicts) == 8  # one per H100
    assert all(
        f"monitoring/{REAL} on {P5}" in n and f"team-a/fake-dcgm-x1 on {EMPTY}" in n for n in conflicts
    )
    assert all("believed from neither" in n for n in conflicts)


def test_a_named_exporter_namespace_wins_a_conflict() -> None:
    fake = _lookalike("fake-dcgm-x1", "team-a", EMPTY, owner="DaemonSet")
    report = _report(
        _state(fake), _copies("team-a", "fake-dcgm-x1", EMPTY), exporter_namespaces=("monitoring",)
    )
    assert _trainer(report) == pytest.approx(96.6, abs=0.5)
    said = [n for n in report.notes if "team-a/fake-dcgm-x1" in n]
    assert len(said) == 8 and all(
        "(an --exporter-namespace), not from team-a/fake-dcgm-x1" in n for n in said
    )


def test_a_second_exporter_on_the_same_node_is_a_conflict_too() -> None:
    """Two exporters on one node (the GPU Operator's and CloudWatch's, or a tenant's DaemonSet) reading the same
    GPUs at once: not averaged, even when they agree."""
    second = _lookalike("cloudwatch-dcgm-ab", "amazon-cloudwatch", P5, owner="DaemonSet")
    report = _report(_state(second), _copies("amazon-cloudwatch", "cloudwatch-dcgm-ab", P5, text=lambda t: t))
    assert _trainer(report) is None
    assert sum(n.startswith("conflict: ") for n in report.notes) == 8


def test_a_daemonset_rollout_is_no_conflict() -> None:
    """The exporter pod replaced by the next one on its node: their reads do not overlap in time."""
    successor = _lookalike("dcgm-exporter-next", "monitoring", P5, owner="DaemonSet")
    later = _copies("monitoring", "dcgm-exporter-next", P5, text=lambda t: t, shift_s=3600)
    report = _report(_state(successor), later)
    assert _trainer(report) == pytest.approx(96.6, abs=0.5)
    assert not [n for n in report.notes if "conflict" in n]


def test_a_gpu_read_from_another_node_than_its_resourceslice_is_not_believed() -> None:
    """NVIDIA's DRA driver publishes each GPU's uuid in the node's ResourceSlice: a reading from an exporter
    on another node is not believed, even of equal rank; the exporter on the GPU's node is."""
    real = _demo_scrapes()
    uuids = sorted(
        set(re.findall(r'UUID="(GPU-[0-9a-f-]+)"', next(s.text for s in real.scrapes if s.pod == REAL) or ""))
    )
    assert len(uuids) == 8
    slice_ = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{P5}-gpu.nvidia.com"},
        "spec": {
            "driver": "gpu.nvidia.com",
            "nodeName": P5,
            "pool": {"name": P5, "generation": 1, "resourceSliceCount": 1},
            "devices": [
                {"name": f"gpu-{i}", "attributes": {"uuid": {"string": u}}} for i, u in enumerate(uuids)
            ],
        },
    }
    fake = _lookalike("fake-dcgm-x1", "team-a", EMPTY, owner="DaemonSet")
    state = _state(fake, slice_)
    assert gpu_homes(state.resourceslices) == dict.fromkeys(uuids, P5)
    report = _report(state, _copies("team-a", "fake-dcgm-x1", EMPTY))
    assert _trainer(report) == pytest.approx(96.6, abs=0.5)
    away = [n for n in report.notes if "(its ResourceSlice): not believed from team-a/fake-dcgm-x1" in n]
    assert len(away) == 8
    assert not [g for g in report.gpus if g.node == EMPTY and g.uuid in uuids]


def test_an_inference_server_speaks_for_its_own_pod_only() -> None:
    """A vLLM pod whose /metrics also carries DCGM series of the trainer's GPUs at 0 % and token counters
    labelled with another pod: the GPUs are not moved, and its tokens are its own pod's."""
    (qwen,) = [s for s in _demo_scrapes().scrapes if s.pod.startswith("vllm-qwen32b")][:1]
    dcgm = _zeroed(next(s.text for s in _demo_scrapes().scrapes if s.pod == REAL) or "")
    lying = (qwen.text or "") + dcgm + 'vllm:generation_tokens_total{model_name="x",pod="vllm-l40s-0"} 1e9\n'
    extra = [msgspec.structs.replace(qwen, text=lying, taken_at=qwen.taken_at + timedelta(seconds=1))]
    before = _report(_state(), [])
    report = _report(_state(), extra)
    assert _trainer(report) == _trainer(before)
    rows = {r.workload.name: r for r in report.inference}
    assert (
        rows["vllm-l40s"].output_tokens_per_s
        == {r.workload.name: r for r in before.inference}["vllm-l40s"].output_tokens_per_s
    )


def test_ranks() -> None:
    def rank(obj: dict[str, Any], namespaces: tuple[str, ...] = ()) -> int:
        model = parse_object(obj)
        return exporter_rank(model, namespaces)  # type: ignore[arg-type]

    assert rank(_lookalike("e-1", "monitoring", P5, "DaemonSet")) == DAEMONSET
    assert rank(_lookalike("e-1", "monitoring", P5, "DaemonSet"), ("monitoring",)) == NAMED
    assert rank(_lookalike("e-1", "team-a", P5, None)) == UNTRUSTED
    assert rank(_lookalike("e-1", "team-a", P5, "ReplicaSet")) == UNTRUSTED
    assert rank(_lookalike("e-1", "team-a", P5, None), ("team-a",)) == NAMED
