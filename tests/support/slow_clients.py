"""Slow clients, as an attacker runs them against a server reached directly (issue 15,
finding 4), for the reliability tests and bench/slow_clients.py.

    with SlowHeaderClients(port, count=64, interval=2.0) as slow:   # all connected, trickling
        ...                                                        # measure normal requests
    slow.closed_by_server, slow.answers                            # what the server did to them

Each connection sends a request line and then one header byte every `interval` seconds,
never finishing its headers. A connection the server closes is opened again at once (as an
attacker would), so `count` of them are always open. One thread drives them all.

    ping_latency(port, token)   # seconds one fresh-connection /mcp ping takes (or raises)
"""

import json
import socket
import threading
import time
from types import TracebackType
from typing import Self

REQUEST_LINE = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()


class SlowHeaderClients:
    def __init__(self, port: int, *, count: int, interval: float = 2.0) -> None:
        self.port = port
        self.count = count
        self.interval = interval
        self.sockets: list[socket.socket | None] = []
        # What each closed connection read from the server first (b"" for a bare close).
        self.answers: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._trickle, name="slow-clients", daemon=True)

    @property
    def closed_by_server(self) -> int:
        return len(self.answers)

    def __enter__(self) -> Self:
        self.sockets = [self._connect() for _ in range(self.count)]
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        for sock in self.sockets:
            if sock is not None:
                sock.close()

    def _connect(self) -> socket.socket | None:
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            sock.sendall(REQUEST_LINE)
        except OSError:  # refused or not accepted in time: tried again on the next turn
            return None
        sock.setblocking(False)
        return sock

    def _trickle(self) -> None:
        while not self._stop.wait(self.interval):
            for index, sock in enumerate(self.sockets):
                if sock is not None and self._closed(sock):
                    sock.close()
                    sock = None
                if sock is not None:
                    try:
                        sock.send(b"a")
                        continue
                    except OSError:
                        self.answers.append(b"")
                        sock.close()
                self.sockets[index] = self._connect()

    def _closed(self, sock: socket.socket) -> bool:
        """Whether the server has closed `sock`; what it sent first is kept in `answers`."""
        received = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except BlockingIOError:
                if received:  # an answer whose close is still on its way
                    self.answers.append(received)
                    return True
                return False
            except OSError:
                self.answers.append(received)
                return True
            if not chunk:
                self.answers.append(received)
                return True
            received += chunk


def ping_latency(port: int, token: str, timeout: float = 10.0) -> float:
    """Seconds an MCP ping takes on a new connection, start to whole answer; TimeoutError
    when it takes longer than `timeout`, AssertionError on any answer but 200."""
    started = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            b"Content-Type: application/json\r\nAccept: application/json\r\n"
            + f"Authorization: Bearer {token}\r\nContent-Length: {len(PING)}\r\n\r\n".encode()
            + PING
        )
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    return time.perf_counter() - started
