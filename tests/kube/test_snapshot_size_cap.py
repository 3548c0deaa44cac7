"""A snapshot far beyond any real cluster is refused before it is read into memory (issue 36, item 5): all
its files together (a directory's too) over the cap (2 GiB; KUBECTL_GPU_MAX_SNAPSHOT_BYTES raises it, 0 lifts
it), from their sizes; stdin and files that grow counted as they are read; compressed files not read at all.

The big files are sparse (os.truncate): the test writes nothing big, and a read that happened would show in
the memory traced (tracemalloc), which is what is asserted, never a time."""

from __future__ import annotations

import gzip
import io
import os
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.kube.bundle_stream import open_bundle
from kubectl_gpu.kube.snapshot import load_snapshot, load_text
from kubectl_gpu.kube.snapshot_decode import (
    MAX_SNAPSHOT_BYTES,
    MAX_SNAPSHOT_BYTES_ENV,
    max_snapshot_bytes,
    read_bytes,
    read_stream,
)
from tests.conftest import Result
from tests.helpers import REPO

Cli = Callable[..., Result]
DEMO = REPO / "examples" / "automode-gpu-demo.json"  # a bundle in write_bundle's layout, ~650 KB
SMALL = 1 << 20  # traced memory of a refusal: the file is never read


@pytest.fixture(autouse=True)
def default_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MAX_SNAPSHOT_BYTES_ENV, raising=False)


def _sparse(path: Path, size: int) -> Path:
    path.write_bytes(b"")
    os.truncate(path, size)
    return path


def _peak(call: Callable[[], object]) -> tuple[BaseException, int]:
    """The exception `call` raises, and the peak of the memory traced meanwhile."""
    load_snapshot([DEMO])  # every module imported and cache filled before tracing
    tracemalloc.start()
    try:
        call()
    except Exception as exc:  # the refusal under test
        raised: BaseException = exc
    else:
        raise AssertionError("not refused")
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return raised, peak


def test_the_default_cap_is_2_gib() -> None:
    assert MAX_SNAPSHOT_BYTES == max_snapshot_bytes() == 2 << 30


def test_a_file_over_the_cap_is_refused_from_its_size_unread(tmp_path: Path) -> None:
    big = _sparse(tmp_path / "big.json", MAX_SNAPSHOT_BYTES + 1)
    error, peak = _peak(lambda: load_snapshot([big]))
    assert isinstance(error, InvalidInput)
    assert error.message == f"{big}: 2 GiB, over the 2 GiB input cap ({MAX_SNAPSHOT_BYTES_ENV}); not read"
    assert peak < SMALL, peak


def test_a_directory_is_capped_on_all_its_files_together(tmp_path: Path) -> None:
    folder = tmp_path / "dump"
    folder.mkdir()
    for name in ("nodes.json", "pods.json", "events.yaml"):
        _sparse(folder / name, 800 << 20)  # each under the cap, 2.3 GiB in all
    error, peak = _peak(lambda: load_snapshot([folder]))
    assert isinstance(error, InvalidInput)
    assert error.message.startswith("3 files (") and "2.3 GiB, over the 2 GiB input cap" in error.message
    assert peak < SMALL, peak


def test_several_paths_are_capped_together(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_SNAPSHOT_BYTES_ENV, str(DEMO.stat().st_size + 1))
    load_snapshot([DEMO])  # alone, under the cap
    copy = tmp_path / "copy.json"
    copy.write_bytes(DEMO.read_bytes())
    with pytest.raises(InvalidInput, match=r"^2 files \("):
        load_snapshot([DEMO, copy])


@pytest.mark.parametrize(("value", "cap"), [("4Gi", 4 << 30), ("3G", 3 * 10**9), ("512Mi", 512 << 20),
                                            ("1000", 1000), (" 2 GiB ", 2 << 30), ("0", None)])  # fmt: skip
def test_the_cap_is_set_by_the_environment(
    monkeypatch: pytest.MonkeyPatch, value: str, cap: int | None
) -> None:
    monkeypatch.setenv(MAX_SNAPSHOT_BYTES_ENV, value)
    assert max_snapshot_bytes() == cap


@pytest.mark.parametrize("value", ["lots", "-1", "1.5Gi", "4Pi"])
def test_a_cap_that_is_not_a_size_is_bad_input(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(MAX_SNAPSHOT_BYTES_ENV, value)
    with pytest.raises(InvalidInput, match=f"^{MAX_SNAPSHOT_BYTES_ENV}: not a size"):
        max_snapshot_bytes()


def test_a_raised_cap_reads_what_the_default_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_SNAPSHOT_BYTES_ENV, "100Ki")
    with pytest.raises(InvalidInput, match="over the 100 KiB input cap"):
        load_snapshot([DEMO])
    monkeypatch.setenv(MAX_SNAPSHOT_BYTES_ENV, "1Mi")
    assert load_snapshot([DEMO]).nodes
    monkeypatch.setenv(MAX_SNAPSHOT_BYTES_ENV, "0")
    assert load_snapshot([DEMO]).nodes


