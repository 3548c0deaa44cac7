#!/usr/bin/env python3
"""Generate `examples/automode-gpu-demo.json`: a small, realistic EKS Auto Mode GPU cluster snapshot.

Deterministic: fixed seed, fixed capture time, so running it again rewrites the committed file byte for
byte (`tests/test_generators.py` checks that). The story the snapshot tells (captured 2026-11-28 09:00Z):

* built-in `general-purpose` and `system` NodePools, custom `gpu-inference` (g6e/g6, L40S/L4) and
  `gpu-training` (p5, H100, limit 8 GPUs - used up by the one running p5);
* the 13-day-old g6e.xlarge runs an older AMI with NVIDIA driver 570 (NodeClaim `Drifted: AMIDrift`), its
  replacement is blocked by a PodDisruptionBudget, and it expires in a day (expireAfter 336h); the other GPU
  nodes run the new AMI's driver 580;
* the g6e.12xlarge hit NVIDIA XID 79 a minute before the capture, after its last free GPU was bound:
  `AcceleratedHardwareReady=False`, one GPU marked unhealthy (allocatable 3 of 4, requested 4), a Warning
  event from the node monitoring agent; it also runs a CUDA 13 workload (NGC PyTorch 25.10) that the
  570 node of the same pool cannot run;
* NodeClass `gpu` asks for 300Gi of ephemeral storage, more than a g6e.xlarge's 250 GB NVMe (EBS, NVMe left
  raw) and less than the g6e.12xlarge's 2x1900 GB (RAID0 on the NVMe); NodeClass `training` (4Ti) puts the
  p5's ephemeral storage on its 8x3800 GB NVMe too, but would leave a p5.4xlarge's 3800 GB raw;
* a g6e.xlarge launched for last night's embedding job, idle since it finished at 03:40, cordoned and
  annotated `karpenter.sh/do-not-disrupt`;
* nine GPU/accelerator pods that cannot run, each for a different reason, with the scheduler's and Auto
  Mode's events; a NodeClaim still launching for one of them; a finished GPU job on the XID node;
* `probes`: what `kubectl gpu snapshot --probe` stored for the 570 g6e.xlarge, the XID g6e.12xlarge and the
  p5 (collector output built by `probe_builder.py` in the real formats; synthetic values);
* `usage`: what `kubectl gpu snapshot --usage-window 5m` stored: the standalone dcgm-exporter chart's
  DaemonSet pods on the four GPU nodes and the two vLLM servers read twice, 5 minutes apart (texts built by
  `usage_builder.py` in the real formats): the reranker's L40S idle at 0-1 %, the 32B vLLM Deployment's two
  busy at ~80 % serving ~410 output tokens/s, the p5's eight H100s at ~97 %, the idle node's GPU with no pod,
  and no figure for the lost GPU of the XID node.

Usage: python examples/generate_demo.py [--out PATH]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cluster_builder as cb
import probe_builder as pb
import usage_builder as ub
from kubectl_gpu.core.debugpod import DEFAULT_IMAGES, Accelerator
from kubectl_gpu.core.usage import Scrape, ScrapeSet
from kubectl_gpu.kube.snapshot import build_bundle, redact, write_bundle

Obj = dict[str, Any]

HERE = Path(__file__).resolve().parent
OUT = HERE / "automode-gpu-demo.json"
SEED = 20261128
NOW = datetime(2026, 11, 28, 9, 0, 0, tzinfo=UTC)
CONTEXT = "arn:aws:eks:us-west-2:111122223333:cluster/demo-prod"
CLUSTER_CREATED = datetime(2026, 6, 2, 17, 21, 9, tzinfo=UTC)

VLLM = "vllm/vllm-openai:v0.11.0"
PYTORCH = "nvcr.io/nvidia/pytorch:25.01-py3"
PYTORCH_CU13 = "nvcr.io/nvidia/pytorch:25.10-py3"  # CUDA 13.0.2 (container_releases.json): driver >= 580
EMBED = "111122223333.dkr.ecr.us-west-2.amazonaws.com/embed-worker:2026.11.20-8c1d4e7"
CUDA = "nvidia/cuda:12.8.0-runtime-ubuntu22.04"
FAKE_HF_TOKEN = "hf_DemoOnlyNotARealToken0123456789abcdEF"  # fake: shows that snapshots redact env

GPU_TOLERATION = {"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}
GPU_TAINT = {"effect": "NoSchedule", "key": "nvidia.com/gpu"}
TAINT_GPU_MSG = "did not tolerate taint (taint=nvidia.com/gpu:NoSchedule)"
TAINT_SYSTEM_MSG = "did not tolerate taint (taint=CriticalAddonsOnly:NoSchedule)"
LIMIT_MSG = "all available instance types exceed limits for nodepool (NodePool=gpu-training)"

DEFAULT_NC = cb.DEFAULT_NODECLASS
# 300Gi: above a g6e.xlarge's 250 GB NVMe (EBS, NVMe raw), below a g6e.12xlarge's 3800 GB (RAID0 on the NVMe).
GPU_NC = cb.NodeClassDef("gpu", ephemeral_size="300Gi")
TRAINING_NC = cb.NodeClassDef("training", ephemeral_size="4Ti", iops=16000, throughput=1000)

GENERAL_PURPOSE = cb.GENERAL_PURPOSE
SYSTEM = cb.SYSTEM
GPU_INFERENCE = cb.NodePoolDef(
    "gpu-inference",
    "gpu",
    (
        cb.req("eks.amazonaws.com/instance-family", "In", "g6e", "g6"),
        cb.req("eks.amazonaws.com/instance-gpu-manufacturer", "In", "nvidia"),
        cb.req("karpenter.sh/capacity-type", "In", "on-demand"),
        cb.req("kubernetes.io/arch", "In", "amd64"),
    ),
    taints=(GPU_TAINT,),
    termination_grace_period="24h",
    consolidate_after="1h",
    limits={"nvidia.com/gpu": "16"},
)
GPU_TRAINING = cb.NodePoolDef(
    "gpu-training",
    "training",
    (
        cb.req("eks.amazonaws.com/instance-family", "In", "p5"),
        cb.req("karpenter.sh/capacity-type", "In", "on-demand"),
        cb.req("kubernetes.io/arch", "In", "amd64"),
    ),
    taints=(GPU_TAINT,),
    expire_after="Never",
    termination_grace_period=None,
    consolidation_policy="WhenEmpty",
    consolidate_after="30m",
    budgets=({"duration": "8h", "nodes": "0", "schedule": "0 9 * * mon-fri"}, {"nodes": "1"}),
    limits={"nvidia.com/gpu": "8"},
)
# Node ephemeral-storage capacity (Ki) as the kubelet reports it: on the 300Gi EBS volume when the NodeClass
# size is at least the NVMe (g6e.xlarge: 250 GB), else on the XFS over the instance store's RAID0 (g6e.12xlarge:
# 2x1900 GB, p5.48xlarge: 8x3800 GB); NodeClaims then carry Karpenter's estimate, the NVMe total.
EPHEMERAL_EBS_300GI_KI = 314_572_800
EPHEMERAL_NVME_3800GB_KI = 3_636_718_750
EPHEMERAL_NVME_30400GB_KI = 29_093_750_000
POOLS = (GENERAL_PURPOSE, SYSTEM, GPU_INFERENCE, GPU_TRAINING)  # Karpenter's order: weight, then name
# Every scheduling error below is what Karpenter's loop over POOLS (sorted by name) would say.


def t(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class Demo:
    """Accumulates the objects of the demo cluster; owners get stable uids."""

    def __init__(self) -> None:
        self.ids = cb.Ids(SEED)
        self.nodes: list[Obj] = []
        self.claims: list[Obj] = []
        self.pods: list[Obj] = []
        self.events: list[Obj] = []
        self._owners: dict[tuple[str, str, str], str] = {}

    def owner(self, kind: str, namespace: str, name: str) -> Obj:
        api = "batch/v1" if kind == "Job" else "apps/v1"
        uid = self._owners.setdefault((kind, namespace, name), self.ids.uid())
        return cb.owner_ref(api, kind, name, uid)

    def event(self, involved: Obj, reason: str, message: str, component: str, **kw: Any) -> None:
        self.events.append(
            cb.event(self.ids, involved, reason=reason, message=message, component=component, **kw)
        )

    def pending_events(self, pod: Obj, karpenter: Sequence[str] | None) -> None:
        """FailedScheduling from the scheduler and (unless None) from Auto Mode, repeated since creation."""
        created = t(pod["metadata"]["creationTimestamp"])
        minutes = max(1, int((NOW - created).total_seconds() // 60))
        last = NOW - timedelta(seconds=self.ids.rng.randint(20, min(280, minutes * 60 - 5)))
        message = pod["status"]["conditions"][0]["message"]
        self.event(
            pod,
            "FailedScheduling",
            message,
            cb.SCHEDULER,
            first=created + timedelta(seconds=1),
            last=last,
            count=minutes // 5 + 2,
        )
        if karpenter is not None:
            self.event(
                pod,
                "FailedScheduling",
                cb.karpenter_failed(karpenter),
                cb.AUTO_MODE_COMPONENT,
                first=created + timedelta(seconds=3),
                last=last - timedelta(seconds=self.ids.rng.randint(1, 15)),
                count=minutes // 5 + 1,
            )

    def pending(self, pod: Obj, karpenter: Sequence[str] | None) -> Obj:
        """Fill in the scheduler's verdict for an unscheduled pod and record its events."""
        reasons, preemption = cb.scheduler_verdict(pod, self.nodes, cb.node_usage(self.pods))
        pod["status"]["conditions"][0]["message"] = cb.scheduler_failed(len(self.nodes), reasons, preemption)
        self.pods.append(pod)
        self.pending_events(pod, karpenter)
        return pod


