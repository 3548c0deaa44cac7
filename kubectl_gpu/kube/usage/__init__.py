"""The live side of `kubectl gpu usage`: find the DCGM exporters and inference servers among the pods read
(`endpoints`), read their `/metrics` through the API server's pod proxy over a window (`collect`).
What comes back is `core.usage.scrape.ScrapeSet`: raw texts, parsed by `core.usage`."""

from kubectl_gpu.kube.usage.endpoints import Endpoint, find_endpoints
from kubectl_gpu.kube.usage.window import FORBIDDEN_ERROR, NO_SAVED_WINDOW, collect, read_endpoint

__all__ = ["FORBIDDEN_ERROR", "NO_SAVED_WINDOW", "Endpoint", "collect", "find_endpoints", "read_endpoint"]
