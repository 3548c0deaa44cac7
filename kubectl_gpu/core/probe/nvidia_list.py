"""``nvidia-smi -L``: GPU lines and their MIG device lines (new and old R450 MIG UUID formats)."""

from __future__ import annotations

from kubectl_gpu.core.lazy_pattern import lazy_pattern

from .errors import ProbeParseError, snippet
from .models import ListedGpu, ListedMigDevice

__all__ = ["parse_nvidia_smi_list"]

FORMAT = "nvidia-smi -L"

_GPU_RE = lazy_pattern(r"^GPU (\d{1,9}): (.+?) \(UUID: ([^)\s]+)\)$")
_MIG_RE = lazy_pattern(r"^MIG (?:(\S+)\s+)?Device\s+(\d{1,9}): \(UUID: ([^)\s]+)\)$")
_OLD_MIG_UUID_RE = lazy_pattern(r"^MIG-(GPU-[0-9a-fA-F-]+)/(\d{1,9})/(\d{1,9})$")


def parse_nvidia_smi_list(text: str | bytes) -> tuple[ListedGpu, ...]:
    """Parse ``nvidia-smi -L``. Lines starting with ``WARNING`` are skipped; any other line that is not a GPU
    or MIG line raises :class:`ProbeParseError` (this is how error messages and cut-off lines are caught)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    gpus: list[ListedGpu] = []
    migs: list[ListedMigDevice] = []

    def flush() -> None:
        if gpus and migs:
            last = gpus[-1]
            gpus[-1] = ListedGpu(last.index, last.name, last.uuid, tuple(migs))
        migs.clear()

    for raw in text.split("\n"):
        line = raw.strip()
        if not line or line.upper().startswith("WARNING"):
            continue
        gpu = _GPU_RE.match(line)
        if gpu is not None:
            flush()
            gpus.append(ListedGpu(int(gpu.group(1)), gpu.group(2).strip(), gpu.group(3)))
            continue
        mig = _MIG_RE.match(line)
        if mig is not None:
            if not gpus:
                raise ProbeParseError(FORMAT, "MIG line before any GPU line")
            uuid = mig.group(3)
            old = _OLD_MIG_UUID_RE.match(uuid)
            migs.append(
                ListedMigDevice(
                    index=int(mig.group(2)),
                    profile=mig.group(1),
                    uuid=uuid,
                    gpu_instance_id=int(old.group(2)) if old else None,
                    compute_instance_id=int(old.group(3)) if old else None,
                )
            )
            continue
        raise ProbeParseError(FORMAT, f"unexpected line {snippet(line)}")
    flush()
    if not gpus:
        raise ProbeParseError(FORMAT, f"no GPU lines in {snippet(text)}")
    return tuple(gpus)
