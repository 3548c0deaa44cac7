"""Each NVIDIA node's driver and CUDA ceiling (probe, GPU feature discovery labels, or the AMI), and the
nodes grouped by driver version."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import msgspec

from kubectl_gpu.core.accelerators.nodes import compute_type, driver_from_labels
from kubectl_gpu.core.catalog import Catalog, CatalogError, DriverInference
from kubectl_gpu.core.catalog.versions import version_key
from kubectl_gpu.core.k8s.models import Node
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.probe import ProbeResult

#: The DRA driver name of NVIDIA's GPU driver (NVIDIA/k8s-dra-driver-gpu, its DeviceClass gpu.nvidia.com).
NVIDIA_DRA_DRIVER = "gpu.nvidia.com"


def probe_for_node(state: ClusterState, node: str) -> ProbeResult | None:
    """The parsed collector output stored for ``node`` in the snapshot's ``probes``, if any."""
    return state.probe(node)


def is_nvidia_node(
    node: Node, catalog: Catalog, probe: ProbeResult | None = None, drivers: Iterable[str] = ()
) -> bool:
    """A node with NVIDIA GPUs: device-plugin resources, instance type, instance/GFD labels, a probe, or
    the DRA driver names of its ResourceSlices (`drivers`: the NVIDIA DRA driver publishes as `gpu.nvidia.com`,
    NVIDIA/k8s-dra-driver-gpu; such a node need not advertise nvidia.com/gpu, issue 37)."""
    if NVIDIA_DRA_DRIVER in drivers:
        return True
    if any(
        k.startswith("nvidia.com/") and v > 0 for k, v in (*node.capacity.items(), *node.allocatable.items())
    ):
        return True
    labels = node.labels
    itype = labels.get("node.kubernetes.io/instance-type") or labels.get("beta.kubernetes.io/instance-type")
    spec = catalog.by_name(itype) if itype else None
    if spec is not None and spec.is_nvidia:
        return True
    for key in ("eks.amazonaws.com/instance-gpu-manufacturer", "karpenter.k8s.aws/instance-gpu-manufacturer"):
        if labels.get(key, "").lower() == "nvidia":
            return True
    if labels.get("nvidia.com/gpu.present") == "true":
        return True
    return probe is not None and probe.driver_version is not None


class NodeDriver(msgspec.Struct, frozen=True):
    name: str
    node_pool: str | None
    instance_type: str | None
    compute_type: str
    ami: str | None
    os_image: str | None
    version: str | None
    cuda_max: str | None
    source: str  # probe | label | inferred | unknown
    minor_compat: str | None  # "12.x": the CUDA major this driver runs through minor-version compatibility
    open_ended: bool  # the driver is at the table's newest row: it may support more
    detail: str

    @property
    def known(self) -> bool:
        return self.version is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ami": self.ami,
            "osImage": self.os_image,
            "nodePool": self.node_pool,
            "instanceType": self.instance_type,
            "computeType": self.compute_type,
            "driver": {
                "version": self.version,
                "cudaMax": self.cuda_max,
                "source": self.source,
                "minorCompat": self.minor_compat,
                "cudaMaxOpenEnded": self.open_ended,
                "detail": self.detail,
            },
        }


def node_driver(node: Node, state: ClusterState, catalog: Catalog) -> NodeDriver:
    """The driver of one node and where it was read (see the module docstring for the order)."""
    labels = node.labels
    claim = state.nodeclaim_by_node.get(node.name)
    probe = probe_for_node(state, node.name)
    label = driver_from_labels(labels, catalog)
    version: str | None = None
    source = "unknown"
    detail = ""
    if probe is not None and probe.driver_version:
        version, source = probe.driver_version, "probe"
        detail = f"read by the collector in a debug pod ({probe.gpu_source or 'driver-version'})"
        if label.version and label.version != version:
            detail += f"; the GPU feature discovery label says {label.version} (stale?)"
    elif label.version:
        version, source = label.version, "label"
        detail = "NVIDIA GPU feature discovery label nvidia.com/cuda.driver-version"
    else:
        reason = "no probe output and no GPU feature discovery label"
        if node.os_image:
            info = catalog.bottlerocket.parse_os_image(node.os_image)
            if info.inferred and info.drivers:
                version, source = info.drivers[0], "inferred"
                others = f" (the release lists {', '.join(info.drivers)})" if len(info.drivers) > 1 else ""
                detail = info.reason + others
            elif info.inference is DriverInference.NOT_MAPPABLE:
                detail = (
                    f"{reason}; EKS Auto Mode AMI versions ({info.version}) do not map to upstream Bottlerocket "
                    "releases, so the driver cannot be inferred from the osImage"
                )
            else:
                detail = f"{reason}; {info.reason}"
        else:
            detail = reason
    cuda_max: str | None = None
    minor: str | None = None
    open_ended = False
    if version is not None:
        try:
            ceiling = catalog.cuda.max_cuda(version)
        except CatalogError as exc:
            detail += f"; {exc}"
            ceiling = None
        if ceiling is not None:
            cuda_max, open_ended = ceiling.cuda, ceiling.open_ended
            if ceiling.minor_compat is not None:
                minor = f"{ceiling.minor_compat.cuda_major}.x"
    itype = labels.get("node.kubernetes.io/instance-type") or labels.get("beta.kubernetes.io/instance-type")
    return NodeDriver(
        name=node.name,
        node_pool=labels.get("karpenter.sh/nodepool"),
        instance_type=itype,
        compute_type=compute_type(labels),
        ami=claim.image_id if claim else None,
        os_image=node.os_image,
        version=version,
        cuda_max=cuda_max,
        source=source,
        minor_compat=minor,
        open_ended=open_ended,
        detail=detail,
    )


class DriverGroup(msgspec.Struct, frozen=True):
    """Nodes that share an AMI (NodeClaim ``status.imageID``) and OS image."""

    ami: str | None
    os_image: str | None
    nodes: tuple[str, ...]
    node_pools: tuple[str, ...]
    drivers: tuple[tuple[str | None, str | None, str, int], ...]  # (version, cudaMax, source, nodes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ami": self.ami,
            "osImage": self.os_image,
            "nodeCount": len(self.nodes),
            "nodes": list(self.nodes),
            "nodePools": list(self.node_pools),
            "drivers": [
                {"version": v, "cudaMax": c, "source": s, "nodeCount": n} for v, c, s, n in self.drivers
            ],
        }


def driver_groups(rows: Iterable[NodeDriver]) -> tuple[DriverGroup, ...]:
    by_key: dict[tuple[str, str], list[NodeDriver]] = defaultdict(list)
    for row in rows:
        by_key[(row.ami or "", row.os_image or "")].append(row)
    out: list[DriverGroup] = []
    for (ami, os_image), members in sorted(by_key.items()):
        counts: dict[tuple[str | None, str | None, str], int] = defaultdict(int)
        for m in members:
            counts[(m.version, m.cuda_max, m.source)] += 1
        drivers = tuple(
            (v, c, s, n)
            for (v, c, s), n in sorted(
                counts.items(), key=lambda kv: (version_key(kv[0][0] or "") or (), kv[0][2])
            )
        )
        out.append(
            DriverGroup(
                ami=ami or None,
                os_image=os_image or None,
                nodes=tuple(sorted(m.name for m in members)),
                node_pools=tuple(sorted({m.node_pool for m in members if m.node_pool})),
                drivers=drivers,
            )
        )
    return tuple(out)
