"""Which pods to read `/metrics` from: DCGM exporters and inference servers, among the pods already read.

No request is made here: the candidates come from `state.pods`, recognised by their usual labels, images
and ports. DCGM exporters are looked for among every pod (they run in the operator's namespace, whatever
`-n` says); inference servers among the pods in scope (`-n`, `-l`). Only Running pods on a node are read:
the proxy cannot reach any other.

- DCGM exporter: the GPU Operator's `app=nvidia-dcgm-exporter`, the standalone chart's
  `app.kubernetes.io/name=dcgm-exporter`, the CloudWatch agent's (`k8s-app=dcgm-exporter`), a plain
  `app=dcgm-exporter`, or an image named `dcgm-exporter`; port 9400, or the one named `metrics`.
- Inference servers, by image: vLLM (`vllm`), SGLang (`sglang`, port 30000), Hugging Face TGI
  (`text-generation-inference`), Triton and TensorRT-LLM on Triton (`tritonserver`, metrics on 8002),
  NVIDIA NIM (`nvcr.io/nim/`, `/v1/metrics`).
  A pod that asks for a GPU and names a port `metrics` but runs none of these is read as `server=None`:
  the analysis lists it as an unknown server.

Labels are no proof: a DCGM exporter look-alike is read only when it is owned by a DaemonSet or runs in one
of the namespaces the user names (`core.usage.trust`); the others are listed by `untrusted_exporters`, for a
note, and never read (as an inference server either).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

import msgspec

from kubectl_gpu.core.k8s.models import Container, Pod
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.usage.scrape import SourceKind
from kubectl_gpu.core.usage.trust import UNTRUSTED, exporter_rank

__all__ = [
    "DCGM_LABELS",
    "DCGM_PORT",
    "Endpoint",
    "dcgm_endpoints",
    "find_endpoints",
    "inference_endpoints",
    "server_of",
    "untrusted_exporters",
]

DCGM_PORT = 9400
#: (label, value) pairs that mark a DCGM exporter pod.
DCGM_LABELS = (
    ("app", "nvidia-dcgm-exporter"),  # NVIDIA GPU Operator
    ("app.kubernetes.io/name", "dcgm-exporter"),  # the standalone dcgm-exporter Helm chart
    ("k8s-app", "dcgm-exporter"),  # the amazon-cloudwatch-observability add-on's chart
    ("app", "dcgm-exporter"),  # hand-written DaemonSets after NVIDIA's sample manifest
)
_METRICS_PORT_NAMES = ("metrics", "http-metrics")
_GPU_RESOURCES = ("nvidia.com/gpu", "nvidia.com/mig-", "nvidia.com/gpu.shared")


class _Server(msgspec.Struct, frozen=True):
    name: str  # Scrape.server
    images: tuple[str, ...]  # substrings of the image reference (lower case)
    port: int  # where its /metrics is served by default
    path: str = "/metrics"


_SERVERS = (
    _Server("vllm", ("vllm",), 8000),
    _Server("sglang", ("sglang",), 30000),
    _Server("tgi", ("text-generation-inference",), 80),
    _Server("triton", ("tritonserver", "triton-inference-server", "tensorrt-llm", "tensorrtllm"), 8002),
    _Server("nim", ("nvcr.io/nim/",), 8000, "/v1/metrics"),
)


class Endpoint(msgspec.Struct, frozen=True):
    """One `/metrics` to read through the API server's pod proxy."""

    source: SourceKind
    namespace: str
    pod: str
    node: str | None
    port: int
    path: str = "/metrics"
    server: str | None = None

    @property
    def proxy_path(self) -> str:
        """`/api/v1/namespaces/NS/pods/NAME:PORT/proxy/PATH`: each name escaped into its segment."""
        from urllib.parse import quote

        ns, name = quote(self.namespace, safe=""), quote(self.pod, safe="")
        return f"/api/v1/namespaces/{ns}/pods/{name}:{self.port}/proxy{self.path}"


def _readable(pod: Pod) -> bool:
    return pod.phase == "Running" and bool(pod.node_name) and not pod.meta.deleting


def _named_port(containers: Iterable[Container]) -> int | None:
    for container in containers:
        for port in container.ports:
            if port.name in _METRICS_PORT_NAMES:
                return port.port
    return None


def _is_dcgm(pod: Pod) -> bool:
    labels = pod.meta.labels
    if any(labels.get(key) == value for key, value in DCGM_LABELS):
        return True
    return any("dcgm-exporter" in (c.image or "").lower() for c in pod.containers)


def dcgm_endpoints(pods: Iterable[Pod], namespaces: Collection[str] = ()) -> list[Endpoint]:
    """The DCGM exporters among `pods` that are believed (owned by a DaemonSet, or in `namespaces`), one
    endpoint each (its named `metrics` port, else 9400)."""
    found = []
    for pod in pods:
        if _readable(pod) and _is_dcgm(pod) and exporter_rank(pod, namespaces) != UNTRUSTED:
            port = _named_port(pod.containers) or DCGM_PORT
            found.append(Endpoint("dcgm", pod.namespace, pod.name, pod.node_name, port))
    return found


def untrusted_exporters(pods: Iterable[Pod], namespaces: Collection[str] = ()) -> list[tuple[str, str]]:
    """(namespace, name) of the Running pods that look like a DCGM exporter but are not believed."""
    return [
        (pod.namespace, pod.name)
        for pod in pods
        if _readable(pod) and _is_dcgm(pod) and exporter_rank(pod, namespaces) == UNTRUSTED
    ]


def server_of(container: Container) -> str | None:
    """The inference server a container runs, by its image; None when not one we know."""
    image = (container.image or "").lower()
    for server in _SERVERS:
        if any(part in image for part in server.images):
            return server.name
    return None


def _wants_gpu(pod: Pod) -> bool:
    return any(name.startswith(_GPU_RESOURCES) for name in pod.requests)


def _inference_endpoint(pod: Pod) -> Endpoint | None:
    containers = pod.containers
    named = _named_port(containers)
    for container in containers:
        name = server_of(container)
        if name is None:
            continue
        server = next(s for s in _SERVERS if s.name == name)
        declared = {p.port for p in container.ports}
        port = named or (server.port if server.port in declared or not declared else container.ports[0].port)
        return Endpoint("inference", pod.namespace, pod.name, pod.node_name, port, server.path, name)
    if named is not None and _wants_gpu(pod):
        return Endpoint("inference", pod.namespace, pod.name, pod.node_name, named)
    return None


def inference_endpoints(pods: Iterable[Pod]) -> list[Endpoint]:
    """The inference servers among `pods` (Running, on a node), recognised or not (`server=None`)."""
    found = []
    for pod in pods:
        if _readable(pod) and not _is_dcgm(pod):
            endpoint = _inference_endpoint(pod)
            if endpoint is not None:
                found.append(endpoint)
    return found


def find_endpoints(state: ClusterState, namespaces: Collection[str] = ()) -> list[Endpoint]:
    """Every endpoint to read: the believed DCGM exporters cluster-wide (`namespaces`: where exporters are
    believed whatever owns them), then the inference servers in scope."""
    return dcgm_endpoints(state.pods, namespaces) + inference_endpoints(state.listed_pods)