def test_a_streamed_bundle_over_the_cap_is_not_opened(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = open_bundle(DEMO)
    assert stream is not None
    stream.close()
    monkeypatch.setenv(MAX_SNAPSHOT_BYTES_ENV, "100Ki")
    assert open_bundle(DEMO) is None  # the whole-file read refuses it, from its size


# --- streams: counted as they are read ----------------------------------------------------------------------


class Endless(io.RawIOBase):
    """A stream that never ends (`yes | kubectl gpu ...`): what reads it whole never returns."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        buffer[:] = b"y" * len(buffer)
        return len(buffer)


def test_an_endless_stream_is_refused_at_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_SNAPSHOT_BYTES_ENV, "1Mi")
    error, peak = _peak(lambda: read_stream(io.BufferedReader(Endless())))
    assert isinstance(error, InvalidInput)
    assert error.message == f"<stdin>: over the 1 MiB input cap ({MAX_SNAPSHOT_BYTES_ENV}); read no further"
    assert peak < 4 * SMALL, peak


def test_a_stream_under_the_cap_is_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_SNAPSHOT_BYTES_ENV, "1Mi")
    data = DEMO.read_bytes()[: 900 << 10]
    assert read_stream(io.BytesIO(data)) == data


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="no /proc")
def test_a_file_whose_size_says_0_is_counted_as_it_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    status = Path("/proc/self/status")
    assert status.stat().st_size == 0 and read_bytes(status)
    monkeypatch.setenv(MAX_SNAPSHOT_BYTES_ENV, "16")
    with pytest.raises(InvalidInput, match="read no further"):
        read_bytes(status)


def test_text_already_read_is_refused_before_it_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_SNAPSHOT_BYTES_ENV, "100Ki")
    with pytest.raises(InvalidInput, match=r"^<stdin>: 634\.8 KiB, over the 100 KiB input cap"):
        load_text(DEMO.read_bytes())


# --- compressed files: never inflated ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["bundle.json.gz", "bundle.json"])
def test_a_compressed_file_is_refused_as_what_it_is(tmp_path: Path, name: str) -> None:
    packed = tmp_path / name
    packed.write_bytes(gzip.compress(DEMO.read_bytes()))
    with pytest.raises(InvalidInput) as info:
        load_snapshot([packed])
    assert info.value.message == f"{packed}: gzip-compressed; snapshots are read uncompressed"


# --- the command line -----------------------------------------------------------------------------------------


def test_the_cli_says_it_in_one_line_exit_2(cli: Cli, tmp_path: Path) -> None:
    big = _sparse(tmp_path / "big.json", 3 << 30)
    result = cli("nodes", "--snapshot", str(big))
    assert result.code == 2 and result.out == ""
    (line,) = result.err.splitlines()
    assert line.startswith(
        f"error: {big}: 3 GiB, over the 2 GiB input cap ({MAX_SNAPSHOT_BYTES_ENV}); not read; "
    )
    assert f"{MAX_SNAPSHOT_BYTES_ENV}=4Gi" in line


def test_a_bad_cap_is_one_line_exit_2(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_SNAPSHOT_BYTES_ENV, "lots")
    result = cli("nodes", "--snapshot", str(DEMO))
    assert result.code == 2
    assert result.err.splitlines() == [
        f"error: {MAX_SNAPSHOT_BYTES_ENV}: not a size: 'lots'; give bytes, or a size with a unit such as 4Gi "
        "or 3G; 0 lifts the cap"
    ]


def test_smi_from_file_is_capped_too(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = _sparse(tmp_path / "node.xml", 3 << 30)
    result = cli("smi", "--from-file", str(big))
    assert result.code == 2 and "3 GiB, over the 2 GiB input cap" in result.err, result.err
    monkeypatch.setenv(MAX_SNAPSHOT_BYTES_ENV, "1Mi")
    stdin = io.TextIOWrapper(io.BufferedReader(Endless()))
    monkeypatch.setattr(sys, "stdin", stdin)
    result = cli("smi", "--from-file", "-")
    assert result.code == 2
    assert result.err.splitlines()[0].startswith("error: <stdin>: over the 1 MiB input cap")
