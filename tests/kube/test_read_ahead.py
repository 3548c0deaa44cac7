"""The `--snapshot` file read ahead while the command line is parsed (`kube/read_ahead.py`, `kube/prefetched.py`):
its bytes stand in for `read_file`'s read only when they are what that read gives, and anything else is read
as before."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.kube import prefetched, read_ahead, snapshot_decode
from kubectl_gpu.kube.snapshot_decode import MAX_SNAPSHOT_BYTES_ENV, read_file
from kubectl_gpu.kube.worker_threads import MAIN_THREAD_SIGNALS

ROOT = Path(__file__).resolve().parents[2]
_NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "n1"},
    "status": {"capacity": {"nvidia.com/gpu": "1"}, "allocatable": {"nvidia.com/gpu": "1"}},
}
_LIST = {"apiVersion": "v1", "kind": "List", "items": [_NODE]}


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts with nothing read ahead (the module keeps what `__main__` started)."""
    monkeypatch.setattr(prefetched, "_READ", {})
    monkeypatch.setattr(prefetched, "_PLANNED", set())
    monkeypatch.setattr(prefetched, "_THREADS", [])
    yield


@pytest.fixture
def no_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """`read_file`'s own read, recorded: a test sees whether the bytes read ahead stood in for it."""
    reads: list[str] = []
    real = snapshot_decode._read_handle

    def recorded(handle: object, source: str, cap: int | None) -> bytes:
        reads.append(source)
        return real(handle, source, cap)  # type: ignore[arg-type]

    monkeypatch.setattr(snapshot_decode, "_read_handle", recorded)
    return reads


def _file(tmp_path: Path, name: str = "cluster.json", doc: object = _LIST) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _wait() -> None:
    for thread in prefetched._THREADS:
        thread.join(60)
        assert not thread.is_alive()


@pytest.mark.parametrize(
    ("args", "paths"),
    [
        (["nodes", "--snapshot", "a.json"], ["a.json"]),
        (["--snapshot=a.json", "pending", "--snapshot", "b.json"], ["a.json", "b.json"]),
        (["nodes", "--snapshot", "-"], []),  # stdin
        (["nodes", "--snapshot="], []),
        (["nodes", "--", "--snapshot", "a.json"], []),  # an argument, not the option
        (["nodes", "--snapshot"], []),  # no value: typer says so
        (["nodes", "-o", "json"], []),
    ],
)
def test_the_paths_are_those_of_the_snapshot_option(args: list[str], paths: list[str]) -> None:
    assert read_ahead.snapshot_paths(args) == paths


def test_the_bytes_read_ahead_stand_in_for_the_read_once(tmp_path: Path, no_read: list[str]) -> None:
    path = _file(tmp_path)
    read_ahead.start(["nodes", "--snapshot", str(path)])
    assert len(prefetched._THREADS) == 1
    _wait()
    documents, is_json = read_file(path)
    assert documents == [_LIST] and is_json
    assert no_read == []  # the bytes read ahead: no second read
    read_file(path)  # taken once: a second read of the file reads it
    assert no_read == [str(path)]


def test_a_file_changed_since_is_read_again(tmp_path: Path, no_read: list[str]) -> None:
    path = _file(tmp_path)
    read_ahead.start(["--snapshot", str(path)])
    _wait()
    changed = {**_LIST, "items": []}
    path.write_text(json.dumps(changed))  # another size
    assert read_file(path)[0] == [changed]
    assert no_read == [str(path)]


def test_a_file_touched_since_is_read_again(tmp_path: Path, no_read: list[str]) -> None:
    path = _file(tmp_path)
    read_ahead.start(["--snapshot", str(path)])
    _wait()
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # same size, newer
    assert read_file(path)[0] == [_LIST]
    assert no_read == [str(path)]


def test_another_file_does_not_wait_and_is_read(tmp_path: Path, no_read: list[str]) -> None:
    ahead, other = _file(tmp_path, "a.json"), _file(tmp_path, "b.json")
    read_ahead.start(["--snapshot", str(ahead)])
    assert read_file(other)[0] == [_LIST]
    assert no_read == [str(other)]


def test_a_bundle_is_not_read_ahead() -> None:
    """Our bundles are read one object at a time (`bundle_stream`): the whole file is never held."""
    demo = ROOT / "examples" / "automode-gpu-demo.json"
    read_ahead.start(["--snapshot", str(demo)])
    assert len(prefetched._THREADS) == 1
    _wait()
    assert prefetched._READ == {}


def test_over_the_cap_nothing_is_read_ahead_and_the_refusal_is_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_read: list[str]
) -> None:
    path = _file(tmp_path)
    monkeypatch.setenv(MAX_SNAPSHOT_BYTES_ENV, "10")
    read_ahead.start(["--snapshot", str(path)])
    assert prefetched._THREADS == []
    with pytest.raises(InvalidInput, match="over the 10 bytes input cap"):
        read_file(path)


@pytest.mark.parametrize("cap", ["", "lots"])
def test_what_cannot_be_read_ahead_starts_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cap: str
) -> None:
    """A directory, a missing path, a bad cap: nothing started, no error here (the command's read says it)."""
    if cap:  # a file, under a cap that is not a size
        monkeypatch.setenv(MAX_SNAPSHOT_BYTES_ENV, cap)
        read_ahead.start(["--snapshot", str(_file(tmp_path))])
    else:
        read_ahead.start(["--snapshot", str(tmp_path), "--snapshot", str(tmp_path / "missing.json")])
    assert prefetched._THREADS == []


def test_the_reading_thread_leaves_the_signals_to_the_main_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not hasattr(signal, "pthread_sigmask"):
        pytest.skip("no per-thread signal mask")
    seen: list[frozenset[int]] = []
    real = read_ahead._read_one

    def read_one(path: str, open_bundle: Any) -> None:
        seen.append(frozenset(signal.pthread_sigmask(signal.SIG_BLOCK, [])))
        real(path, open_bundle)

    monkeypatch.setattr(read_ahead, "_read_one", read_one)
    read_ahead.start(["--snapshot", str(_file(tmp_path))])
    _wait()
    assert seen and seen[0] >= MAIN_THREAD_SIGNALS


def test_a_command_answers_the_same_with_the_file_read_ahead(tmp_path: Path) -> None:
    """The whole program (`python -m kubectl_gpu`, which starts the read), against the same file named so
    that nothing is read ahead (a directory holding it)."""
    folder = tmp_path / "dir"
    folder.mkdir()
    path = _file(folder)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    outputs = []
    for given in (str(path), str(folder)):
        argv = [sys.executable, "-m", "kubectl_gpu", "nodes", "--snapshot", given, "-o", "json"]
        done = subprocess.run(argv, capture_output=True, env=env, timeout=120, check=False)
        outputs.append((done.returncode, done.stdout, done.stderr))
    assert outputs[0] == outputs[1]
    assert b'"n1"' in outputs[0][1]


def test_the_program_reads_the_file_ahead(tmp_path: Path) -> None:
    """`__main__` starts the read: the command's own read (`_read_handle`) is never made."""
    path = _file(tmp_path)
    code = (
        "import sys\n"
        "from kubectl_gpu.kube import snapshot_decode\n"
        "snapshot_decode._read_handle = lambda *args: sys.exit(99)\n"
        f"sys.argv = ['kubectl-gpu', 'nodes', '--snapshot', {str(path)!r}, '-o', 'json']\n"
        "from kubectl_gpu.__main__ import main\n"
        "main()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert b'"n1"' in done.stdout
