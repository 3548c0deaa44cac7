"""Servers that are not a Kubernetes API server, for a kubeconfig pointing at the wrong thing: a web server
or a proxy that answers every path with the same page (a 404 page, a 200 welcome page, a 502 from a load
balancer). Real HTTP on 127.0.0.1, through the same `HttpServer` as the fake API server."""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.kube.wire import Fault, HttpServer, RecordedRequest, Response

NOT_FOUND_PAGE = """<!DOCTYPE html>
<html>
<head><title>404 Not Found</title></head>
<body>
<center><h1>404 Not Found</h1></center>
<hr><center>nginx/1.27.0</center>
</body>
</html>
"""

WELCOME_PAGE = """<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>If you see this page, the nginx web server is successfully installed and working.</p>
</body>
</html>
"""

BAD_GATEWAY_PAGE = """<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>awselb/2.0</center>
</body>
</html>
"""

PROXY_404_JSON = '{"error": "route not found", "path": "unknown"}'


@dataclass
class PlainWebServer:
    """Answers every request with `status` and `body` (HTML unless `content_type` says otherwise)."""

    status: int = 404
    body: str = NOT_FOUND_PAGE
    content_type: str = "text/html"
    requests: list[RecordedRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._http = HttpServer(self)

    # The Backend protocol of HttpServer.
    def record(self, request: RecordedRequest) -> None:
        self.requests.append(request)

    def take_fault(self, method: str, path: str) -> Fault | None:
        return None

    def handle(
        self, method: str, path: str, query: dict[str, str], headers: dict[str, str], body: bytes
    ) -> Response:
        return Response(self.status, self.body.encode(), self.content_type)

    @property
    def url(self) -> str:
        return self._http.url

    def __enter__(self) -> PlainWebServer:
        self._http.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.stop()
