"""`kubectl gpu usage`: how busy allocated GPUs are, what idle ones cost, and $ per million tokens.

The adapters (kube/usage/) read raw `/metrics` texts (DCGM exporter, inference servers) or sampled
nvidia-smi output and hand them over as `Scrape`s in a `ScrapeSet`; everything else (parsing, rates over the
window, attribution, prices) is pure and lives here.
"""

from kubectl_gpu.core.usage.scrape import Scrape, ScrapeSet, SourceKind

__all__ = ["Scrape", "ScrapeSet", "SourceKind"]
