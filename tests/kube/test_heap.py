"""The cyclic GC is off while any bulk load or one-shot analysis runs, in any thread, and back as it was."""

from __future__ import annotations

import gc
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kubectl_gpu.kube import heap, snapshot_decode
from kubectl_gpu.kube.heap import bulk_load, inputs_kept_until_exit, without_collection
from kubectl_gpu.kube.snapshot import load_snapshot
from tests.helpers import node, pod


@pytest.fixture(autouse=True)
def _collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_nested_blocks_keep_the_collector_off_until_the_last_ends() -> None:
    with without_collection():
        with bulk_load():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block ending must not turn it back on
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    with without_collection():
        pass
    assert not gc.isenabled()


def test_overlapping_blocks_in_threads() -> None:
    inside = threading.Barrier(2)
    first_done = threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with without_collection():
            inside.wait()
        first_done.set()

    def second() -> None:
        with bulk_load():
            inside.wait()
            first_done.wait(5)
            seen.append(gc.isenabled())  # the other thread's block ended while this one runs

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert seen == [False]
    assert gc.isenabled()


def _list_file(tmp_path: Path) -> Path:
    path = tmp_path / "list.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [pod("p"), node("n")]}))
    return path


def _held() -> list[object]:
    """The parsed documents held until exit (`heap._inputs`: the loaded objects are frozen out of the
    collector's lists, so `gc.get_objects` would not see them)."""
    return [d for docs in heap._inputs for d in docs if isinstance(d, dict) and d.get("kind") == "List"]


def test_a_one_shot_command_keeps_the_parsed_file_until_exit(tmp_path: Path) -> None:
    """Issue 22: freeing a large List's tree costs a sixth of the command, and exit frees it for nothing."""
    path = _list_file(tmp_path)
    with inputs_kept_until_exit():
        state = load_snapshot([path])
    (document,) = _held()
    assert [o["metadata"]["name"] for o in document["items"]] == ["p", "n"] and len(state.pods) == 1
    # What is held whole anyway is not copied into a cut-down form: the pod reads its status as it is.
    assert state.pods[0]._details._status is document["items"][0]["status"]  # type: ignore[attr-defined]
    with inputs_kept_until_exit():  # the next command lets go of the last one's
        pass
    assert not _held()


def test_other_readers_free_the_parsed_file(tmp_path: Path) -> None:
    """The TUI, tests, any caller that reads again: nothing is held."""
    with inputs_kept_until_exit():
        pass
    state = load_snapshot([_list_file(tmp_path)])
    assert not _held()
    assert "conditions" not in state.pods[0]._details._status  # type: ignore[attr-defined]  # cut down


def test_a_list_read_to_its_parts_is_let_go_of_as_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A List decoded to the fields the parsers read is not held until exit: its items are small, and the
    parts kept as text (`msgspec.Raw`, issue 38) would hold the whole file's bytes with them. Its pods read
    their status from a cut-down copy, as any object let go of does."""
    monkeypatch.setattr(snapshot_decode, "PARTS_READ_FROM", 0)
    with inputs_kept_until_exit():
        state = load_snapshot([_list_file(tmp_path)])
    assert not _held() and len(state.pods) == 1
    assert "conditions" not in state.pods[0]._details._status  # type: ignore[attr-defined]


def test_the_start_up_hold_ends_where_the_command_s_work_begins() -> None:
    """`__main__` holds the collector off while a command's modules are imported; the first
    `without_collection` (a load, an analysis) ends that hold: the collector is back on after the block, with
    what the start-up built frozen out of it."""
    frozen = gc.get_freeze_count()
    heap.hold_off_for_startup()
    assert not gc.isenabled()
    kept = [object() for _ in range(10)]  # what the imports build, tracked by the collector
    kept.append(kept)
    with without_collection():
        assert not gc.isenabled()
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen + len(kept)
    heap.end_startup()  # over already: nothing changes
    assert gc.isenabled()
    gc.unfreeze()


def test_end_startup_turns_the_collector_back_on() -> None:
    """The typer path ends the hold before a command that may run for hours (the TUI, `-w`)."""
    heap.hold_off_for_startup()
    heap.hold_off_for_startup()  # a second hold is the same hold
    assert not gc.isenabled()
    heap.end_startup()
    assert gc.isenabled()
    gc.unfreeze()


def test_a_collector_off_before_the_start_up_stays_off() -> None:
    gc.disable()
    heap.hold_off_for_startup()
    heap.end_startup()
    assert not gc.isenabled()
    with without_collection():
        pass
    assert not gc.isenabled()


def test_main_leaves_the_collector_as_it_found_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An in-process caller of `__main__.main` gets the collector back on, even from an answer that exits
    before any load or analysis (here an unknown output format, exit 2)."""
    from kubectl_gpu import __main__ as entry

    monkeypatch.setattr("sys.argv", ["kubectl-gpu", "nodes", "-o", "nosuch", "--snapshot", "demo.json"])
    monkeypatch.setattr(entry, "_exit_now", lambda code: (_ for _ in ()).throw(SystemExit(code)))
    with pytest.raises(SystemExit) as exited:
        entry.main()
    assert exited.value.code == 2 and "nosuch" in capsys.readouterr().err
    assert gc.isenabled()
    gc.unfreeze()