def no_instance_type(
    pool: cb.NodePoolDef,
    requests: Mapping[str, str],
    pod_reqs: Sequence[Obj] = (),
    text: str = "no instance type has enough resources",
) -> str:
    """A Karpenter InstanceTypeFilterError (>= v1.4 form with requirements and resources)."""
    reqs = cb.karpenter_requirements(cb.pod_requirements(pool, pod_reqs))
    return f"{text}, requirements={reqs}, resources={cb.karpenter_resources(requests)}"


def unknown_label(key: str) -> str:
    return f'incompatible requirements, label "{key}" does not have known values'


def vllm_container(model: str, gpus: int, cpu: str, memory: str, extra_args: Sequence[str] = ()) -> Obj:
    return cb.container(
        "vllm",
        VLLM,
        requests={"cpu": cpu, "memory": memory, "nvidia.com/gpu": str(gpus)},
        limits={"memory": memory, "nvidia.com/gpu": str(gpus)},
        args=["--model", model, "--gpu-memory-utilization", "0.90", "--port", "8000", *extra_args],
        env=[
            cb.env_var("HF_TOKEN", FAKE_HF_TOKEN),
            cb.env_var("HF_HOME", "/models/hf"),
            cb.env_var("VLLM_LOGGING_LEVEL", "INFO"),
            cb.env_field("POD_NAME", "metadata.name"),
        ],
        ports=[("http", 8000)],
        probe_port=8000,
        mounts=[{"mountPath": "/dev/shm", "name": "dshm"}],
    )


def trainer_container(gpus: int, cpu: str, memory: str, efa: int = 0, image: str = PYTORCH) -> Obj:
    requests = {"cpu": cpu, "memory": memory, "nvidia.com/gpu": str(gpus)}
    if efa:
        requests["vpc.amazonaws.com/efa"] = str(efa)
    return cb.container(
        "trainer",
        image,
        requests=requests,
        limits={k: v for k, v in requests.items() if k != "cpu"},
        command=["torchrun"],
        args=["--nnodes=2", f"--nproc-per-node={gpus}", "train.py", "--config", "configs/llama-8b.yaml"],
        env=[
            cb.env_var("HF_TOKEN", FAKE_HF_TOKEN),
            cb.env_secret("WANDB_API_KEY", "wandb", "api-key"),
            cb.env_var("NCCL_DEBUG", "WARN"),
            cb.env_var("FI_PROVIDER", "efa"),
            cb.env_var("FI_EFA_USE_DEVICE_RDMA", "1"),
        ],
        mounts=[{"mountPath": "/dev/shm", "name": "dshm"}],
    )


