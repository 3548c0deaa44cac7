"""The live side of `kubectl gpu usage`: find the DCGM exporters and inference servers among the pods read
(`endpoints`), read their `/metrics` through the API server's pod proxy over a window (`collect`).
What comes back is `core.usage.scrape.ScrapeSet`: raw texts, parsed by `core.usage`.

The names below are imported on first use: `kube.usage.config` (read by `usage --snapshot`) must not pull in
the Kubernetes client that `window` reads with."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kubectl_gpu.kube.usage.endpoints import Endpoint, find_endpoints
    from kubectl_gpu.kube.usage.window import FORBIDDEN_ERROR, NO_SAVED_WINDOW, collect, read_endpoint

__all__ = ["FORBIDDEN_ERROR", "NO_SAVED_WINDOW", "Endpoint", "collect", "find_endpoints", "read_endpoint"]

_WHERE = {
    "Endpoint": "endpoints",
    "find_endpoints": "endpoints",
    "FORBIDDEN_ERROR": "window",
    "NO_SAVED_WINDOW": "window",
    "collect": "window",
    "read_endpoint": "window",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"{__name__}.{module}"), name)
