"""A tiny HTTP proxy on 127.0.0.1, on a thread, that records what it is asked.

    with ForwardProxy() as proxy:        # proxy.url = "http://127.0.0.1:PORT"
        ...                              # HTTPS_PROXY / HTTP_PROXY pointed at it
        proxy.requests                   # [("GET", "http://127.0.0.1:5000/user", headers), ...]

A forward request (`GET http://host:port/path`) is passed on to its host when that host is
127.0.0.1 (the GitHub stand-in), and answered 502 otherwise: tests reach nothing else. A
`CONNECT host:port` is recorded and refused with 502 (no TLS server stands in here), which
is enough to show that an https call went to the proxy instead of the network.
"""

import http.client
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import urlsplit

from tests.support.http_answers import LocalServer, send


class ForwardProxy:
    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self._lock = threading.Lock()
        self._server = LocalServer(_handler_for(self))

    @property
    def url(self) -> str:
        return self._server.url

    def record(self, method: str, target: str, headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append((method, target, headers))

    def __enter__(self) -> "ForwardProxy":
        self._server.start("forward-proxy")
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.stop()


def _handler_for(proxy: ForwardProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_CONNECT(self) -> None:
            proxy.record("CONNECT", self.path, dict(self.headers.items()))
            send(self, 502, b"no tunnels here", "text/plain")

        def do_GET(self) -> None:
            proxy.record("GET", self.path, dict(self.headers.items()))
            target = urlsplit(self.path)
            if target.scheme != "http" or target.hostname != "127.0.0.1":
                send(self, 502, b"tests reach 127.0.0.1 only", "text/plain")
                return
            upstream = http.client.HTTPConnection(target.hostname, target.port, timeout=5)
            try:
                headers = {k: v for k, v in self.headers.items() if k.lower() != "proxy-authorization"}
                upstream.request("GET", target.path or "/", headers=headers)
                answer = upstream.getresponse()
                send(self, answer.status, answer.read(), answer.getheader("Content-Type", "text/plain"))
            finally:
                upstream.close()

    return Handler