DSHM = {"emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}, "name": "dshm"}
GPU_ON_INFERENCE = {"karpenter.sh/nodepool": "gpu-inference"}

# ---- the idle node: launched for last night's embedding job, cordoned and pinned after it finished
IDLE_JOB_AT = t("2026-11-27T22:15:00Z")  # CronJob embed-nightly, schedule "15 22 * * *"
IDLE_CLAIM_AT = t("2026-11-27T22:15:10Z")  # Karpenter's NodeClaim; the Node registers 31 s later
IDLE_JOB_FINISHED = t("2026-11-28T03:40:00Z")
IDLE_CORDONED = t("2026-11-28T03:52:18Z")


def idle_node(ids: cb.Ids, release: cb.OsRelease) -> tuple[Obj, Obj]:
    """A g6e.xlarge in gpu-inference whose only GPU pod finished hours ago, cordoned and annotated
    `karpenter.sh/do-not-disrupt` (someone kept it to look at the job and forgot it)."""
    nd = cb.NodeDef(
        "g6e.xlarge",
        GPU_INFERENCE,
        GPU_NC,
        "us-west-2a",
        IDLE_CLAIM_AT,
        release,
        images=((EMBED, 6_204_118_927),),
        requests={"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1", "pods": "1"},
        node_ephemeral_ki=EPHEMERAL_EBS_300GI_KI,
        cordoned=IDLE_CORDONED,
        annotations={"karpenter.sh/do-not-disrupt": "true"},
    )
    node, claim = cb.node_and_claim(ids, nd, NOW)
    assert node is not None
    # Karpenter's clock for the node: the last pod event (the job pod finishing); Consolidatable once
    # consolidateAfter (1h) has passed since then.
    claim["status"]["lastPodEventTime"] = cb.ts(IDLE_JOB_FINISHED + timedelta(seconds=1))
    for cond in claim["status"]["conditions"]:
        if cond["type"] == "Consolidatable":
            cond["lastTransitionTime"] = cb.ts(IDLE_JOB_FINISHED + timedelta(hours=1, seconds=1))
    return node, claim


def embed_job_pod(ids: cb.Ids, node: Obj) -> Obj:
    """The nightly embedding Job's pod: waited for the new node, ran five and a half hours, Succeeded."""
    job = f"embed-nightly-{int(IDLE_JOB_AT.timestamp()) // 60}"
    registered = IDLE_CLAIM_AT + timedelta(seconds=95)  # node_and_claim: initialized 95 s after launch
    return cb.pod(
        ids,
        "ml",
        f"{job}-{ids.suffix()}",
        IDLE_JOB_AT,
        [
            cb.container(
                "embed",
                EMBED,
                requests={"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"},
                limits={"memory": "16Gi", "nvidia.com/gpu": "1"},
                command=["python3", "-m", "embed.run"],
                args=["--corpus", "s3://demo-prod-corpus/docs/2026-11-27/", "--model", "BAAI/bge-m3"],
                env=[cb.env_var("HF_TOKEN", FAKE_HF_TOKEN)],
            )
        ],
        now=NOW,
        node=node,
        phase="Succeeded",
        exit_code=0,
        owner=cb.owner_ref("batch/v1", "Job", job, ids.uid()),
        labels={"batch.kubernetes.io/job-name": job, "job-name": job},
        tolerations=[GPU_TOLERATION],
        node_selector={"eks.amazonaws.com/instance-gpu-name": "l40s"},
        scheduled_at=registered + timedelta(seconds=1),
        finished_at=IDLE_JOB_FINISHED,
    )


def reranker_pod(ids: cb.Ids, node: Obj) -> Obj:
    """A Deployment built on NGC PyTorch 25.10 (CUDA 13.0): runs on the 580 driver of the g6e.12xlarge, may
    land on the old g6e.xlarge of the same pool, whose 570 driver stops at CUDA 12.8."""
    rs = "reranker-7b9c5d4f86"
    return cb.pod(
        ids,
        "serving",
        f"{rs}-{ids.suffix()}",
        t("2026-11-27T16:22:05Z"),
        [
            cb.container(
                "reranker",
                PYTORCH_CU13,
                requests={"cpu": "4", "memory": "32Gi", "nvidia.com/gpu": "1"},
                limits={"memory": "32Gi", "nvidia.com/gpu": "1"},
                command=["python3", "-m", "reranker.serve"],
                args=["--model", "BAAI/bge-reranker-v2-m3", "--port", "8080"],
                env=[cb.env_var("HF_TOKEN", FAKE_HF_TOKEN), cb.env_var("HF_HOME", "/models/hf")],
                ports=[("http", 8080)],
                probe_port=8080,
            )
        ],
        now=NOW,
        node=node,
        owner=cb.owner_ref("apps/v1", "ReplicaSet", rs, ids.uid()),
        labels={"app.kubernetes.io/name": "reranker", "pod-template-hash": rs.rsplit("-", 1)[1]},
        tolerations=[GPU_TOLERATION],
        node_selector=GPU_ON_INFERENCE,
    )


# ---- probes: what `kubectl gpu snapshot --probe` stored for three of the GPU nodes
PROBED_AT = "2026-11-28T09:00:27.418266Z"  # probe_for_snapshot stamps every entry when the last one is done
DRIVER_OLD, DRIVER_NEW = "570.172.08", "580.95.05"
DRIVER_BUILT = {DRIVER_OLD: "Tue Jul  8 18:07:42 UTC 2025", DRIVER_NEW: "Tue Sep 23 09:55:41 UTC 2025"}
CUDA_OF_DRIVER = {DRIVER_OLD: "12.8", DRIVER_NEW: "13.0"}
P5_GPU_BUSES = ("53", "64", "75", "86", "97", "A8", "B9", "CA")
P5_EFA = tuple(f"rdmap{bus}s0" for bus in (79, 80, 81, 82, 96, 97, 98, 99, 113, 114, 115, 116, 130, 131, 132,
                                          133, 147, 148, 149, 150, 164, 165, 166, 167, 181, 182, 183, 184,
                                          198, 199, 200, 201))  # fmt: skip


def _gpu_uuid(ids: cb.Ids) -> str:
    return f"GPU-{ids.hex(8)}-{ids.hex(4)}-{ids.hex(4)}-{ids.hex(4)}-{ids.hex(12)}"


def _serial(ids: cb.Ids) -> str:
    return f"1{ids.rng.randint(10**11, 10**12 - 1)}"


def _container_id(pod: Obj) -> str:
    return str(pod["status"]["containerStatuses"][0]["containerID"]).removeprefix("containerd://")


def _os_release(node: Obj, release: cb.OsRelease, ids: cb.Ids) -> str:
    variant = "aws-k8s-1.34-nvidia"
    return pb.os_release(node["status"]["nodeInfo"]["osImage"], release.version, variant, ids.hex(8))


def _storage(ids: cb.Ids, data_gib: int, nvme: Sequence[int], raid: bool) -> pb.Storage:
    return pb.Storage(
        data_volume_bytes=data_gib * pb.GIB,
        nvme_bytes=tuple(nvme),
        raid=raid,
        pod_uid=ids.uid(),
        container_id=ids.hex(64),
        sandbox_id=ids.hex(64),
    )


def _entry(text: str) -> Obj:
    """One `probes` value, keys in the order probe_for_snapshot writes them."""
    return {
        "output": text,
        "strategy": "privileged-all",
        "image": DEFAULT_IMAGES[Accelerator.NVIDIA],
        "error": None,
        "capturedAt": PROBED_AT,
    }


def probe_outputs(
    ids: cb.Ids,
    old_l40s: Obj,
    xid_l40s: Obj,
    p5: Obj,
    pods: Sequence[Obj],
    old: cb.OsRelease,
    new: cb.OsRelease,
) -> dict[str, Obj]:
    """Collector outputs of the old-AMI g6e.xlarge (570, NVMe left raw under the 300Gi EBS volume), the XID
    g6e.12xlarge (nvidia-smi fails on the lost GPU; the driver and the RAID0 are still readable) and the p5
    (580, eight training processes, RAID0 over eight disks)."""
    by_name = {p["metadata"]["name"]: p for p in pods}
    vllm, trainer = by_name["vllm-l40s-0"], by_name["pretrain-8x-h100-0"]
    out: dict[str, Obj] = {}

    # g6e.xlarge, old AMI: one L40S serving Qwen 7B (vLLM's engine process holds ~90% of the memory).
    engine = pb.GpuProcess(ids.rng.randint(30_000, 60_000), "VLLM::EngineCore", 41_836)
    gpu = pb.GpuState(pb.L40S, 0, "30", _gpu_uuid(ids), _serial(ids), 23, 47, 131.84, (engine,))
    cgroups = pb.pid_cgroups([(engine.pid, vllm["metadata"]["uid"], _container_id(vllm))])
    sections = pb.smi_sections(
        DRIVER_OLD,
        CUDA_OF_DRIVER[DRIVER_OLD],
        [gpu],
        pb.Topology("", (("0-3", "0"),)),
        t("2026-11-28T09:00:04Z"),
        cgroups,
    )
    sections += pb.system_sections(
        DRIVER_OLD,
        DRIVER_BUILT[DRIVER_OLD],
        _storage(ids, 300, [250_000_000_000], raid=False),
        old.kernel,
        _os_release(old_l40s, old, ids),
    )
    out[old_l40s["metadata"]["name"]] = _entry(pb.collector_output(ids.hex(16), sections))

    # g6e.12xlarge: GPU 3 fell off the bus (XID 79): every nvidia-smi query stops there.
    sections = pb.lost_gpu_sections("0000:3E:00.0")
    sections += pb.system_sections(
        DRIVER_NEW,
        DRIVER_BUILT[DRIVER_NEW],
        _storage(ids, 20, [1_900_000_000_000] * 2, raid=True),
        new.kernel,
        _os_release(xid_l40s, new, ids),
    )
    out[xid_l40s["metadata"]["name"]] = _entry(pb.collector_output(ids.hex(16), sections))

    # p5.48xlarge: eight torchrun workers, one per H100.
    first_pid = ids.rng.randint(100_000, 400_000)
    gpus = []
    for i, bus in enumerate(P5_GPU_BUSES):
        proc = pb.GpuProcess(first_pid + i, "/usr/bin/python", 74_212 + ids.rng.randint(0, 900))
        power = 612.0 + ids.rng.randint(0, 6000) / 100
        gpus.append(
            pb.GpuState(pb.H100, i, bus, _gpu_uuid(ids), _serial(ids), 97, 58 + i % 3, power, (proc,), i + 1)
        )
    cgroups = pb.pid_cgroups(
        [(g.processes[0].pid, trainer["metadata"]["uid"], _container_id(trainer)) for g in gpus]
    )
    affinity = tuple(("0-47,96-143", "0") if i < 4 else ("48-95,144-191", "1") for i in range(8))
    sections = pb.smi_sections(
        DRIVER_NEW,
        CUDA_OF_DRIVER[DRIVER_NEW],
        gpus,
        pb.Topology("NV18", affinity, 4, P5_EFA),
        t("2026-11-28T09:00:11Z"),
        cgroups,
    )
    sections += pb.system_sections(
        DRIVER_NEW,
        DRIVER_BUILT[DRIVER_NEW],
        _storage(ids, 20, [3_800_000_000_000] * 8, raid=True),
        new.kernel,
        _os_release(p5, new, ids),
    )
    out[p5["metadata"]["name"]] = _entry(pb.collector_output(ids.hex(16), sections))
    return out


# ---- usage: what `kubectl gpu snapshot --usage-window 5m` stored (after the probes: reads at 09:00:31, 09:05:31)
WINDOW_S = 300.0
FIRST_READ = t("2026-11-28T09:00:31Z")


def exporter_pod(ids: cb.Ids, node: Obj, owner: Obj) -> Obj:
    """A pod of the standalone dcgm-exporter chart's DaemonSet (no requests, tolerates every taint)."""
    container = cb.container(
        "exporter", ub.DCGM_IMAGE, ports=[("metrics", ub.DCGM_PORT)], probe_port=ub.DCGM_PORT
    )
    return cb.pod(
        ids,
        ub.DCGM_NAMESPACE,
        f"dcgm-exporter-{ids.suffix()}",
        t(node["metadata"]["creationTimestamp"]) + timedelta(seconds=24),
        [container],
        now=NOW,
        node=node,
        owner=owner,
        labels={
            "app.kubernetes.io/instance": "dcgm-exporter",
            "app.kubernetes.io/name": "dcgm-exporter",
            "controller-revision-hash": "7d8b9c6f5",
            "pod-template-generation": "3",
        },
        tolerations=[{"operator": "Exists"}],
        service_account="dcgm-exporter",
    )


def _read(pod: Obj, source: str, port: int, text: str, at: datetime, server: str | None = None) -> Scrape:
    meta = pod["metadata"]
    return Scrape(source, meta["namespace"], meta["name"], at, node=pod["spec"]["nodeName"], port=port,
                  server=server, text=text)  # type: ignore[arg-type]  # fmt: skip


def _gpu(index: int, uuid: str, model: pb.GpuModel, util: int, used: int, power: float, energy: int,
         pod: tuple[str, str, str] | None) -> ub.DcgmGpu:  # fmt: skip
    clocks = (model.clocks[0], model.clocks[2]) if util else (210, 405)
    return ub.DcgmGpu(index, uuid, model.name, util, used, model.memory_mib, power, energy,
                      33 + util // 3, clocks[0], clocks[1], pod)  # fmt: skip


def _node_reads(ids: cb.Ids, node: Obj, driver: str, specs: Sequence[tuple[Any, ...]]) -> tuple[str, str]:
    """The exporter's two texts on `node`: `specs` are (uuid, model, util 1st, util 2nd, used MiB, W, pod)."""
    texts = []
    energy = [ids.rng.randint(10**9, 9 * 10**9) for _ in specs]
    for read in range(2):
        gpus = []
        for i, (uuid, model, util1, util2, used, watts, pod) in enumerate(specs):
            gpus.append(_gpu(i, uuid, model, (util1, util2)[read], used, watts, energy[i], pod))
            energy[i] += int(watts * WINDOW_S * 1000)
        texts.append(ub.dcgm_text(node["metadata"]["name"], driver, gpus))
    return texts[0], texts[1]


def usage_window(
    pods: Sequence[Obj], probes: Mapping[str, Obj], inf1: Obj, inf2: Obj, idle: Obj, p5: Obj
) -> tuple[list[Obj], ScrapeSet]:
    """The exporter pods and the window read from them and from the two Running vLLM servers."""
    ids = cb.Ids(SEED + 24, first_resource_version=48_190_905)
    owner = cb.owner_ref("apps/v1", "DaemonSet", "dcgm-exporter", ids.uid())
    by_name = {p["metadata"]["name"]: p for p in pods}
    qwen = by_name["vllm-qwen32b-5f7c9d8b6-tn4vq"]
    reranker = next(p for p in pods if p["metadata"]["name"].startswith("reranker-"))
    uuid = lambda: f"GPU-{ids.hex(8)}-{ids.hex(4)}-{ids.hex(4)}-{ids.hex(4)}-{ids.hex(12)}"  # noqa: E731
    inf1_uuid = ub.probe_uuids(probes[inf1["metadata"]["name"]]["output"])[0]
    p5_uuids = ub.probe_uuids(probes[p5["metadata"]["name"]]["output"])
    served = ("serving", "vllm-l40s-0", "vllm")
    on_qwen = ("serving", qwen["metadata"]["name"], "vllm")
    on_reranker = ("serving", reranker["metadata"]["name"], "reranker")
    trainer = ("ml", "pretrain-8x-h100-0", "trainer")
    nodes = [
        (inf1, DRIVER_OLD, [(inf1_uuid, pb.L40S, 21, 24, 42_445, 131.84, served)]),
        # GPU 3 fell off the bus (XID 79): the exporter reports the other three.
        (
            inf2,
            DRIVER_NEW,
            [
                (uuid(), pb.L40S, 78, 84, 43_018, 268.4, on_qwen),
                (uuid(), pb.L40S, 81, 86, 43_022, 274.9, on_qwen),
                (uuid(), pb.L40S, 1, 0, 3_112, 38.6, on_reranker),
            ],
        ),
        (idle, DRIVER_NEW, [(uuid(), pb.L40S, 0, 0, 0, 31.2, None)]),
        (
            p5,
            DRIVER_NEW,
            [
                (u, pb.H100, 97 - i % 2, 96 + i % 3, 74_691 + 37 * i, 612.0 + 7.5 * i, trainer)
                for i, u in enumerate(p5_uuids)
            ],
        ),
    ]
    exporters, first, second = [], [], []
    for number, (node, driver, specs) in enumerate(nodes):
        exporter = exporter_pod(ids, node, owner)
        exporters.append(exporter)
        one, two = _node_reads(ids, node, driver, specs)
        at = FIRST_READ + timedelta(milliseconds=12 + 9 * number)
        first.append(_read(exporter, "dcgm", ub.DCGM_PORT, one, at))
        second.append(_read(exporter, "dcgm", ub.DCGM_PORT, two, at + timedelta(seconds=WINDOW_S)))
    servers = [  # (pod, model, tokens/s out, in, requests/s, running, generation and prompt tokens so far)
        (by_name["vllm-l40s-0"], "Qwen/Qwen2.5-7B-Instruct", 96, 310, 0.4, 3, 18_204_377, 61_930_512),
        (qwen, "Qwen/Qwen2.5-32B-Instruct", 410, 1_380, 1.7, 14, 61_482_019, 204_117_366),
    ]
    for number, (pod, model, out_s, in_s, req_s, running, generated, prompted) in enumerate(servers):
        at = FIRST_READ + timedelta(milliseconds=51 + 7 * number)
        requests = int(generated // 240)
        for read, when in enumerate((at, at + timedelta(seconds=WINDOW_S))):
            grown = int(read * WINDOW_S)
            text = ub.vllm_text(model, running=running, generation=generated + out_s * grown,
                                prompt=prompted + in_s * grown, requests=requests + int(req_s * grown))  # fmt: skip
            (first if read == 0 else second).append(_read(pod, "inference", 8000, text, when, "vllm"))
    scrapes = ScrapeSet(window_s=WINDOW_S, scrapes=(*first, *second), notes=("--sample not given",))
    return exporters, scrapes


def build() -> Obj:
    """The demo bundle (objects redacted), ready for `write_bundle`."""
    d = Demo()
    ids = d.ids
    amis = {k: ids.ami() for k in ("old-nvidia", "old-std", "old-arm", "new-nvidia", "new-std", "new-arm")}
    old = cb.OsRelease(
        "2026.11.6",
        "6.12.55",
        "v1.34.1-eks-113cf36",
        "containerd://2.1.5+bottlerocket",
        {
            (True, "amd64"): amis["old-nvidia"],
            (False, "amd64"): amis["old-std"],
            (False, "arm64"): amis["old-arm"],
        },
    )
    new = cb.OsRelease(
        "2026.11.20",
        "6.12.58",
        "v1.34.2-eks-b3126f4",
        "containerd://2.1.5+bottlerocket",
        {
            (True, "amd64"): amis["new-nvidia"],
            (False, "amd64"): amis["new-std"],
            (False, "arm64"): amis["new-arm"],
        },
    )
    subnets = [f"subnet-0{ids.hex(16)}" for _ in range(3)]
    sg = f"sg-0{ids.hex(16)}"
    gpu_pools_created = datetime(2026, 9, 14, 10, 2, 51, tzinfo=UTC)
    nodeclasses = [
        cb.nodeclass(ids, DEFAULT_NC, CLUSTER_CREATED, subnets=subnets, sg=sg),
        cb.nodeclass(ids, GPU_NC, gpu_pools_created, subnets=subnets, sg=sg),
        cb.nodeclass(ids, TRAINING_NC, gpu_pools_created, subnets=subnets[1:2], sg=sg),
    ]

    # After the scheduler bound vllm-l40s-1 (08:58:41) to the last free GPU: all four were allocated.
    xid_at = t("2026-11-28T08:58:58Z")
    xid_message = "detected XID-79 on the instance, review kernel logs for additional information."
    vllm_image = (VLLM, 9_874_326_018)
    defs = [
        cb.NodeDef(
            "c6a.large",
            GENERAL_PURPOSE,
            DEFAULT_NC,
            "us-west-2a",
            t("2026-11-27T03:12:13Z"),
            new,
            images=(("nginx:1.27.3", 72_099_410),),
            requests={"cpu": "250m", "memory": "256Mi", "pods": "1"},
        ),
        cb.NodeDef(
            "m6a.xlarge",
            GENERAL_PURPOSE,
            DEFAULT_NC,
            "us-west-2c",
            t("2026-11-28T07:40:39Z"),
            new,
            images=(("quay.io/prometheus/prometheus:v3.1.0", 128_340_122),),
            requests={"cpu": "600m", "memory": "2238Mi", "pods": "2"},
        ),
        cb.NodeDef(
            "c6g.large",
            SYSTEM,
            DEFAULT_NC,
            "us-west-2b",
            t("2026-11-22T18:02:56Z"),
            new,
            requests={"cpu": "100m", "memory": "200Mi", "pods": "1"},
        ),
        cb.NodeDef(
            "g6e.xlarge",
            GPU_INFERENCE,
            GPU_NC,
            "us-west-2b",
            t("2026-11-15T09:19:34Z"),
            old,
            drifted="AMIDrift",
            images=(vllm_image,),
            requests={"cpu": "3", "memory": "24Gi", "nvidia.com/gpu": "1", "pods": "1"},
            node_ephemeral_ki=EPHEMERAL_EBS_300GI_KI,
        ),
        cb.NodeDef(
            "g6e.12xlarge",
            GPU_INFERENCE,
            GPU_NC,
            "us-west-2b",
            t("2026-11-26T14:05:00Z"),
            new,
            unhealthy_gpus=1,
            accelerated_condition={
                "lastTransitionTime": cb.ts(xid_at),
                "message": xid_message,
                "reason": "NvidiaXID79Error",
                "status": "False",
            },
            images=(vllm_image, (CUDA, 1_582_912_334), (PYTORCH_CU13, 11_338_704_515)),
            requests={"cpu": "16", "memory": "96Gi", "nvidia.com/gpu": "2", "pods": "1"},
            node_ephemeral_ki=EPHEMERAL_NVME_3800GB_KI,
            claim_ephemeral="3800G",
        ),
        cb.NodeDef(
            "p5.48xlarge",
            GPU_TRAINING,
            TRAINING_NC,
            "us-west-2b",
            t("2026-11-24T22:10:17Z"),
            new,
            images=((PYTORCH, 10_912_671_802),),
            requests={
                "cpu": "180",
                "memory": "1800Gi",
                "nvidia.com/gpu": "8",
                "pods": "1",
                "vpc.amazonaws.com/efa": "32",
            },
            node_ephemeral_ki=EPHEMERAL_NVME_30400GB_KI,
            claim_ephemeral="30400G",
        ),
    ]
    for nd in defs:
        node, claim = cb.node_and_claim(ids, nd, NOW)
        assert node is not None
        d.nodes.append(node)
        d.claims.append(claim)
    gp1, gp2, sys1, inf1, inf2, p5 = d.nodes
    launching_def = cb.NodeDef(
        "g6e.xlarge",
        GPU_INFERENCE,
        GPU_NC,
        "us-west-2b",
        t("2026-11-28T08:58:52Z"),
        new,
        launching=True,
        requests={"cpu": "3", "memory": "24Gi", "nvidia.com/gpu": "1", "pods": "1"},
    )
    _, launching = cb.node_and_claim(ids, launching_def, NOW)
    d.claims.append(launching)
    # Objects added later in the demo's life draw from their own generator, so the others keep their ids.
    extra = cb.Ids(SEED + 1, first_resource_version=48_190_411)
    idle, idle_claim = idle_node(extra, new)
    d.nodes.insert(5, idle)
    d.claims.insert(5, idle_claim)

    # ---- running and finished pods
    web = d.owner("ReplicaSet", "default", "web-frontend-6c9d7b8f4")
    d.pods.append(
        cb.pod(
            ids,
            "default",
            "web-frontend-6c9d7b8f4-h7x2m",
            t("2026-11-27T03:14:02Z"),
            [
                cb.container(
                    "nginx",
                    "nginx:1.27.3",
                    requests={"cpu": "250m", "memory": "256Mi"},
                    limits={"memory": "256Mi"},
                    ports=[("http", 8080)],
                    probe_port=8080,
                    probe_path="/healthz",
                )
            ],
            now=NOW,
            node=gp1,
            owner=web,
            labels={"app.kubernetes.io/name": "web-frontend", "pod-template-hash": "6c9d7b8f4"},
        )
    )
    d.pods.append(
        cb.pod(
            ids,
            "monitoring",
            "kube-state-metrics-7c5f9d6b8-q2wzx",
            t("2026-11-28T07:42:20Z"),
            [
                cb.container(
                    "kube-state-metrics",
                    "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.15.0",
                    requests={"cpu": "100m", "memory": "190Mi"},
                    limits={"memory": "250Mi"},
                    ports=[("http-metrics", 8080), ("telemetry", 8081)],
                    probe_port=8080,
                    probe_path="/livez",
                )
            ],
            now=NOW,
            node=gp2,
            owner=d.owner("ReplicaSet", "monitoring", "kube-state-metrics-7c5f9d6b8"),
            labels={"app.kubernetes.io/name": "kube-state-metrics", "pod-template-hash": "7c5f9d6b8"},
            service_account="kube-state-metrics",
        )
    )
    d.pods.append(
        cb.pod(
            ids,
            "monitoring",
            "prometheus-server-0",
            t("2026-11-28T07:42:24Z"),
            [
                cb.container(
                    "prometheus",
                    "quay.io/prometheus/prometheus:v3.1.0",
                    requests={"cpu": "500m", "memory": "2Gi"},
                    limits={"memory": "4Gi"},
                    args=[
                        "--config.file=/etc/prometheus/prometheus.yml",
                        "--storage.tsdb.retention.time=15d",
                    ],
                    ports=[("web", 9090)],
                    probe_port=9090,
                    probe_path="/-/ready",
                )
            ],
            now=NOW,
            node=gp2,
            owner=d.owner("StatefulSet", "monitoring", "prometheus-server"),
            labels={
                "app.kubernetes.io/name": "prometheus",
                "apps.kubernetes.io/pod-index": "0",
                "statefulset.kubernetes.io/pod-name": "prometheus-server-0",
            },
            service_account="prometheus-server",
        )
    )
    d.pods.append(
        cb.pod(
            ids,
            "kube-system",
            "metrics-server-5b9f6c8d7-qwl9z",
            t("2026-11-22T18:04:40Z"),
            [
                cb.container(
                    "metrics-server",
                    "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/metrics-server:v0.7.2-eksbuild.3",
                    requests={"cpu": "100m", "memory": "200Mi"},
                    args=["--secure-port=10251", "--kubelet-preferred-address-types=InternalIP"],
                    ports=[("https", 10251)],
                )
            ],
            now=NOW,
            node=sys1,
            owner=d.owner("ReplicaSet", "kube-system", "metrics-server-5b9f6c8d7"),
            labels={"app.kubernetes.io/name": "metrics-server", "pod-template-hash": "5b9f6c8d7"},
            tolerations=[{"key": "CriticalAddonsOnly", "operator": "Exists"}],
            service_account="metrics-server",
            priority_class="system-cluster-critical",
        )
    )
    vllm_sts = d.owner("StatefulSet", "serving", "vllm-l40s")
    l40s = {"eks.amazonaws.com/instance-gpu-name": "l40s"}

    def vllm_pod(index: int, created: datetime, node: Obj | None, **kw: Any) -> Obj:
        name = f"vllm-l40s-{index}"
        return cb.pod(
            ids,
            "serving",
            name,
            created,
            [vllm_container("Qwen/Qwen2.5-7B-Instruct", 1, "3", "24Gi", ["--max-model-len", "32768"])],
            now=NOW,
            node=node,
            owner=vllm_sts,
            labels={
                "app.kubernetes.io/name": "vllm-l40s",
                "apps.kubernetes.io/pod-index": str(index),
                "controller-revision-hash": "vllm-l40s-6f8d9c7b5",
                "statefulset.kubernetes.io/pod-name": name,
            },
            tolerations=[GPU_TOLERATION],
            node_selector=l40s,
            extra_volumes=[DSHM],
            **kw,
        )

    d.pods.append(vllm_pod(0, t("2026-11-15T09:18:50Z"), inf1))
    d.pods.append(
        cb.pod(
            ids,
            "serving",
            "vllm-qwen32b-5f7c9d8b6-tn4vq",
            t("2026-11-26T14:04:31Z"),
            [vllm_container("Qwen/Qwen2.5-32B-Instruct", 2, "16", "96Gi", ["--tensor-parallel-size", "2"])],
            now=NOW,
            node=inf2,
            owner=d.owner("ReplicaSet", "serving", "vllm-qwen32b-5f7c9d8b6"),
            labels={"app.kubernetes.io/name": "vllm-qwen32b", "pod-template-hash": "5f7c9d8b6"},
            tolerations=[GPU_TOLERATION],
            node_selector=l40s,
            extra_volumes=[DSHM],
        )
    )
    d.pods.append(reranker_pod(extra, inf2))
    eval_at = t("2026-11-28T08:30:00Z")
    eval_job = f"eval-daily-{int(eval_at.timestamp()) // 60}"
    d.pods.append(
        cb.pod(
            ids,
            "ml",
            f"{eval_job}-7tq2c",
            eval_at,
            [
                cb.container(
                    "eval",
                    CUDA,
                    requests={"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"},
                    limits={"memory": "16Gi", "nvidia.com/gpu": "1"},
                    command=["python3", "-m", "evals.run"],
                    args=["--suite", "regression", "--endpoint", "http://vllm-l40s.serving:8000"],
                    env=[cb.env_var("HF_TOKEN", FAKE_HF_TOKEN)],
                )
            ],
            now=NOW,
            node=inf2,
            phase="Succeeded",
            exit_code=0,
            owner=d.owner("Job", "ml", eval_job),
            labels={"batch.kubernetes.io/job-name": eval_job, "job-name": eval_job},
            tolerations=[GPU_TOLERATION],
        )
    )
    d.pods.append(embed_job_pod(extra, idle))
    pull_error = (
        f'failed to pull and unpack image "docker.io/{VLLM}": failed to copy: httpReadSeeker: failed open: '
        "unexpected status code https://registry-1.docker.io/v2/vllm/vllm-openai/manifests/sha256:"
        f"{cb.digest(VLLM)}: 429 Too Many Requests - Server message: toomanyrequests: You have reached your "
        "unauthenticated pull rate limit. https://www.docker.com/increase-rate-limit"
    )
    vllm1 = vllm_pod(
        1,
        t("2026-11-28T08:58:40Z"),
        inf2,
        phase="Pending",
        waiting=("ImagePullBackOff", f'Back-off pulling image "{VLLM}": ErrImagePull: {pull_error}'),
    )
    d.pods.append(vllm1)
    trainer_labels = {
        "app.kubernetes.io/name": "pretrain-8x-h100",
        "controller-revision-hash": "pretrain-8x-h100-7d4b9",
    }
    pretrain = d.owner("StatefulSet", "ml", "pretrain-8x-h100")
    no_disrupt = {"karpenter.sh/do-not-disrupt": "true"}

    def trainer_pod(index: int, node: Obj | None) -> Obj:
        name = f"pretrain-8x-h100-{index}"
        return cb.pod(
            ids,
            "ml",
            name,
            t("2026-11-24T22:09:46Z"),
            [trainer_container(8, "180", "1800Gi", efa=32)],
            now=NOW,
            node=node,
            owner=pretrain,
            labels={
                **trainer_labels,
                "apps.kubernetes.io/pod-index": str(index),
                "statefulset.kubernetes.io/pod-name": name,
            },
            annotations=no_disrupt,
            tolerations=[GPU_TOLERATION],
            node_selector={"eks.amazonaws.com/instance-family": "p5"},
            extra_volumes=[DSHM],
        )

    d.pods.append(trainer_pod(0, p5))

    # ---- pending pods, one problem each (events: scheduler + Auto Mode)
    chat_req = {"cpu": "500m", "memory": "2Gi", "nvidia.com/gpu": "1"}
    d.pending(
        cb.pod(
            ids,
            "default",
            "chat-api-7d9f8c6b5d-x2k4p",
            t("2026-11-28T08:12:30Z"),
            [
                cb.container(
                    "chat-api",
                    "111122223333.dkr.ecr.us-west-2.amazonaws.com/chat-api:2026.11.27-3f9c2a1",
                    requests=chat_req,
                    limits={"memory": "2Gi", "nvidia.com/gpu": "1"},
                    env=[
                        cb.env_var("HF_TOKEN", FAKE_HF_TOKEN),
                        cb.env_var("MODEL_ID", "Qwen/Qwen2.5-1.5B-Instruct"),
                    ],
                    ports=[("http", 8080)],
                    probe_port=8080,
                )
            ],
            now=NOW,
            owner=d.owner("ReplicaSet", "default", "chat-api-7d9f8c6b5d"),
            labels={"app.kubernetes.io/name": "chat-api", "pod-template-hash": "7d9f8c6b5d"},
        ),
        [no_instance_type(GENERAL_PURPOSE, chat_req), TAINT_GPU_MSG, LIMIT_MSG, TAINT_SYSTEM_MSG],
    )
    finetune_key = "karpenter.k8s.aws/instance-gpu-name"
    d.pending(
        cb.pod(
            ids,
            "ml",
            "finetune-llama-0",
            t("2026-11-27T16:40:05Z"),
            [trainer_container(1, "8", "64Gi")],
            now=NOW,
            owner=d.owner("StatefulSet", "ml", "finetune-llama"),
            labels={
                "app.kubernetes.io/name": "finetune-llama",
                "apps.kubernetes.io/pod-index": "0",
                "statefulset.kubernetes.io/pod-name": "finetune-llama-0",
            },
            tolerations=[GPU_TOLERATION],
            node_selector={finetune_key: "h100"},
            extra_volumes=[DSHM],
        ),
        [unknown_label(finetune_key), unknown_label(finetune_key), LIMIT_MSG, TAINT_SYSTEM_MSG],
    )
    d.pending(
        cb.pod(
            ids,
            "ml",
            "notebook-gpu",
            t("2026-11-28T08:51:37Z"),
            [
                cb.container(
                    "notebook",
                    "quay.io/jupyter/pytorch-notebook:cuda12-python-3.12",
                    requests={"cpu": "2", "memory": "16Gi", "nvidia.com/gpu": "1"},
                    limits={"memory": "16Gi", "nvidia.com/gpu": "1"},
                    env=[
                        cb.env_var("JUPYTER_TOKEN", "demo-notebook-token"),
                        cb.env_var("HF_TOKEN", FAKE_HF_TOKEN),
                    ],
                    ports=[("notebook", 8888)],
                )
            ],
            now=NOW,
            labels={"app.kubernetes.io/name": "notebook-gpu"},
            tolerations=[GPU_TOLERATION],
            node_selector={"nvidia.com/gpu.present": "true"},
        ),
        [unknown_label("nvidia.com/gpu.present")] * 2 + [LIMIT_MSG, TAINT_SYSTEM_MSG],
    )
    pretrain_req = {"cpu": "180", "memory": "1800Gi", "nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32"}
    family_p5 = [cb.req("eks.amazonaws.com/instance-family", "In", "p5")]
    d.pending(
        trainer_pod(1, None),
        [
            no_instance_type(
                GENERAL_PURPOSE,
                pretrain_req,
                family_p5,
                "no instance type met the scheduling requirements or had enough resources",
            ),
            "incompatible requirements, key eks.amazonaws.com/instance-family, In [p5] not in In [g6 g6e]",
            LIMIT_MSG,
            TAINT_SYSTEM_MSG,
        ],
    )
    spot = "incompatible requirements, key karpenter.sh/capacity-type, In [spot] not in In [on-demand]"
    d.pending(
        cb.pod(
            ids,
            "ml",
            "batch-spot",
            t("2026-11-28T06:00:12Z"),
            [
                cb.container(
                    "batch",
                    CUDA,
                    requests={"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"},
                    limits={"memory": "16Gi", "nvidia.com/gpu": "1"},
                    command=["python3", "embed.py"],
                    args=["--shard", "17", "--of", "64"],
                )
            ],
            now=NOW,
            labels={"app.kubernetes.io/name": "batch-spot"},
            tolerations=[GPU_TOLERATION],
            affinity={
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [cb.req("karpenter.sh/capacity-type", "In", "spot")]}
                        ]
                    }
                }
            },
        ),
        [spot, spot, LIMIT_MSG, TAINT_SYSTEM_MSG],
    )
    giant_req = {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "16"}
    d.pending(
        cb.pod(
            ids,
            "research",
            "giant-model",
            t("2026-11-28T07:30:44Z"),
            [trainer_container(16, "64", "512Gi")],
            now=NOW,
            labels={"app.kubernetes.io/name": "giant-model"},
            tolerations=[GPU_TOLERATION],
            extra_volumes=[DSHM],
        ),
        [
            no_instance_type(GENERAL_PURPOSE, giant_req),
            no_instance_type(GPU_INFERENCE, giant_req),
            LIMIT_MSG,
            TAINT_SYSTEM_MSG,
        ],
    )
    vllm2 = d.pending(vllm_pod(2, t("2026-11-28T08:58:40Z"), None), None)
    neuron_req = {"aws.amazon.com/neuron": "1", "cpu": "1", "memory": "2Gi"}
    d.pending(
        cb.pod(
            ids,
            "inference",
            "neuron-bert",
            t("2026-11-28T08:20:03Z"),
            [
                cb.container(
                    "bert",
                    "public.ecr.aws/neuron/pytorch-inference-neuronx:2.5.1-neuronx-py310-sdk2.21.0-ubuntu22.04",
                    requests=neuron_req,
                    limits={"aws.amazon.com/neuron": "1", "memory": "2Gi"},
                    command=["python3", "serve.py"],
                    ports=[("http", 8080)],
                )
            ],
            now=NOW,
            labels={"app.kubernetes.io/name": "neuron-bert"},
            tolerations=[{"effect": "NoSchedule", "key": "aws.amazon.com/neuron", "operator": "Exists"}],
        ),
        [no_instance_type(GENERAL_PURPOSE, neuron_req), TAINT_GPU_MSG, LIMIT_MSG, TAINT_SYSTEM_MSG],
    )

    # ---- other events: nomination, image pulls, the XID, the blocked drift replacement
    claim_name = launching["metadata"]["name"]
    d.event(
        vllm2,
        "Nominated",
        f"Pod should schedule on: nodeclaim/{claim_name}",
        cb.AUTO_MODE_COMPONENT,
        first=t("2026-11-28T08:58:52Z"),
        last=t("2026-11-28T08:59:52Z"),
        count=2,
        type_="Normal",
    )
    inf2_name = inf2["metadata"]["name"]
    assigned = f"Successfully assigned serving/vllm-l40s-1 to {inf2_name}"
    scheduled_at = t("2026-11-28T08:58:41Z")
    d.event(vllm1, "Scheduled", assigned, cb.SCHEDULER, first=scheduled_at, last=scheduled_at, type_="Normal")
    kubelet = {"host": inf2_name}
    first_pull, last_pull = t("2026-11-28T08:58:42Z"), t("2026-11-28T08:59:31Z")
    for reason, message, count, type_ in (
        ("Pulling", f'Pulling image "{VLLM}"', 3, "Normal"),
        ("Failed", f'Failed to pull image "{VLLM}": {pull_error}', 3, "Warning"),
        ("Failed", "Error: ErrImagePull", 3, "Warning"),
        ("BackOff", f'Back-off pulling image "{VLLM}"', 5, "Normal"),
        ("Failed", "Error: ImagePullBackOff", 5, "Warning"),
    ):
        last = NOW - timedelta(seconds=9) if "BackOff" in reason + message else last_pull
        d.event(
            vllm1,
            reason,
            message,
            "kubelet",
            first=first_pull,
            last=last,
            count=count,
            type_=type_,
            **kubelet,
        )
    d.event(
        inf2,
        "NvidiaXID79Error",
        xid_message,
        cb.NODE_MONITOR,
        first=xid_at,
        last=xid_at,
        host=inf2_name,
    )
    for obj in (idle_claim, idle):
        # Karpenter re-evaluates the empty node every few minutes and says why it may not touch it.
        d.events.append(
            cb.event(
                extra,
                obj,
                reason="DisruptionBlocked",
                message='disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation',
                component=cb.AUTO_MODE_COMPONENT,
                first=IDLE_CORDONED + timedelta(seconds=41),
                last=NOW - timedelta(seconds=133),
                count=61,
                type_="Normal",
            )
        )
    blocked = "Pdb prevents pod evictions (PodDisruptionBudget=[serving/vllm-l40s])"
    drift_seen = NOW - timedelta(days=6, hours=3)
    for obj in (d.claims[3], inf1):
        d.event(
            obj,
            "DisruptionBlocked",
            blocked,
            cb.AUTO_MODE_COMPONENT,
            first=drift_seen,
            last=NOW - timedelta(seconds=47),
            count=1771,
            type_="Normal",
        )

    # ---- NodePools with status computed from what they launched
    pools = []
    for pool, created in zip(
        POOLS, (CLUSTER_CREATED, CLUSTER_CREATED, gpu_pools_created, gpu_pools_created), strict=True
    ):
        claims = [c for c in d.claims if c["metadata"]["labels"]["karpenter.sh/nodepool"] == pool.name]
        usage = cb.sum_resources(c["status"]["capacity"] for c in claims)
        usage["nodes"] = str(len(claims))
        pools.append(cb.nodepool(ids, pool, created, nodes=len(claims), resources=usage))

    probes = probe_outputs(extra, inf1, inf2, p5, d.pods, old, new)
    # Drawn last, from their own seed: the objects and probes above stay as they were before the window.
    exporters, usage = usage_window(d.pods, probes, inf1, inf2, idle, p5)
    objects = [*nodeclasses, *pools, *d.nodes, *d.claims, *d.pods, *exporters, *d.events]
    objects = [cb.sort_keys(redact(o)) for o in objects]
    names = [(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]) for o in objects]
    uids = [o["metadata"]["uid"] for o in objects]
    assert len(set(names)) == len(names) and len(set(uids)) == len(uids), "duplicate object names or uids"
    return build_bundle(
        objects,
        captured_at=NOW,
        context=CONTEXT,
        notes=[],
        absent=[],
        probes=probes,
        redacted=True,
        usage=usage,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, default=OUT, help=f"output file (default: {OUT.name} next to this script)"
    )
    args = parser.parse_args(argv)
    write_bundle(build(), args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
