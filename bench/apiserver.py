#!/usr/bin/env python3
"""A read-only Kubernetes API for the benchmark: a bundle's objects served as paginated lists, fast.

    python bench/apiserver.py bench/out/cluster-M.json [--latency-ms 50]   # prints "READY http://127.0.0.1:PORT"

The test suite's API server (tests/kube/apiserver.py) deep-copies every remaining item for each page, which
is right for tests and far too slow for 40,000 pods; this one serialises each object once and answers a
page with a join. It serves what the live source lists (nodes, pods, events by field selector reason= or
reportingComponent=, nodepools, nodeclaims, nodeclasses), the discovery a client proves a server by
(`/version`, `/api`, `/apis`), and watches: the objects never change, so a watch sends nothing and ends
after its `timeoutSeconds`, as a real server's does on a quiet cluster; every other path is a 404, as an
absent CRD (a core kind the bundle holds none of is an empty list).
Run in its own process, so that the TUI being measured does not share an interpreter with it.

`--latency-ms N` delays every answer by N ms (a remote API server's round trip; requests are answered
concurrently, as a real one answers them). `GET /_bench/requests` answers how many requests each path got
since the last `GET /_bench/reset` (neither is counted).
"""

from __future__ import annotations

import argparse
import threading
import time
from collections import Counter, defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import orjson

PAGE = 500
PATHS = {
    "/api/v1/nodes": ("Node", "v1"),
    "/api/v1/pods": ("Pod", "v1"),
    "/api/v1/events": ("Event", "v1"),
    "/api/v1/persistentvolumeclaims": ("PersistentVolumeClaim", "v1"),
    "/api/v1/persistentvolumes": ("PersistentVolume", "v1"),
    "/apis/karpenter.sh/v1/nodepools": ("NodePool", "karpenter.sh/v1"),
    "/apis/karpenter.sh/v1/nodeclaims": ("NodeClaim", "karpenter.sh/v1"),
    "/apis/eks.amazonaws.com/v1/nodeclasses": ("NodeClass", "eks.amazonaws.com/v1"),
}
VERSION = {"major": "1", "minor": "32", "gitVersion": "v1.32.0", "platform": "linux/amd64"}
GROUPS = {"karpenter.sh": ["v1"], "eks.amazonaws.com": ["v1"]}
DISCOVERY = {
    "/version": VERSION,
    "/api": {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []},
    "/apis": {
        "kind": "APIGroupList",
        "apiVersion": "v1",
        "groups": [
            {
                "name": name,
                "versions": [{"groupVersion": f"{name}/{v}", "version": v} for v in versions],
                "preferredVersion": {"groupVersion": f"{name}/{versions[0]}", "version": versions[0]},
            }
            for name, versions in GROUPS.items()
        ],
    },
}


class Store:
    def __init__(self, path: Path) -> None:
        bundle = orjson.loads(path.read_bytes())
        self.items: dict[str, list[tuple[dict[str, object], bytes]]] = defaultdict(list)
        for obj in bundle["objects"]:
            self.items[obj["kind"]].append((obj, orjson.dumps(obj)))
        self.filtered: dict[tuple[str, str], list[bytes]] = {}

    def select(self, kind: str, field: str) -> list[bytes]:
        """The serialised objects of `kind`, those matching `field` (`reason=X`, `reportingComponent=Y`)."""
        key = (kind, field)
        if key not in self.filtered:
            name, _, value = field.partition("=")
            self.filtered[key] = [
                data
                for obj, data in self.items.get(kind, [])
                if not field or str(obj.get(name) or obj.get("source", {}).get("component", "")) == value  # type: ignore[attr-defined]
            ]
        return self.filtered[key]


class Requests:
    """Requests per path, counted from several handler threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.counts: Counter[str] = Counter()

    def add(self, path: str) -> None:
        with self.lock:
            self.counts[path] += 1

    def take(self) -> bytes:
        with self.lock:
            return orjson.dumps(dict(self.counts))

    def reset(self) -> None:
        with self.lock:
            self.counts.clear()


def handler(store: Store, latency: float, requests: Requests) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            url = urlparse(self.path)
            if url.path == "/_bench/requests":
                return self._send(200, requests.take())
            if url.path == "/_bench/reset":
                requests.reset()
                return self._send(200, b"{}")
            requests.add(url.path)
            if latency:
                time.sleep(latency)
            if url.path in DISCOVERY:
                return self._send(200, orjson.dumps(DISCOVERY[url.path]))
            found = PATHS.get(url.path)
            if found is None and url.path.count("/") == 3 and url.path.startswith("/api/v1/"):
                found = ("", "v1")  # a core kind the bundle has none of (every server serves them): empty
            if found is None:
                return self._send(404, b'{"kind":"Status","apiVersion":"v1","status":"Failure","code":404}')
            kind, api_version = found
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            if query.get("watch") in ("1", "true"):
                time.sleep(float(query.get("timeoutSeconds") or 1))
                return self._send(200, b"")
            items = store.select(kind, query.get("fieldSelector", ""))
            start = int(query.get("continue") or 0)
            limit = int(query.get("limit") or len(items) or 1)
            page = items[start : start + limit]
            more = start + limit < len(items)
            meta = {"resourceVersion": "1", **({"continue": str(start + limit)} if more else {})}
            head = orjson.dumps({"kind": f"{kind}List", "apiVersion": api_version, "metadata": meta})
            body = head[:-1] + b',"items":[' + b",".join(page) + b"]}"
            self._send(200, body)

        def _send(self, code: int, body: bytes) -> None:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--latency-ms", type=float, default=0.0, help="delay every answer by this much")
    args = parser.parse_args()
    store = Store(args.bundle)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(store, args.latency_ms / 1000, Requests()))
    server.daemon_threads = True
    print(f"READY http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
