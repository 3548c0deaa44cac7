"""Whose `/metrics` is believed, and for which GPUs. Pure.

A pod can carry any label: `app=dcgm-exporter` in a tenant's namespace is one `kubectl apply` away, and
what it writes would move another team's utilisation. So:

- A DCGM exporter is believed only when it is a pod owned by a DaemonSet (its first ownerReference: kind
  `DaemonSet`), or when it runs in a namespace the user names (`--exporter-namespace NS`, or the config
  file's `usage: {exporterNamespaces: [NS]}`). Its rank: `NAMED` (2) in a named namespace, `DAEMONSET` (1)
  owned by a DaemonSet elsewhere, `UNTRUSTED` (0) otherwise (never read live; left out of a saved window).
- A GPU is on one node. Where a DRA ResourceSlice of NVIDIA's driver says which node a GPU UUID is on
  (`gpu_homes`), a reading of that UUID from an exporter on another node is not believed.
- Two exporters reporting one GPU (one UUID; without a UUID, one index on one node) over the same time: the
  better rank is believed (a named namespace over a mere DaemonSet); of equal rank neither is: a conflict,
  said in a note naming both pods, never averaged. A pod replaced by the next one on its node (a DaemonSet
  rollout: their reads do not overlap in time) is no conflict.
- An inference server speaks for its own pod only: its figures are keyed by the pod read, whatever its
  labels say (`window.read_window`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping

from kubectl_gpu.core.k8s.models import Pod, ResourceSlice
from kubectl_gpu.core.usage.scrape import Scrape

__all__ = [
    "DAEMONSET",
    "NAMED",
    "NVIDIA_DRA_DRIVER",
    "UNTRUSTED",
    "exporter_rank",
    "gpu_homes",
    "scrape_rank",
    "untrusted_note",
]

NAMED = 2
DAEMONSET = 1
UNTRUSTED = 0
#: The DRA driver that publishes NVIDIA GPUs (k8s-dra-driver-gpu), each device with a `uuid` attribute.
NVIDIA_DRA_DRIVER = "gpu.nvidia.com"


def exporter_rank(pod: Pod, namespaces: Collection[str]) -> int:
    """How far a DCGM exporter pod is believed (module docstring): NAMED, DAEMONSET or UNTRUSTED."""
    if pod.namespace in namespaces:
        return NAMED
    return DAEMONSET if pod.meta.owner_kind == "DaemonSet" else UNTRUSTED


def scrape_rank(pods: Iterable[Pod], namespaces: Collection[str]) -> Callable[[Scrape], int]:
    """The rank of a DCGM scrape: its pod's, among `pods`; a pod not among them (a saved window whose bundle
    does not hold the exporter's pod) is ranked as a DaemonSet's: it was believed when it was read."""
    by_key: Mapping[tuple[str, str], Pod] = {(p.namespace, p.name): p for p in pods}

    def rank(scrape: Scrape) -> int:
        if scrape.namespace in namespaces:
            return NAMED
        pod = by_key.get((scrape.namespace, scrape.pod))
        return DAEMONSET if pod is None else exporter_rank(pod, namespaces)

    return rank


def _uuid(value: object) -> str | None:
    """A DRA attribute's value (`{"string": "GPU-..."}`), or a plain string."""
    if isinstance(value, dict):
        value = value.get("string")
    return value if isinstance(value, str) and value else None


def gpu_homes(slices: Iterable[ResourceSlice]) -> dict[str, str]:
    """GPU UUID -> the node NVIDIA's DRA driver publishes it on. A UUID published on two nodes is left out
    (no answer is better than a wrong one)."""
    homes: dict[str, str] = {}
    twice: set[str] = set()
    for piece in slices:
        if piece.driver != NVIDIA_DRA_DRIVER or not piece.node_name:
            continue
        for device in piece.devices:
            uuid = _uuid(device.attributes.get("uuid"))
            if uuid is None:
                continue
            if homes.setdefault(uuid, piece.node_name) != piece.node_name:
                twice.add(uuid)
    return {uuid: node for uuid, node in homes.items() if uuid not in twice}


def untrusted_note(pods: Iterable[tuple[str, str]], verb: str = "not read") -> str | None:
    """The note for DCGM exporter look-alikes (namespace, name) that were `verb` ("not read" live, "not
    believed" in a saved window), or None."""
    names = sorted({f"{ns}/{name}" for ns, name in pods})
    if not names:
        return None
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return (
        f"{verb}: {len(names)} pod(s) that look like a DCGM exporter but are not owned by a DaemonSet nor in "
        f"an --exporter-namespace: {shown}"
    )
