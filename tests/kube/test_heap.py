"""The cyclic GC is off while any bulk load or one-shot analysis runs, in any thread, and back as it was."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from kubectl_gpu.kube.heap import bulk_load, without_collection


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
