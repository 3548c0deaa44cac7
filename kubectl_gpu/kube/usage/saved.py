"""`snapshot --usage-window`: the pods a capture read, as the state `collect` looks for endpoints in, and a
window as a redacted bundle keeps it.

Redaction (kube/redaction.py) leaves out what can carry a credential except what an analysis reads. The
`/metrics` texts of the DCGM exporters and of the inference servers we recognise are what `usage` reads:
they hold metric names, figures and labels (pod, namespace and container names, node host names, GPU
models and UUIDs, driver versions, the model a server serves), the same kinds of names, labels and images a
redacted bundle keeps. A pod writes them, though, so they are kept as `redaction.redact_metrics` keeps them:
every figure and label `usage` reads as read, and out of the rest (other labels' values, HELP texts,
comments) what could be a credential (an `api_key` label, `Authorization: ...`, a bearer token, a URL's
password; and any credential this process holds). The one-line errors are passed through
`redaction.redact_text` (a pod's error page may quote a header). A text that `core.usage` does not
recognise as a server's (by its counter names, whatever the image) is read by no analysis and may hold
anything: a redacted bundle keeps that it was found, not what it said. `--no-redact` keeps it all.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.parse import ModelError, parse_object
from kubectl_gpu.core.k8s.state import ClusterState, Note, StateBuilder
from kubectl_gpu.core.usage.inference import token_reading
from kubectl_gpu.core.usage.metrics import parse_metrics
from kubectl_gpu.core.usage.scrape import Scrape, ScrapeSet
from kubectl_gpu.kube.redaction import redact_metrics, redact_text
from kubectl_gpu.kube.secret_text import scrub

__all__ = ["UNKNOWN_SERVER_REDACTED", "pods_state", "redact_scrapes"]

#: The error a redacted bundle keeps in place of an unrecognised server's text.
UNKNOWN_SERVER_REDACTED = (
    "not saved: a redacted bundle keeps no text of a server kubectl-gpu does not recognise"
)


def pods_state(objects: Iterable[dict[str, Any]], notes: Iterable[Note]) -> ClusterState:
    """The pods among a capture's `objects` (unreadable ones skipped, as the live source skips them), with
    its notes (a FORBIDDEN one on pods means the endpoints could not be looked for)."""
    builder = StateBuilder()
    pods = []
    for obj in objects:
        if obj.get("kind") != "Pod":
            continue
        try:
            model = parse_object(obj)
        except ModelError:
            continue
        if isinstance(model, Pod):
            pods.append(model)
    builder.add(pods)
    builder.notes.extend(notes)
    return builder.build()


def _redacted(scrape: Scrape) -> Scrape:
    if scrape.text is None:
        error = None if scrape.error is None else redact_text(scrape.error)
        return scrape if error == scrape.error else msgspec.structs.replace(scrape, error=error)
    if (
        scrape.source == "inference"
        and token_reading(parse_metrics(scrape.text), scrape.server).server is None
    ):
        return msgspec.structs.replace(scrape, text=None, error=UNKNOWN_SERVER_REDACTED)
    if scrape.source == "smi":  # the tool's own debug pod's nvidia-smi output, not a pod's words
        return msgspec.structs.replace(scrape, text=scrub(scrape.text))
    return msgspec.structs.replace(scrape, text=redact_metrics(scrape.text))


def redact_scrapes(scrapes: ScrapeSet) -> ScrapeSet:
    """`scrapes` as a redacted bundle keeps them (see the module's docstring)."""
    return msgspec.structs.replace(scrapes, scrapes=tuple(_redacted(s) for s in scrapes.scrapes))
