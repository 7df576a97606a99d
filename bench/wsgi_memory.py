"""gunicorn's own WSGI path in memory, for bench/wsgi_floor.py: its parser, environ and
Response over a keep-alive connection that holds wrk's requests (bench/wrk/post.lua), with the
production gunicorn.conf.py's settings and hooks, so an in-process count covers what a
gthread worker runs for one request but the sockets and the thread hand-over."""

from __future__ import annotations

import runpy
from collections.abc import Callable, Iterator
from typing import Any

from bench.servers import TOKEN
from tests.support.project import PROJECT_DIR

HOST = "127.0.0.1:8000"


def request_bytes(body: bytes) -> bytes:
    """One request as wrk sends it with bench/wrk/post.lua (Host, Content-Length, the headers)."""
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {HOST}\r\nContent-Length: {len(body)}\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        f"MCP-Protocol-Version: 2025-11-25\r\nAuthorization: Bearer {TOKEN}\r\n\r\n"
    )
    return head.encode() + body


class Connection:
    """A keep-alive connection in memory: recv() hands out the requests' bytes as a socket
    would (gunicorn asks for 8 KiB at a time), sendall() keeps the count of what was sent."""

    def __init__(self, data: bytes) -> None:
        self._data = memoryview(data)
        self._at = 0
        self.sent = 0

    def recv(self, size: int) -> bytes:
        chunk = bytes(self._data[self._at : self._at + size])
        self._at += len(chunk)
        return chunk

    def sendall(self, data: bytes) -> None:
        self.sent += len(data)

    def send(self, data: bytes) -> int:
        self.sent += len(data)
        return len(data)

    def setblocking(self, flag: bool) -> None:
        pass

    def settimeout(self, value: float | None) -> None:
        pass

    def gettimeout(self) -> float | None:
        return None


class Gunicorn:
    """gthread's handle_request for one application, over one in-memory connection."""

    def __init__(self, application: Callable[..., Any]) -> None:
        from gunicorn.config import Config
        from gunicorn.glogging import Logger

        self.cfg = Config()
        for name, value in runpy.run_path(str(PROJECT_DIR / "gunicorn.conf.py")).items():
            if name in self.cfg.settings and name != "worker_class":
                self.cfg.set(name, value)
        self.log = Logger(self.cfg)
        self.application = application
        self.parser: Iterator[Any] | None = None
        self.statuses: set[str] = set()

    def connect(self, body: bytes, requests: int) -> None:
        from gunicorn.http import get_parser

        self.connection = Connection(request_bytes(body) * requests)
        self.parser = get_parser(self.cfg, self.connection, ("127.0.0.1", 40000))

    def request(self) -> None:
        from gunicorn.http import wsgi

        assert self.parser is not None
        req = next(self.parser)
        self.cfg.pre_request(self, req)
        resp, environ = wsgi.create(req, self.connection, ("127.0.0.1", 40000), ("127.0.0.1", 8000), self.cfg)
        environ["wsgi.multithread"] = True
        respiter = self.application(environ, resp.start_response)
        try:
            for item in respiter:
                resp.write(item)
            resp.close()
        finally:
            self.log.access(resp, req, environ, None)
            if hasattr(respiter, "close"):
                respiter.close()
        self.cfg.post_request(self, req, environ, resp)
        self.statuses.add(resp.status)
