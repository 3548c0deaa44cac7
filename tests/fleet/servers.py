"""Several of the suite's API servers at once, for fleet mode: one kubeconfig with a context per server.

`FleetServers` starts a `FakeKubeAPI` per name (real HTTP on 127.0.0.1, each on its own port) and writes a
kubeconfig whose context `<name>` points at it (cluster entry `<name>-cluster`). Helpers make one of them
slow (every list answers after a delay), failing (every request is refused), or gated: its lists wait
until the others have been asked, so a run that read the clusters one after another could not succeed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from tests.kube.apiserver import FakeKubeAPI
from tests.kube.wire import RecordedRequest, Response, json_response, status_body

__all__ = ["FleetServers", "GatedAPI", "SignallingAPI", "write_fleet_kubeconfig"]


def write_fleet_kubeconfig(path: Path, servers: Mapping[str, str], current: str | None = None) -> Path:
    """A kubeconfig with one context (and cluster entry `<name>-cluster`) per name -> server URL."""
    names = list(servers)
    config: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": f"{n}-cluster", "cluster": {"server": url}} for n, url in servers.items()],
        "users": [{"name": "test", "user": {}}],
        "contexts": [{"name": n, "context": {"cluster": f"{n}-cluster", "user": "test"}} for n in names],
        "current-context": current or names[0],
    }
    path.write_text(json.dumps(config, indent=2))
    return path


class SignallingAPI(FakeKubeAPI):
    """A server that sets `asked` once it has been asked for a list (any path under /api/v1/)."""

    def __init__(self, asked: threading.Event) -> None:
        super().__init__()
        self.asked = asked

    def record(self, request: RecordedRequest) -> None:
        super().record(request)
        if request.path.startswith("/api/v1/"):
            self.asked.set()


class GatedAPI(FakeKubeAPI):
    """A server whose lists wait (up to `patience` seconds) until every event of `others` is set, and
    answer 503 if they were not: it succeeds only when the other clusters are read at the same time."""

    def __init__(self, others: Iterable[threading.Event], patience: float = 20.0) -> None:
        super().__init__()
        self.others = list(others)
        self.patience = patience

    def handle(
        self, method: str, path: str, query: dict[str, str], headers: dict[str, str], body: bytes
    ) -> Response:
        if path.startswith("/api/v1/") and not all(e.wait(self.patience) for e in self.others):
            return json_response(503, status_body(503, "the other clusters were never asked"))
        return super().handle(method, path, query, headers, body)


class FleetServers:
    """Start the given servers (name -> FakeKubeAPI, not started) together; `kubeconfig` names them all.
    Extra `closed` names point at a port nothing listens on (connection refused at once)."""

    def __init__(self, tmp: Path, servers: Mapping[str, FakeKubeAPI], closed: Iterable[str] = ()) -> None:
        self.tmp = tmp
        self.servers = dict(servers)
        self.closed = list(closed)
        self._stack = ExitStack()
        self.kubeconfig = tmp / "fleet-kubeconfig"

    def __enter__(self) -> FleetServers:
        urls = {name: self._stack.enter_context(api).url for name, api in self.servers.items()}
        urls.update({name: "http://127.0.0.1:1" for name in self.closed})
        write_fleet_kubeconfig(self.kubeconfig, urls)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def slow(self, name: str, delay: float, path: str = r"^/api/v1/") -> None:
        """Every request of `name` under `path` answers after `delay` seconds."""
        self.servers[name].fault(method="*", path=path, delay=delay, status=None)

    def failing(self, name: str, status: int = 401) -> None:
        """Every request of `name` is refused with `status` (401: the token was not accepted)."""
        self.servers[name].fault(method="*", path=r"^/", status=status)
