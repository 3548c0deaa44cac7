"""Reading the cluster in a thread that quitting never waits for.

A Textual thread worker runs in asyncio's default executor, and the event loop joins that executor's
threads when it closes: `q` during a slow refresh waited for the refresh (3-8 s against a slow API
server). Here the work runs in a daemon thread and an async worker awaits its result: quitting cancels the
worker, the thread is abandoned (it only reads; its result is dropped) and the process ends at once.
Tests still wait for it as for any worker (`app.workers.wait_for_complete()`).

A worker started with `exit_on_error=False` keeps the app running when it fails, and Textual then drops the
error: each such worker catches its errors and shows them (`failure_line`), on its page or as a notification.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import TypeVar

from kubectl_gpu.core.errors import KubectlGpuError

__all__ = ["failure_line", "off_thread"]

T = TypeVar("T")


async def off_thread(name: str, fn: Callable[[], T]) -> T:
    """`fn()` in a daemon thread; its result (or exception) here. Cancelling the caller abandons it."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if future.done():  # cancelled: nobody waits for it any more
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def run() -> None:
        try:
            result, error = fn(), None
        except BaseException as exc:  # handed to the awaiting side, which decides
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop is closed: the app is gone
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name=name, daemon=True).start()
    return await future


def failure_line(exc: BaseException) -> str:
    """One line for an error out of a worker: the tool's own words, else the exception's kind and text."""
    if isinstance(exc, KubectlGpuError):
        return exc.line()
    detail = " ".join(str(exc).split())[:300]
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
