"""Slow clients against the registry reached directly, with no proxy in front (issue 15,
finding 4): one gunicorn for the module, with the production gunicorn.conf.py and its
worker (skillsite/worker.py), a short GUNICORN_HEADER_TIMEOUT to keep the tests quick.

gthread alone gives each connection a thread as soon as a byte arrives and reads its head
with no deadline: 64 connections trickling header bytes leave no thread for a ping. The
heads the worker refuses, and those gunicorn's parser refuses, are answered in JSON.
"""

import http.client
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
from tests.support.slow_clients import PING, REQUEST_LINE, SlowHeaderClients, ping_latency
from tests.support.tokens import READ_TOKEN

pytestmark = [pytest.mark.reliability, pytest.mark.e2e]

HEADER_TIMEOUT = 2


@pytest.fixture(scope="module")
def live(template_db: TemplateDatabase, tmp_path_factory: pytest.TempPathFactory) -> Iterator[GunicornServer]:
    workdir = tmp_path_factory.mktemp("slow-clients")
    with template_db.copy(workdir) as database:
        env = server_env(database, GUNICORN_HEADER_TIMEOUT=str(HEADER_TIMEOUT))
        with running_gunicorn(env, Path(workdir)) as server:
            yield server


def ping_request(*extra_headers: str) -> bytes:
    headers = "".join(f"{header}\r\n" for header in extra_headers)
    return (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + f"Authorization: Bearer {READ_TOKEN}\r\nContent-Length: {len(PING)}\r\n{headers}\r\n".encode()
        + PING
    )


def read_until_closed(sock: socket.socket, timeout: float) -> bytes:
    sock.settimeout(timeout)
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    return answer


def split_answer(answer: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, value in (line.split(":", 1) for line in lines)}
    return int(status_line.split(" ", 2)[1]), headers, body


def test_a_ping_answers_within_a_second_while_64_slow_header_connections_are_open(
    live: GunicornServer,
) -> None:
    with SlowHeaderClients(live.port, count=64, interval=1.0) as slow:
        time.sleep(1.5)
        latencies = [ping_latency(live.port, READ_TOKEN, timeout=5) for _ in range(10)]
        # Past the header deadline: the slow ones have been refused and have come back.
        time.sleep(HEADER_TIMEOUT + 1.5)
        latencies += [ping_latency(live.port, READ_TOKEN, timeout=5) for _ in range(10)]
    assert max(latencies) < 1.0, latencies
    assert slow.closed_by_server >= 64
    assert all(answer.startswith(b"HTTP/1.1 408 ") for answer in slow.answers if answer), slow.answers[:3]


def test_clients_that_never_close_after_their_answer_do_not_stall_the_server(live: GunicornServer) -> None:
    # Each asks for a close and then neither reads nor closes: the server must not wait for
    # them (gthread waits up to 2 s for each on its event loop thread, everything else stopped).
    silent: list[socket.socket] = []
    stop = threading.Event()

    def keep_opening() -> None:
        while not stop.wait(0.1):
            sock = socket.create_connection(("127.0.0.1", live.port))
            sock.sendall(ping_request("Connection: close"))
            silent.append(sock)

    opener = threading.Thread(target=keep_opening, daemon=True)
    opener.start()
    try:
        time.sleep(1)
        latencies = [ping_latency(live.port, READ_TOKEN, timeout=10) for _ in range(10)]
    finally:
        stop.set()
        opener.join(timeout=10)
        for sock in silent:
            sock.close()
    assert max(latencies) < 1.0, latencies


def test_a_head_not_complete_in_time_is_answered_408_in_json_and_the_connection_closed(
    live: GunicornServer,
) -> None:
    with socket.create_connection(("127.0.0.1", live.port)) as sock:
        started = time.monotonic()
        sock.sendall(REQUEST_LINE + b"a")
        answer = read_until_closed(sock, timeout=HEADER_TIMEOUT + 5)
        waited = time.monotonic() - started
    status, headers, body = split_answer(answer)
    assert status == 408
    assert headers["connection"] == "close"
    assert headers["content-type"] == "application/json"
    assert json.loads(body)["error"]["code"] == -32600
    # The deadline is checked once a second on the event loop; a loaded machine adds to that.
    assert HEADER_TIMEOUT - 0.1 < waited < HEADER_TIMEOUT + 3


