"""nvidia-smi's own error texts: what it prints instead of a report when NVML cannot start or a GPU is gone.

A saved output holding only such a text is not a CSV with an odd header: it is the answer, and its every
line matters (`Failed to initialize NVML: Driver/library version mismatch` is followed by `NVML library
version: 580.178`, the version the kernel module must be brought to). The texts are nvidia-smi's:

- `Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost. Reboot the system to recover
  this GPU` (also `: Unknown Error`, one line per GPU);
- `NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest
  NVIDIA driver is installed and running.`;
- `Failed to initialize NVML: <reason>`, then `NVML library version: <version>` for a mismatch;
- `No devices were found`, and a bare NVML error such as `Unknown Error`.
"""

from __future__ import annotations

from kubectl_gpu.core.lazy_pattern import lazy_pattern

from .models.values import error_value

__all__ = ["NVIDIA_SMI_ERROR", "nvidia_smi_error"]

#: The `ProbeIssue.kind` of a saved output that is nothing but nvidia-smi's error text.
NVIDIA_SMI_ERROR = "nvidia-smi-error"

_LINES = (
    lazy_pattern(r"^Unable to determine the device handle for (?:GPU|gpu) ?[0-9A-Fa-f:.]{4,20}: \S.{0,200}$"),
    lazy_pattern(r"^NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver\b.{0,300}$"),
    lazy_pattern(r"^Make sure that the latest NVIDIA driver is installed and running\.?$"),
    lazy_pattern(r"^Failed to initialize NVML: \S.{0,200}$"),
    lazy_pattern(r"^NVML library version: [0-9][0-9.]{0,20}$"),
    lazy_pattern(r"^No devices were found$"),
)
_MAX_CHARS = 4000


def _known(line: str) -> bool:
    return any(p.match(line) for p in _LINES) or error_value(line) is not None


def nvidia_smi_error(text: str) -> str | None:
    """The whole error message (its lines joined by "; ") when `text` is nothing but nvidia-smi's own
    error lines; None for anything else."""
    if len(text) > _MAX_CHARS:
        return None
    lines = [line.strip() for line in text.lstrip("\ufeff").splitlines()]
    lines = [line for line in lines if line]
    if not lines or not all(_known(line) for line in lines):
        return None
    return "; ".join(lines)
