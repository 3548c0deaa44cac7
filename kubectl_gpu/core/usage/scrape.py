"""What the adapters hand the usage analysis: raw texts with where and when they were read.

The contract between `kube/usage/` (which finds endpoints and reads them through the API server's proxy,
or from a bundle) and `core/usage/` (which parses and computes). Texts are kept raw so a bundle can save
them as read and the analysis can be re-run offline on them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec

__all__ = ["Scrape", "ScrapeSet", "SourceKind"]

# dcgm: a DCGM exporter's /metrics; inference: an inference server's /metrics (vLLM, TGI, Triton, NIM);
# smi: the text a sampled nvidia-smi debug pod printed (--sample).
SourceKind = Literal["dcgm", "inference", "smi"]


class Scrape(msgspec.Struct, frozen=True):
    """One read of one endpoint at one instant. `text` is None when the read failed; `error` then says why
    in one line ("forbidden: pods/proxy", "timed out after 5s", ...), and `forbidden` marks an RBAC refusal
    (which makes the answer "could not look", exit 4)."""

    source: SourceKind
    namespace: str  # the pod read (the exporter's or the server's own pod)
    pod: str
    taken_at: datetime  # timezone-aware
    node: str | None = None  # the node that pod runs on, when known
    port: int | None = None
    path: str = "/metrics"
    server: str | None = None  # inference: "vllm" | "tgi" | "triton" | "nim" | None (not recognised)
    text: str | None = None
    error: str | None = None
    forbidden: bool = False


class ScrapeSet(msgspec.Struct, frozen=True):
    """Every scrape of one `usage` run over its window, and what could not be looked at.

    `looked` is False when the adapter could not even list the candidates (pods/services forbidden):
    utilisation is then unknown, never zero. `notes` are one-line facts for the user ("no DCGM exporter
    found", "--sample not given"). `exporter_namespaces`: the namespaces whose DCGM exporters the reader
    was told to believe (`core.usage.trust`), kept so that a saved window is judged as it was read."""

    window_s: float
    scrapes: tuple[Scrape, ...] = ()
    looked: bool = True
    notes: tuple[str, ...] = msgspec.field(default_factory=tuple)
    exporter_namespaces: tuple[str, ...] = ()
