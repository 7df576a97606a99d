"""A refused body always gets its answer to the client (issue 15: "a body just over 1 MiB
sometimes reaches the client as a connection reset instead of the 413").

A client that sends its whole request before reading, as many do, must be able to send it
and then read the 413 (or the 401), however the body comes: with a Content-Length,
chunked, or slowly. Before, the server read 64 KiB of a refused body and closed with the
rest unread: the kernel resets the connection, the client's next send fails with a broken
pipe or a reset, and that is all such a client reports. Raw sockets, against a real
gunicorn, many times over: how much got through before the reset was a race.
"""

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.databases import TemplateDatabase
from tests.support.e2e import server_env
from tests.support.gunicorn import GunicornServer, running_gunicorn
from tests.support.tokens import READ_TOKEN

pytestmark = pytest.mark.reliability

LIMIT = 1024 * 1024  # MCP_MAX_BODY_BYTES's default (docs/reference.md#limits)
ROUNDS = 25
PIECE = 64 * 1024


@pytest.fixture(scope="module")
def live(template_db: TemplateDatabase, tmp_path_factory: pytest.TempPathFactory) -> Iterator[GunicornServer]:
    workdir = tmp_path_factory.mktemp("refused-bodies")
    with template_db.copy(workdir) as database:
        with running_gunicorn(server_env(database), Path(workdir)) as server:
            yield server


def head(*lines: str, token: str | None = READ_TOKEN) -> bytes:
    fields = ["POST /mcp HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json", *lines]
    if token is not None:
        fields.append(f"Authorization: Bearer {token}")
    return ("\r\n".join(fields) + "\r\n\r\n").encode()


def with_length(size: int, token: str | None = READ_TOKEN) -> list[bytes]:
    return [head(f"Content-Length: {size}", token=token), *pieces(b"{" + b" " * (size - 1))]


def chunked(size: int) -> list[bytes]:
    body = b" " * size
    framed = [f"{len(piece):x}\r\n".encode() + piece + b"\r\n" for piece in pieces(body)]
    return [head("Transfer-Encoding: chunked"), *framed, b"0\r\n\r\n"]


def pieces(data: bytes) -> list[bytes]:
    return [data[start : start + PIECE] for start in range(0, len(data), PIECE)]


def answer_to(port: int, parts: list[bytes], pause: float = 0.0) -> tuple[int, dict]:
    """One request on a new connection (see exchange)."""
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
        return exchange(sock, parts, pause)


def exchange(sock: socket.socket, parts: list[bytes], pause: float = 0.0) -> tuple[int, dict]:
    """Send every part (pausing between them), then read one whole answer: what a client
    does that reads only once it has sent everything (Python's http.client, for one: a
    send that fails is the error it reports, and its caller never sees the answer). A
    BrokenPipeError or ConnectionResetError here is the bug."""
    for part in parts:
        sock.sendall(part)
        if pause:
            time.sleep(pause)
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = sock.recv(65536)
        assert chunk, f"the connection closed before a whole answer: {received[:200]!r}"
        received += chunk
    raw_head, _, body = received.partition(b"\r\n\r\n")
    lines = raw_head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    while len(body) < int(headers["Content-Length"]):
        chunk = sock.recv(65536)
        assert chunk, "the connection closed inside the answer's body"
        body += chunk
    return int(lines[0].split(" ")[1]), json.loads(body)


SHAPES = {
    "content-length": lambda: with_length(LIMIT + 1),
    "chunked": lambda: chunked(LIMIT + 1),
    "far-over-the-limit": lambda: with_length(3 * LIMIT),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_a_body_over_the_limit_always_reads_as_413(live: GunicornServer, shape: str) -> None:
    for _ in range(ROUNDS):
        status, body = answer_to(live.port, SHAPES[shape]())
        assert status == 413
        assert body["error"]["code"] == -32600


def test_a_body_over_the_limit_sent_slowly_reads_as_413(live: GunicornServer) -> None:
    for _ in range(5):
        status, _ = answer_to(live.port, with_length(LIMIT + 1), pause=0.01)
        assert status == 413


def test_many_clients_at_once_each_read_their_413(live: GunicornServer) -> None:
    outcomes: list[int | str] = []

    def client() -> None:
        try:
            outcomes.append(answer_to(live.port, with_length(LIMIT + 1))[0])
        except (OSError, AssertionError) as error:
            outcomes.append(repr(error))

    threads = [threading.Thread(target=client) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert outcomes == [413] * 8


def test_an_unauthenticated_body_reads_as_401_not_a_reset(live: GunicornServer) -> None:
    """Refused before its body is read, for another reason: the same rule."""
    for _ in range(ROUNDS):
        status, body = answer_to(live.port, with_length(LIMIT, token=None))
        assert status == 401, body


def test_the_connection_stays_usable_after_a_refused_body(live: GunicornServer) -> None:
    """The refused body was read to its end, so the next request on the connection is served."""
    ping = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}).encode()
    with socket.create_connection(("127.0.0.1", live.port), timeout=15) as sock:
        assert exchange(sock, with_length(LIMIT + 1))[0] == 413
        status, body = exchange(sock, [head(f"Content-Length: {len(ping)}") + ping])
    assert (status, body["result"]) == (200, {})


def test_a_client_trickling_its_refused_body_is_let_go_at_the_drain_deadline(live: GunicornServer) -> None:
    """The drain is bounded in time however the body comes: a byte every 0.2 s does not
    stretch it (DRAIN_SECONDS, 5 s), and the server then closes the connection."""
    with socket.create_connection(("127.0.0.1", live.port), timeout=15) as sock:
        sock.sendall(head(f"Content-Length: {50 * LIMIT}"))
        assert exchange(sock, [])[0] == 413
        started = time.monotonic()
        sock.settimeout(0.2)
        closed = False
        while not closed and time.monotonic() - started < 12:
            try:
                sock.send(b" ")
                closed = sock.recv(1) == b""
            except TimeoutError:
                continue
            except OSError:  # reset: closed too
                closed = True
        assert closed
        assert time.monotonic() - started < 8
