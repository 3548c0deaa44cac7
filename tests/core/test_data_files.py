"""The package's data files, read through its loader (core/data_files.py): the same bytes as on disk, from a
zip as well, and a missing one is an OSError naming it."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import kubectl_gpu
from kubectl_gpu.core.data_files import data_file

PACKAGE = Path(kubectl_gpu.__file__).resolve().parent


@pytest.mark.parametrize("name", ["instance_types.json", "collector.sh", "node_health.json"])
def test_the_bytes_are_the_files(name: str) -> None:
    assert data_file(name) == (PACKAGE / "data" / name).read_bytes()


def test_a_missing_file_is_an_os_error_that_names_it() -> None:
    with pytest.raises(OSError, match=r"no-such\.json"):
        data_file("no-such.json")


def test_a_zipped_package_reads_them_too(tmp_path: Path) -> None:
    """A zipapp or an egg: pkgutil asks the zip importer, as importlib.resources would have."""
    archive = tmp_path / "kubectl_gpu.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in PACKAGE.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                zipped.write(path, str(path.relative_to(PACKAGE.parent)))
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from kubectl_gpu.core.data_files import data_file\n"
        "import kubectl_gpu; assert kubectl_gpu.__file__.startswith(sys.argv[1]), kubectl_gpu.__file__\n"
        "sys.stdout.buffer.write(data_file('cuda_driver.json'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(archive)], capture_output=True, check=True, cwd=tmp_path
    )
    assert done.stdout == (PACKAGE / "data" / "cuda_driver.json").read_bytes()
