#!/usr/bin/env python3
"""A read-only Kubernetes API for the benchmark: a bundle's objects served as paginated lists, fast.

    python bench/apiserver.py bench/out/cluster-M.json    # prints "READY http://127.0.0.1:PORT"

The test suite's API server (tests/kube/apiserver.py) deep-copies every remaining item for each page, which
is right for tests and far too slow for 40,000 pods; this one serialises each object once and answers a
page with a join. It serves what the live source lists (nodes, pods, events by field selector reason= or
reportingComponent=, nodepools, nodeclaims, nodeclasses); every other path is a 404, as an absent CRD.
Run in its own process, so that the TUI being measured does not share an interpreter with it.
"""

from __future__ import annotations

import sys
from collections import defaultdict
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


def handler(store: Store) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            url = urlparse(self.path)
            found = PATHS.get(url.path)
            if found is None:
                return self._send(404, b'{"kind":"Status","apiVersion":"v1","status":"Failure","code":404}')
            kind, api_version = found
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
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


def main(path: str) -> None:
    store = Store(Path(path))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(store))
    print(f"READY http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1])
