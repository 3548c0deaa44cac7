#!/usr/bin/env python3
"""Generate large synthetic EKS Auto Mode snapshot bundles for benchmarking.

    python bench/generate.py --size S|M|L [--out bench/out] [--seed 7]

writes `<out>/cluster-<size>.json` (S: 100 nodes / 2,000 pods, M: 2,000 / 40,000, L: 5,000 / 150,000):
about 15% accelerated nodes over four NodePools (g6e/g6 inference, p5/p4d training with its GPU limit used
up, g5 batch, inf2 Neuron) plus the built-in general-purpose and system pools, a NodeClaim per node and a
few still launching, DaemonSet pods on every node, GPU pods filling the GPUs, ~3% Pending GPU pods from five
Deployment shapes that cannot schedule (with the scheduler's and Auto Mode's events), ~3% finished Job pods
and CPU Deployments for the rest. Objects look like `kubectl get -o json` items; the bundle is written the
way `write_bundle` writes it (indent 2, redacted pods), one object at a time: pods are never all in memory.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import IO, Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
import cluster_builder as cb  # noqa: E402
from kubectl_gpu.kube.snapshot import build_bundle, redact  # noqa: E402

__all__ = ["EXAMPLE_PENDING_POD", "SIZES", "BundleWriter", "generate"]

Obj = dict[str, Any]

SIZES: dict[str, tuple[int, int]] = {"S": (100, 2_000), "M": (2_000, 40_000), "L": (5_000, 150_000)}
NOW = datetime(2026, 11, 28, 9, 0, 0, tzinfo=UTC)
NOW_TEXT = cb.ts(NOW)  # as `--now` takes it
CONTEXT = "arn:aws:eks:us-west-2:111122223333:cluster/bench"
GPU_SHARE = 0.15
PENDING_SHARE = 0.03
COMPLETED_SHARE = 0.03
ZONES = ("us-west-2a", "us-west-2b", "us-west-2c")

GPU_TAINT = {"effect": "NoSchedule", "key": "nvidia.com/gpu"}
NEURON_TAINT = {"effect": "NoSchedule", "key": "aws.amazon.com/neuron"}
GPU_TOLERATION = {"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}
NEURON_TOLERATION = {"effect": "NoSchedule", "key": "aws.amazon.com/neuron", "operator": "Exists"}
TOLERATE_ALL = {"operator": "Exists"}

DEFAULT_NC = cb.DEFAULT_NODECLASS
GPU_NC = cb.NodeClassDef("gpu", ephemeral_size="200Gi")
TRAINING_NC = cb.NodeClassDef("training", ephemeral_size="4Ti", iops=16000, throughput=1000)
GENERAL = cb.GENERAL_PURPOSE
SYSTEM = cb.SYSTEM
_NVIDIA_ON_DEMAND = (
    cb.req("eks.amazonaws.com/instance-gpu-manufacturer", "In", "nvidia"),
    cb.req("karpenter.sh/capacity-type", "In", "on-demand"),
    cb.req("kubernetes.io/arch", "In", "amd64"),
)
INFERENCE = cb.NodePoolDef(
    "gpu-inference",
    "gpu",
    (cb.req("eks.amazonaws.com/instance-family", "In", "g6e", "g6"), *_NVIDIA_ON_DEMAND),
    taints=(GPU_TAINT,),
    termination_grace_period="24h",
    consolidate_after="1h",
)
TRAINING = cb.NodePoolDef(
    "gpu-training",
    "training",
    (cb.req("eks.amazonaws.com/instance-family", "In", "p5", "p4d"), *_NVIDIA_ON_DEMAND),
    taints=(GPU_TAINT,),
    expire_after="Never",
    termination_grace_period=None,
    consolidation_policy="WhenEmpty",
    consolidate_after="30m",
    budgets=({"duration": "8h", "nodes": "0", "schedule": "0 9 * * mon-fri"}, {"nodes": "1"}),
)
BATCH = cb.NodePoolDef(
    "gpu-batch",
    "gpu",
    (
        cb.req("eks.amazonaws.com/instance-family", "In", "g5"),
        cb.req("karpenter.sh/capacity-type", "In", "spot", "on-demand"),
        cb.req("kubernetes.io/arch", "In", "amd64"),
    ),
    taints=(GPU_TAINT,),
    consolidate_after="5m",
)
NEURON = cb.NodePoolDef(
    "neuron",
    "gpu",
    (
        cb.req("eks.amazonaws.com/instance-family", "In", "inf2"),
        cb.req("karpenter.sh/capacity-type", "In", "on-demand"),
    ),
    taints=(NEURON_TAINT,),
)
POOLS = (GENERAL, BATCH, INFERENCE, TRAINING, NEURON, SYSTEM)  # Karpenter order: weight (none), then name
ACCELERATED_TYPES: tuple[tuple[str, cb.NodePoolDef, cb.NodeClassDef, int], ...] = (
    ("g6e.xlarge", INFERENCE, GPU_NC, 25),
    ("g6e.2xlarge", INFERENCE, GPU_NC, 15),
    ("g6e.12xlarge", INFERENCE, GPU_NC, 8),
    ("g6e.48xlarge", INFERENCE, GPU_NC, 3),
    ("g6.xlarge", INFERENCE, GPU_NC, 12),
    ("g6.12xlarge", INFERENCE, GPU_NC, 4),
    ("p5.48xlarge", TRAINING, TRAINING_NC, 5),
    ("p4d.24xlarge", TRAINING, TRAINING_NC, 3),
    ("g5.xlarge", BATCH, GPU_NC, 10),
    ("g5.2xlarge", BATCH, GPU_NC, 6),
    ("g5.12xlarge", BATCH, GPU_NC, 3),
    ("inf2.xlarge", NEURON, GPU_NC, 4),
    ("inf2.8xlarge", NEURON, GPU_NC, 2),
)
CPU_TYPES = (
    ("m6a.4xlarge", 30),
    ("c6a.4xlarge", 15),
    ("r6a.4xlarge", 15),
    ("m7i.4xlarge", 25),
    ("m6a.8xlarge", 15),
)
NAMESPACES = (
    "payments",
    "checkout",
    "search",
    "catalog",
    "identity",
    "notifications",
    "analytics",
    "web",
    "recommendations",
    "data-pipeline",
    "platform",
    "observability",
)


@dataclass(frozen=True)
class App:
    """A CPU workload archetype: image, requests (millicores, MiB), port, runtime-specific env."""

    kind: str
    image: str
    cpu_m: int
    mem_mi: int
    port: int
    env: tuple[tuple[str, str], ...]


APPS = (
    App(
        "java",
        "111122223333.dkr.ecr.us-west-2.amazonaws.com/{name}:2026.11.{build}",
        500,
        1024,
        8080,
        (("JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=75 -XX:+UseG1GC"), ("SPRING_PROFILES_ACTIVE", "prod")),
    ),
    App(
        "go",
        "111122223333.dkr.ecr.us-west-2.amazonaws.com/{name}:v1.{build}.0",
        100,
        128,
        9090,
        (("GOMAXPROCS", "2"), ("GOMEMLIMIT", "110MiB")),
    ),
    App(
        "node",
        "111122223333.dkr.ecr.us-west-2.amazonaws.com/{name}:{build}-alpine",
        200,
        384,
        3000,
        (("NODE_ENV", "production"), ("NODE_OPTIONS", "--max-old-space-size=320")),
    ),
    App(
        "python",
        "111122223333.dkr.ecr.us-west-2.amazonaws.com/{name}:py3.12-{build}",
        250,
        512,
        8000,
        (("GUNICORN_WORKERS", "3"), ("PYTHONUNBUFFERED", "1")),
    ),
    App("nginx", "nginx:1.27.{build}", 100, 64, 8080, (("NGINX_WORKER_PROCESSES", "auto"),)),
)
COMMON_ENV = (
    ("LOG_LEVEL", "info"),
    ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://otel-collector.observability:4317"),
    ("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=prod"),
    ("AWS_REGION", "us-west-2"),
    ("AWS_STS_REGIONAL_ENDPOINTS", "regional"),
    ("FEATURE_FLAGS_URL", "http://flags.platform:8080"),
)


@dataclass(frozen=True)
class PendingShape:
    """A GPU Deployment whose replicas cannot schedule, and what Karpenter says about each pool."""

    namespace: str
    name: str
    image: str
    requests: Mapping[str, str]
    weight: int
    tolerations: tuple[Obj, ...] = (GPU_TOLERATION,)
    node_selector: Mapping[str, str] = field(default_factory=dict)


PENDING_SHAPES = (
    PendingShape(
        "llm-serving",
        "chat-api",
        "vllm/vllm-openai:v0.11.0",
        {"cpu": "1", "memory": "4Gi", "nvidia.com/gpu": "1"},
        40,
        (),
    ),
    PendingShape(
        "ml-research",
        "notebook",
        "quay.io/jupyter/pytorch-notebook:cuda12-python-3.12",
        {"cpu": "2", "memory": "16Gi", "nvidia.com/gpu": "1"},
        20,
        node_selector={"nvidia.com/gpu.present": "true"},
    ),
    PendingShape(
        "training",
        "pretrain-h100",
        "nvcr.io/nvidia/pytorch:25.01-py3",
        {"cpu": "180", "memory": "1800Gi", "nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32"},
        15,
        node_selector={"eks.amazonaws.com/instance-family": "p5"},
    ),
    PendingShape(
        "research",
        "giant-model",
        "nvcr.io/nvidia/pytorch:25.01-py3",
        {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "16"},
        10,
    ),
    PendingShape(
        "ml-research",
        "mig-inference",
        "nvidia/cuda:12.8.0-runtime-ubuntu22.04",
        {"cpu": "2", "memory": "8Gi", "nvidia.com/mig-1g.10gb": "1"},
        15,
    ),
)


def _taint_msg(taint: Mapping[str, str]) -> str:
    return f"did not tolerate taint (taint={taint['key']}:{taint['effect']})"


def karpenter_errors(shape: PendingShape) -> list[str]:
    """Karpenter's per-NodePool errors for a pending shape, in POOLS order (limits, taints, requirements,
    instance types - the order `addToNewNodeClaim` checks them)."""
    selector_reqs = [cb.req(k, "In", v) for k, v in shape.node_selector.items()]
    errors = []
    for pool in POOLS:
        if pool is TRAINING:
            errors.append(f"all available instance types exceed limits for nodepool (NodePool={pool.name})")
            continue
        untolerated = [t for t in pool.taints if not any(_tolerates(tol, t) for tol in shape.tolerations)]
        if untolerated:
            errors.append("; ".join(_taint_msg(t) for t in untolerated))
            continue
        key, values = next(iter(shape.node_selector.items()), (None, None))
        if key == "nvidia.com/gpu.present":
            errors.append(f'incompatible requirements, label "{key}" does not have known values')
            continue
        pool_family = pool.values("eks.amazonaws.com/instance-family")
        if key == "eks.amazonaws.com/instance-family" and pool_family is not None:
            errors.append(
                f"incompatible requirements, key {key}, In [{values}] not in In [{' '.join(sorted(pool_family))}]"
            )
            continue
        text = "no instance type has enough resources"
        if key == "eks.amazonaws.com/instance-family":
            text = "no instance type met the scheduling requirements or had enough resources"
        reqs = cb.karpenter_requirements(cb.pod_requirements(pool, selector_reqs))
        errors.append(f"{text}, requirements={reqs}, resources={cb.karpenter_resources(shape.requests)}")
    return errors


def _tolerates(toleration: Mapping[str, str], taint: Mapping[str, str]) -> bool:
    return (not toleration.get("key") or toleration["key"] == taint["key"]) and (
        not toleration.get("effect") or toleration["effect"] == taint["effect"]
    )


class BundleWriter:
    """Writes a bundle object by object, byte-identical to `write_bundle(build_bundle(...))` of the same
    objects with sorted keys (which is how `kubectl get -o json` prints them)."""

    def __init__(self, fh: IO[bytes], *, captured_at: datetime, context: str | None) -> None:
        head = orjson.dumps(
            build_bundle([], captured_at=captured_at, context=context, notes=[], absent=[], redacted=True),
            option=orjson.OPT_INDENT_2,
        )
        tail = b"[]\n}"
        if not head.endswith(tail):
            raise RuntimeError("bundle layout changed: 'objects' is no longer the last key")
        self._fh = fh
        self._fh.write(head[: -len(tail)] + b"[")
        self._first = True
        self.counts: dict[str, int] = {}

    def write(self, obj: Obj) -> None:
        data = orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
        self._fh.write((b"\n    " if self._first else b",\n    ") + data.replace(b"\n", b"\n    "))
        self._first = False
        self.counts[obj["kind"]] = self.counts.get(obj["kind"], 0) + 1

    def close(self) -> None:
        self._fh.write(b"]\n}\n" if self._first else b"\n  ]\n}\n")


@dataclass
class Slot:
    """A node being filled: what is left of it for pods."""

    node: Obj
    cpu_m: int
    mem_mi: int
    pods: int
    used: dict[str, Decimal] = field(default_factory=dict)

    def take(self, cpu_m: int, mem_mi: int, extra: Mapping[str, int] | None = None) -> None:
        self.cpu_m -= cpu_m
        self.mem_mi -= mem_mi
        self.pods -= 1
        add = {"cpu": Decimal(cpu_m) / 1000, "memory": Decimal(mem_mi * 1024 * 1024)}
        add.update((k, Decimal(v)) for k, v in (extra or {}).items())
        for k, v in add.items():
            self.used[k] = self.used.get(k, Decimal(0)) + v


def _alloc(node: Obj) -> tuple[int, int, int]:
    alloc = node["status"]["allocatable"]
    cpu = int(alloc["cpu"][:-1]) if alloc["cpu"].endswith("m") else int(alloc["cpu"]) * 1000
    return cpu, int(alloc["memory"][:-2]) // 1024, int(alloc["pods"])


class Generator:
    """Builds one synthetic cluster and streams it into a BundleWriter."""

    def __init__(self, nodes: int, pods: int, seed: int) -> None:
        if pods < nodes * 3:
            raise ValueError(f"{pods} pods cannot fill {nodes} nodes (need at least 3 per node)")
        self.n_nodes, self.n_pods = nodes, pods
        self.ids = cb.Ids(seed)
        self.rng = self.ids.rng
        self.owner_uids: dict[tuple[str, str, str], str] = {}
        self.pending_events: list[Obj] = []
        amis = {k: self.ids.ami() for k in range(6)}
        self.old = cb.OsRelease(
            "2026.11.6",
            "6.12.55",
            "v1.34.1-eks-113cf36",
            "containerd://2.1.5+bottlerocket",
            {(True, "amd64"): amis[0], (False, "amd64"): amis[1], (False, "arm64"): amis[2]},
        )
        self.new = cb.OsRelease(
            "2026.11.20",
            "6.12.58",
            "v1.34.2-eks-b3126f4",
            "containerd://2.1.5+bottlerocket",
            {(True, "amd64"): amis[3], (False, "amd64"): amis[4], (False, "arm64"): amis[5]},
        )

    def owner(self, kind: str, namespace: str, name: str) -> Obj:
        api = "batch/v1" if kind == "Job" else "apps/v1"
        uid = self.owner_uids.setdefault((kind, namespace, name), self.ids.uid())
        return cb.owner_ref(api, kind, name, uid)

    def pod_name(self, namespace: str, prefix: str) -> str:
        return self.ids.unique_name(prefix, namespace)

    # ---- nodes

    def node_defs(self) -> list[cb.NodeDef]:
        accelerated = round(self.n_nodes * GPU_SHARE)
        system = max(1, self.n_nodes // 50)
        general = self.n_nodes - accelerated - system
        drift_cut = datetime(2026, 11, 21, 12, tzinfo=UTC)
        defs = []
        kinds = (
            [
                self.rng.choices(ACCELERATED_TYPES, weights=[a[3] for a in ACCELERATED_TYPES])[0]
                for _ in range(accelerated)
            ]
            + [
                (self.rng.choices(CPU_TYPES, weights=[c[1] for c in CPU_TYPES])[0][0], GENERAL, DEFAULT_NC, 0)
                for _ in range(general)
            ]
            + [("m7g.2xlarge", SYSTEM, DEFAULT_NC, 0)] * system
        )
        for itype, pool, nodeclass, _ in kinds:
            created = NOW - timedelta(seconds=int(13.5 * 86400 * self.rng.random() ** 2) + 120)
            old = created < drift_cut
            xid = pool in (INFERENCE, BATCH) and self.rng.random() < 0.02
            defs.append(
                cb.NodeDef(
                    itype,
                    pool,
                    nodeclass,
                    self.rng.choice(ZONES),
                    created,
                    self.old if old else self.new,
                    drifted="AMIDrift" if old else None,
                    unhealthy_gpus=1 if xid else 0,
                    accelerated_condition=_XID if xid else None,
                    images=(("public.ecr.aws/aws-observability/aws-for-fluent-bit:2.32.5", 112_904_337),),
                )
            )
        for _ in range(max(1, accelerated // 100)):
            defs.append(
                cb.NodeDef(
                    "g6e.xlarge",
                    INFERENCE,
                    GPU_NC,
                    self.rng.choice(ZONES),
                    NOW - timedelta(seconds=self.rng.randint(5, 60)),
                    self.new,
                    launching=True,
                    requests={"cpu": "1", "memory": "4Gi", "nvidia.com/gpu": "1", "pods": "1"},
                )
            )
        return defs

    def infrastructure(self) -> tuple[list[Obj], list[Obj], list[Obj], list[Obj]]:
        ids = self.ids
        nodes, claims = [], []
        for nd in self.node_defs():
            node, claim = cb.node_and_claim(ids, nd, NOW)
            claims.append(claim)
            if node is not None:
                nodes.append(node)
        subnets = [f"subnet-0{ids.hex(16)}" for _ in ZONES]
        sg = f"sg-0{ids.hex(16)}"
        created = datetime(2026, 6, 2, 17, 21, 9, tzinfo=UTC)
        classes = [
            cb.nodeclass(ids, nc, created, subnets=subnets, sg=sg) for nc in (DEFAULT_NC, GPU_NC, TRAINING_NC)
        ]
        pools = []
        for pool in POOLS:
            mine = [c for c in claims if c["metadata"]["labels"]["karpenter.sh/nodepool"] == pool.name]
            usage = cb.sum_resources(c["status"]["capacity"] for c in mine)
            usage["nodes"] = str(len(mine))
            if pool is TRAINING:
                pool = _with_limits(pool, {"nvidia.com/gpu": usage.get("nvidia.com/gpu", "0")})
            elif pool is not GENERAL and pool is not SYSTEM:
                pool = _with_limits(pool, {"nvidia.com/gpu": "1000", "aws.amazon.com/neuron": "200"})
            pools.append(cb.nodepool(ids, pool, created, nodes=len(mine), resources=usage))
        return classes, pools, nodes, claims

    # ---- pods

    def pods(self, nodes: Sequence[Obj]) -> Iterator[Obj]:
        """Every pod, bound ones first; yields (redacted) pods one at a time."""
        slots = [Slot(n, *_alloc(n)) for n in nodes]
        budget = self.n_pods
        for ds in self.daemonset_pods(slots):
            budget -= 1
            yield ds
        for gp in self.gpu_pods(slots):
            budget -= 1
            yield gp
        pending = max(len(PENDING_SHAPES), round(self.n_pods * PENDING_SHARE))
        completed = round(self.n_pods * COMPLETED_SHARE)
        app_pods = budget - pending - completed
        if app_pods < 0:
            raise ValueError("too few pods for the nodes: raise the pod count")
        yield from self.app_pods(slots, app_pods)
        yield from self.job_pods(slots, completed)
        yield from self.pending_pods(nodes, slots, pending)

    def daemonset_pods(self, slots: Sequence[Slot]) -> Iterator[Obj]:
        agents = (
            (
                "amazon-cloudwatch",
                "fluent-bit",
                "public.ecr.aws/aws-observability/aws-for-fluent-bit:2.32.5",
                50,
                100,
            ),
            ("observability", "node-exporter", "quay.io/prometheus/node-exporter:v1.9.1", 20, 48),
        )
        dcgm = (
            "observability",
            "dcgm-exporter",
            "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.3-ubuntu22.04",
            100,
            512,
        )
        for slot in slots:
            node = slot.node
            gpus = int(node["status"]["capacity"].get("nvidia.com/gpu", "0"))
            for ns, name, image, cpu, mem in agents + ((dcgm,) if gpus else ()):
                slot.take(cpu, mem)
                yield redact(
                    cb.pod(
                        self.ids,
                        ns,
                        self.pod_name(ns, name),
                        _created(node),
                        [
                            cb.container(
                                name,
                                image,
                                requests={"cpu": f"{cpu}m", "memory": f"{mem}Mi"},
                                limits={"memory": f"{mem * 2}Mi"},
                                env=[
                                    cb.env_field("NODE_NAME", "spec.nodeName"),
                                    cb.env_var("LOG_LEVEL", "info"),
                                ],
                                ports=[("metrics", 9400 if name == "dcgm-exporter" else 2020)],
                                mounts=[{"mountPath": "/var/log", "name": "varlog", "readOnly": True}],
                            )
                        ],
                        now=NOW,
                        node=node,
                        owner=self.owner("DaemonSet", ns, name),
                        labels={
                            "app.kubernetes.io/name": name,
                            "controller-revision-hash": "6d5f8b7c9d",
                            "pod-template-generation": "3",
                        },
                        tolerations=[TOLERATE_ALL],
                        service_account=name,
                        extra_volumes=[{"hostPath": {"path": "/var/log", "type": ""}, "name": "varlog"}],
                    )
                )

    def gpu_pods(self, slots: Sequence[Slot]) -> Iterator[Obj]:
        for slot in slots:
            node = slot.node
            labels = node["metadata"]["labels"]
            alloc = node["status"]["allocatable"]
            gpus = int(alloc.get("nvidia.com/gpu", "0"))
            neuron = int(alloc.get("aws.amazon.com/neuron", "0"))
            if neuron:
                yield self.accel_pod(
                    slot, "inference", "neuron-bert", {"aws.amazon.com/neuron": 1}, 2000, 8192
                )
                continue
            if not gpus or self.rng.random() < 0.1:
                continue
            family = labels.get("eks.amazonaws.com/instance-family", "")
            if family in ("p5", "p4d"):
                efa = int(alloc.get("vpc.amazonaws.com/efa", "0"))
                extra = {"nvidia.com/gpu": gpus, **({"vpc.amazonaws.com/efa": efa} if efa else {})}
                yield self.accel_pod(slot, "training", f"pretrain-{family}", extra, 90_000, 900 * 1024)
            elif gpus >= 4 and self.rng.random() < 0.5:
                for _ in range(gpus // 4):
                    yield self.accel_pod(
                        slot, "llm-serving", "vllm-llama70b", {"nvidia.com/gpu": 4}, 16_000, 160 * 1024
                    )
            else:
                for _ in range(max(1, gpus - self.rng.randint(0, gpus // 4))):
                    yield self.accel_pod(
                        slot, "llm-serving", "vllm-qwen7b", {"nvidia.com/gpu": 1}, 2000, 16 * 1024
                    )

    def accel_pod(self, slot: Slot, ns: str, name: str, accel: Mapping[str, int], cpu: int, mem: int) -> Obj:
        slot.take(cpu, mem, accel)
        node = slot.node
        requests = {"cpu": f"{cpu}m", "memory": f"{mem}Mi", **{k: str(v) for k, v in accel.items()}}
        neuron = "aws.amazon.com/neuron" in accel
        image = (
            "public.ecr.aws/neuron/pytorch-inference-neuronx:2.5.1-neuronx-py310-sdk2.21.0-ubuntu22.04"
            if neuron
            else "nvcr.io/nvidia/pytorch:25.01-py3"
            if ns == "training"
            else "vllm/vllm-openai:v0.11.0"
        )
        rs = f"{name}-{_hash(name)}"
        selector = (
            {}
            if neuron
            else {
                "eks.amazonaws.com/instance-gpu-name": node["metadata"]["labels"][
                    "eks.amazonaws.com/instance-gpu-name"
                ]
            }
        )
        return redact(
            cb.pod(
                self.ids,
                ns,
                self.pod_name(ns, rs),
                _created(node),
                [
                    cb.container(
                        "main",
                        image,
                        requests=requests,
                        limits={k: v for k, v in requests.items() if k != "cpu"},
                        args=["--model", "Qwen/Qwen2.5-7B-Instruct", "--port", "8000"],
                        env=[
                            cb.env_var("HF_TOKEN", "hf_BenchOnlyNotARealToken000000000000"),
                            cb.env_var("HF_HOME", "/models/hf"),
                            cb.env_field("POD_NAME", "metadata.name"),
                            cb.env_secret("WANDB_API_KEY", "wandb", "api-key"),
                        ],
                        ports=[("http", 8000)],
                        probe_port=8000,
                        mounts=[{"mountPath": "/dev/shm", "name": "dshm"}],
                    )
                ],
                now=NOW,
                node=node,
                owner=self.owner("ReplicaSet", ns, rs),
                labels={"app.kubernetes.io/name": name, "pod-template-hash": _hash(name)},
                annotations={"karpenter.sh/do-not-disrupt": "true"} if ns == "training" else None,
                tolerations=[NEURON_TOLERATION if neuron else GPU_TOLERATION],
                node_selector=selector,
                extra_volumes=[{"emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}, "name": "dshm"}],
            )
        )

    def app_pods(self, slots: Sequence[Slot], count: int) -> Iterator[Obj]:
        general = [
            s for s in slots if s.node["metadata"]["labels"]["karpenter.sh/nodepool"] == "general-purpose"
        ]
        deployments = max(4, count // 40)
        specs = []
        for i in range(deployments):
            app = APPS[i % len(APPS)]
            ns = NAMESPACES[i % len(NAMESPACES)]
            name = f"{ns.split('-')[0]}-{app.kind}-svc{i:03d}"
            specs.append((ns, name, app, _hash(name), self._containers(name, app, i)))
        cursor = 0
        for i in range(count):
            ns, name, app, rs_hash, containers = specs[i % deployments]
            for _ in range(len(general)):
                slot = general[cursor % len(general)]
                cursor += 1
                if slot.pods > 0 and slot.cpu_m >= app.cpu_m and slot.mem_mi >= app.mem_mi:
                    break
            else:
                raise ValueError("general-purpose nodes are full: too many pods for the node count")
            slot.take(app.cpu_m, app.mem_mi)
            yield redact(
                cb.pod(
                    self.ids,
                    ns,
                    self.pod_name(ns, f"{name}-{rs_hash}"),
                    _created(slot.node),
                    containers,
                    now=NOW,
                    node=slot.node,
                    owner=self.owner("ReplicaSet", ns, f"{name}-{rs_hash}"),
                    labels={
                        "app.kubernetes.io/name": name,
                        "app.kubernetes.io/part-of": ns,
                        "app.kubernetes.io/version": f"2026.11.{i % 28 + 1}",
                        "pod-template-hash": rs_hash,
                    },
                    annotations={"prometheus.io/port": str(app.port), "prometheus.io/scrape": "true"},
                    service_account=name,
                )
            )

    def _containers(self, name: str, app: App, index: int) -> list[Obj]:
        env = [cb.env_var(k, v) for k, v in (*COMMON_ENV, *app.env)]
        env += [
            cb.env_var("SERVICE_NAME", name),
            cb.env_secret("DB_PASSWORD", f"{name}-db", "password"),
            cb.env_secret("API_KEY", f"{name}-api", "key"),
            cb.env_field("POD_NAME", "metadata.name"),
            cb.env_field("POD_NAMESPACE", "metadata.namespace"),
            cb.env_field("POD_IP", "status.podIP"),
        ]
        main = cb.container(
            name,
            app.image.format(name=name, build=index % 9 + 1),
            requests={"cpu": f"{app.cpu_m}m", "memory": f"{app.mem_mi}Mi"},
            limits={"memory": f"{app.mem_mi * 2}Mi"},
            env=env,
            ports=[("http", app.port), ("metrics", 9464)],
            probe_port=app.port,
            probe_path="/healthz",
        )
        if index % 3:
            return [main]
        sidecar = cb.container(
            "envoy",
            "public.ecr.aws/appmesh/aws-appmesh-envoy:v1.31.2.0-prod",
            requests={"cpu": "10m", "memory": "32Mi"},
            limits={"memory": "128Mi"},
            env=[cb.env_var("ENVOY_LOG_LEVEL", "warn")],
            ports=[("envoy-admin", 9901)],
        )
        return [main, sidecar]

    def job_pods(self, slots: Sequence[Slot], count: int) -> Iterator[Obj]:
        general = [
            s for s in slots if s.node["metadata"]["labels"]["karpenter.sh/nodepool"] == "general-purpose"
        ]
        for i in range(count):
            slot = general[(i * 7) % len(general)]
            ns = NAMESPACES[i % len(NAMESPACES)]
            started = NOW - timedelta(minutes=30 * (i % 48) + 5)
            job = f"{ns.split('-')[0]}-report-{int(started.timestamp()) // 60}"
            failed = i % 37 == 0
            yield redact(
                cb.pod(
                    self.ids,
                    ns,
                    self.pod_name(ns, job),
                    started,
                    [
                        cb.container(
                            "report",
                            "111122223333.dkr.ecr.us-west-2.amazonaws.com/reports:2026.11.3",
                            requests={"cpu": "500m", "memory": "1Gi"},
                            limits={"memory": "1Gi"},
                            command=["python", "-m", "reports.run"],
                            args=["--window", "30m"],
                            env=[cb.env_var(k, v) for k, v in COMMON_ENV],
                        )
                    ],
                    now=NOW,
                    node=slot.node,
                    phase="Failed" if failed else "Succeeded",
                    exit_code=1 if failed else 0,
                    owner=self.owner("Job", ns, job),
                    labels={"batch.kubernetes.io/job-name": job, "job-name": job},
                )
            )

    def pending_pods(self, nodes: Sequence[Obj], slots: Sequence[Slot], count: int) -> Iterator[Obj]:
        used = {s.node["metadata"]["name"]: s.used for s in slots}
        messages = []
        for shape in PENDING_SHAPES:
            probe = self._pending_pod(shape, "probe", NOW)
            reasons, preemption = cb.scheduler_verdict(probe, nodes, used)
            messages.append(
                (
                    cb.scheduler_failed(len(nodes), reasons, preemption),
                    cb.karpenter_failed(karpenter_errors(shape)),
                )
            )
        weights = [s.weight for s in PENDING_SHAPES]
        for i in range(count):
            k = (
                i
                if i < len(PENDING_SHAPES)
                else self.rng.choices(range(len(PENDING_SHAPES)), weights=weights)[0]
            )
            shape = PENDING_SHAPES[k]
            created = NOW - timedelta(seconds=self.rng.randint(60, 36 * 3600))
            # The first pod of each shape has a fixed name, so a command can target it in every size.
            prefix = f"{shape.name}-{_hash(shape.name)}"
            if i < len(PENDING_SHAPES):
                name = f"{prefix}-{_EXAMPLE_SUFFIX}"
                self.ids.reserve(name, shape.namespace)
            else:
                name = self.pod_name(shape.namespace, prefix)
            p = self._pending_pod(shape, name, created)
            sched, auto = messages[k]
            p["status"]["conditions"][0]["message"] = sched
            minutes = int((NOW - created).total_seconds() // 60)
            last = NOW - timedelta(seconds=self.rng.randint(5, 55))
            self.pending_events.append(
                cb.event(
                    self.ids,
                    p,
                    reason="FailedScheduling",
                    message=sched,
                    component=cb.SCHEDULER,
                    first=created + timedelta(seconds=1),
                    last=last,
                    count=minutes // 5 + 2,
                )
            )
            self.pending_events.append(
                cb.event(
                    self.ids,
                    p,
                    reason="FailedScheduling",
                    message=auto,
                    component=cb.AUTO_MODE_COMPONENT,
                    first=created + timedelta(seconds=3),
                    last=last,
                    count=minutes // 5 + 1,
                )
            )
            yield redact(p)

    def _pending_pod(self, shape: PendingShape, name: str, created: datetime) -> Obj:
        rs_hash = _hash(shape.name)
        return cb.pod(
            self.ids,
            shape.namespace,
            name,
            created,
            [
                cb.container(
                    "main",
                    shape.image,
                    requests=dict(shape.requests),
                    limits={k: v for k, v in shape.requests.items() if k != "cpu"},
                    env=[
                        cb.env_var("HF_TOKEN", "hf_BenchOnlyNotARealToken000000000000"),
                        cb.env_var("LOG_LEVEL", "info"),
                    ],
                    ports=[("http", 8000)],
                )
            ],
            now=NOW,
            owner=self.owner("ReplicaSet", shape.namespace, f"{shape.name}-{rs_hash}"),
            labels={"app.kubernetes.io/name": shape.name, "pod-template-hash": rs_hash},
            tolerations=list(shape.tolerations),
            node_selector=shape.node_selector or None,
        )


def _hash(name: str) -> str:
    """A stable pod-template-hash look-alike for a workload name."""
    digest = hashlib.sha256(name.encode()).digest()
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    return "".join(alphabet[b % len(alphabet)] for b in digest[:10])


_EXAMPLE_SUFFIX = "xbnch"
EXAMPLE_PENDING_POD = f"llm-serving/chat-api-{_hash('chat-api')}-{_EXAMPLE_SUFFIX}"

_XID = {
    "lastTransitionTime": cb.ts(NOW - timedelta(minutes=4)),
    "message": "detected XID-79 on the instance, review kernel logs for additional information.",
    "reason": "NvidiaXID79Error",
    "status": "False",
}


def _with_limits(pool: cb.NodePoolDef, limits: Mapping[str, str]) -> cb.NodePoolDef:
    return replace(pool, limits=dict(limits))


def _created(node: Obj) -> datetime:
    """Pods on a node are created at or after the node registered."""
    return datetime.fromisoformat(node["metadata"]["creationTimestamp"].replace("Z", "+00:00")) + timedelta(
        seconds=40
    )


def generate(nodes: int, pods: int, out: Path, *, seed: int = 7) -> dict[str, int]:
    """Write one bundle with `nodes` nodes and `pods` pods to `out`; returns object counts per kind."""
    return write_generated(Generator(nodes, pods, seed), out)


def write_generated(
    gen: Generator, out: Path, make_writer: Callable[[Any], Any] | None = None
) -> dict[str, int]:
    """Write what `gen` generates to `out` (through a temporary file); returns object counts per kind.
    `make_writer(file)`: the writer (default our bundle's; `compact.py` writes a kubectl List)."""
    classes, pools, node_objs, claims = gen.infrastructure()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    with tmp.open("wb", buffering=1 << 20) as fh:
        writer = make_writer(fh) if make_writer else BundleWriter(fh, captured_at=NOW, context=CONTEXT)
        for obj in (*classes, *pools, *node_objs, *claims):
            writer.write(obj)
        for p in gen.pods(node_objs):
            writer.write(p)
        for e in gen.pending_events:
            writer.write(e)
        writer.close()
    tmp.replace(out)
    return dict(writer.counts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate synthetic snapshot bundles for the benchmark.")
    parser.add_argument(
        "--size", choices=sorted(SIZES), action="append", required=True, help="S, M or L (repeatable)"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out", help="output directory")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    for size in args.size:
        nodes, pods = SIZES[size]
        path = args.out / f"cluster-{size}.json"
        start = time.perf_counter()
        counts = generate(nodes, pods, path, seed=args.seed)
        took = time.perf_counter() - start
        summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
        print(f"{path}: {path.stat().st_size / 1e6:.1f} MB in {took:.1f}s ({summary})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