def test_a_head_larger_than_64_kib_is_answered_431_in_json(live: GunicornServer) -> None:
    with socket.create_connection(("127.0.0.1", live.port)) as sock:
        sock.sendall(REQUEST_LINE + b"a" * 8000 + b"\r\n")
        for number in range(9):  # 9 more headers of 8 KiB: each within gunicorn's field limit
            sock.sendall(f"X-Filler-{number}: ".encode() + b"b" * 8000 + b"\r\n")
        answer = read_until_closed(sock, timeout=10)
    status, headers, body = split_answer(answer)
    assert status == 431
    assert headers["connection"] == "close"
    assert json.loads(body)["error"]["code"] == -32600


@pytest.mark.parametrize(
    "head,status",
    [
        (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n", 431),
        (b"POST /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 414),
        (b"NOT A REQUEST LINE <script>\r\nHost: 127.0.0.1\r\n\r\n", 400),
    ],
    ids=["header-over-8190-bytes", "request-line-over-8190-bytes", "malformed"],
)
def test_a_head_gunicorn_refuses_is_answered_in_json_never_html(
    live: GunicornServer, head: bytes, status: int
) -> None:
    with socket.create_connection(("127.0.0.1", live.port)) as sock:
        sock.sendall(head)
        answer = read_until_closed(sock, timeout=10)
    got, headers, body = split_answer(answer)
    assert got == status, answer[:300]
    assert headers["content-type"] == "application/json"
    assert headers["connection"] == "close"
    assert json.loads(body)["error"]["code"] == -32600
    assert b"<" not in body and b"script" not in body


def test_a_head_that_trickles_in_but_ends_within_the_deadline_is_served(live: GunicornServer) -> None:
    request = ping_request("Connection: close")
    with socket.create_connection(("127.0.0.1", live.port)) as sock:
        for start in range(0, 60, 20):
            sock.sendall(request[start : start + 20])
            time.sleep(0.3)
        sock.sendall(request[60:])
        status, _, body = split_answer(read_until_closed(sock, timeout=10))
    assert status == 200
    assert json.loads(body)["result"] == {}


def test_an_idle_connection_is_closed_after_the_deadline_without_an_answer(live: GunicornServer) -> None:
    with socket.create_connection(("127.0.0.1", live.port)) as sock:
        assert read_until_closed(sock, timeout=HEADER_TIMEOUT + 5) == b""


def test_keep_alive_serves_several_requests_on_one_connection(live: GunicornServer) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", live.port, timeout=10)
    try:
        sockets = []
        for _ in range(3):
            connection.request(
                "POST",
                "/mcp",
                body=PING,
                headers={"Authorization": f"Bearer {READ_TOKEN}", "Content-Type": "application/json"},
            )
            response = connection.getresponse()
            assert response.status == 200
            assert response.getheader("Connection") == "keep-alive"
            response.read()
            sockets.append(connection.sock)
            time.sleep(0.2)
        assert sockets[0] is not None and all(sock is sockets[0] for sock in sockets)
    finally:
        connection.close()


def test_pipelined_requests_on_one_connection_are_all_answered(live: GunicornServer) -> None:
    with socket.create_connection(("127.0.0.1", live.port)) as sock:
        sock.sendall(ping_request() + ping_request() + ping_request("Connection: close"))
        answer = read_until_closed(sock, timeout=10)
    assert answer.count(b"HTTP/1.1 200 ") == 3, answer


def test_a_header_timeout_above_its_ceiling_stops_gunicorn_at_start(
    template_db: TemplateDatabase, tmp_path: Path
) -> None:
    with template_db.copy(tmp_path) as database:
        server = GunicornServer(server_env(database, GUNICORN_HEADER_TIMEOUT="61"), log_path=tmp_path / "log")
        with pytest.raises(RuntimeError, match="GUNICORN_HEADER_TIMEOUT must be at most 60"):
            server.start(timeout=30)
