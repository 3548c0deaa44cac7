"""The package's own data files (`kubectl_gpu/data/`), read through the package's loader (`pkgutil.get_data`):
a file on disk and one in a zip alike, without `importlib.resources`, whose readers (and the zipfile,
tempfile and shutil they import) cost every command ~6 ms of start-up."""

from __future__ import annotations

import pkgutil

__all__ = ["data_file"]


def data_file(name: str) -> bytes:
    """The bytes of `kubectl_gpu/data/<name>`."""
    found = pkgutil.get_data("kubectl_gpu", f"data/{name}")
    if found is None:  # a loader that reads no data (none of Python's own)
        raise FileNotFoundError(f"kubectl_gpu/data/{name}: the package's loader does not read its data files")
    return found
