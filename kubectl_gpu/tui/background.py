"""Reading the cluster in a thread that quitting never waits for.

A Textual thread worker runs in asyncio's default executor, and the event loop joins that executor's
threads when it closes: `q` during a slow refresh waited for the refresh (3-8 s against a slow API
server). Here the work runs in a daemon thread and an async worker awaits its result: quitting cancels the
worker, the thread is abandoned (it only reads; its result is dropped) and the process ends at once.
Tests still wait for it as for any worker (`app.workers.wait_for_complete()`).

A worker started with `exit_on_error=False` keeps the app running when it fails, and Textual then drops the
error. So every node that starts one (the app, a page, a view) mixes in `ShowsWorkerFailures`: its one
handler of `Worker.StateChanged` says a failed worker's error through the message seam (`App.notify`, titled
by the worker's group) and on the page the worker belongs to (`show_failure`: the view's status line, the
page's body, the header). A worker catches only what it expects (a kubeconfig the refresh reports).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from textual.worker import Worker, WorkerState

from kubectl_gpu.core.errors import KubectlGpuError
from kubectl_gpu.render.messages import error_line

__all__ = ["WORKER_TITLES", "ShowsWorkerFailures", "failure_line", "off_thread"]

if TYPE_CHECKING:
    from textual.dom import DOMNode

    _Node = DOMNode
else:
    _Node = object

T = TypeVar("T")
#: how much of an unexpected exception's text a failure line keeps
DETAIL_CHARS = 300


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
    """One line for an error out of a worker, made safe (`render.messages.error_line`): the tool's own
    words, else the exception's kind and text (its first `DETAIL_CHARS` characters)."""
    line = error_line(exc)
    if isinstance(exc, KubectlGpuError):
        return line
    return line[: len(type(exc).__name__) + 2 + DETAIL_CHARS]


#: what a failed worker's notice is titled, by the worker's group
WORKER_TITLES = {
    "refresh": "refresh failed (internal error; please report it)",
    "contexts": "reading the kubeconfig's contexts",
    "fleet": "fleet",
    "page": "building the page",
    "usage-view": "usage",
    "debug": "debug pod",
    "quit": "quitting",
}


class ShowsWorkerFailures(_Node):
    """The one handler of the workers that run with `exit_on_error=False`: mixed into every node that
    starts one, so that a failure is said, never dropped (tests/tui/test_worker_errors.py)."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker: Worker[object] = event.worker
        if event.state is not WorkerState.ERROR or worker.error is None:
            return
        line = failure_line(worker.error)
        said = self.show_failure(worker.group, line) or line
        title = WORKER_TITLES.get(worker.group, worker.group)
        self.app.notify(said, title=title, severity="error", timeout=10)

    def show_failure(self, group: str, line: str) -> str | None:
        """Show `line` (made safe) on this node's page, and return it as the page words it (for the notice
        too); None: the notice alone (the default)."""
        return None
