"""The registry's gunicorn worker: gthread, with no thread ever waiting on a slow client
(docs/reference.md#gunicorn-gunicornconfpy, docs/deploy.md).

gthread hands a connection to one of its few threads as soon as its first byte arrives, and
that thread then reads the request head with no deadline: a client that sends a request
line and one header byte every few seconds holds a thread for as long as it likes, and a
handful of them leave nothing for anyone else (issue 15, finding 4; docs/benchmarks.md).
Here the event loop, which waits on any number of sockets for free, reads every request
head itself:

- a head is handed to a thread only once it is complete (its empty line received);
- a head not complete within GUNICORN_HEADER_TIMEOUT seconds is answered 408, one larger
  than HEAD_LIMIT bytes 431, both with a JSON body and `Connection: close`;
- a head gunicorn's parser refuses (400, 414, 431) gets gunicorn's status with the same JSON
  body, never gunicorn's HTML page;
- a connection that closes after its answer is closed by the event loop too: the write side
  shut first, then whatever the client still sends (a refused body, say) read and discarded
  up to LINGER_BYTES for LINGER_SECONDS, so that the client reads its answer rather than a
  reset (RFC 9112 section 9.6); gthread drains 64 KiB on its event loop thread, blocking
  every other connection of the worker for up to 2 s each.

It overrides gthread's own steps (accept, enqueue_req, finish_request, murder_pending) as
gunicorn 27 has them, hence pyproject's gunicorn>=27,<28: a gunicorn upgrade must pass
tests/reliability/test_slow_clients.py.

Connections are spread over the workers by how many each holds (issue 18): every worker
waits on the one listening socket and the kernel wakes them all; whichever runs first
accepts, and a worker that just accepted is running, so a burst of connections (a load
generator's, a proxy's pool) could all land on one worker, whose GIL then holds the whole
server at one core for as long as those connections are kept alive. A worker holding as
many connections as it has threads (idle kept-alive ones too: behind a proxy they are the
busy ones a moment later) takes a new one only once it has waited accept_wait() in the
listen queue with no other worker taking it: a free worker, waiting 0, takes it first; a
worker holding more waits longer, up to ACCEPT_WAIT_MAX, so when every worker is full the
one holding fewest takes it. Slow clients reading their heads on the event loop, and
closing connections, do not count (HeadDeadlineWorker.held).

Keep-alive is unchanged: an idle kept-alive connection waits GUNICORN_KEEPALIVE seconds for
its next request, whose head then has GUNICORN_HEADER_TIMEOUT seconds. TLS and HTTP/2 with
prior knowledge (neither configured by gunicorn.conf.py) are served as gthread serves them.
"""

import errno
import selectors
import socket
import time
from functools import partial
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from gunicorn import util
from gunicorn.http2 import negotiation
from gunicorn.workers.gthread import TConn, ThreadWorker

from mcpapi.jsonrpc import INVALID_REQUEST, encode_error
from skillsite.env import env_float

HEADER_TIMEOUT_VARIABLE = "GUNICORN_HEADER_TIMEOUT"
HEADER_TIMEOUT_DEFAULT = 5.0
# A deadline a client may stretch out indefinitely is no deadline: the setting has a ceiling.
HEADER_TIMEOUT_CEILING = 60.0
HEADER_TIMEOUT_MINIMUM = 0.5
# The whole request head, request line and every header: nginx's default is 4 x 8 KiB.
HEAD_LIMIT = 64 * 1024
# Discarded from a closing connection, at most: a refused body a little over the limit
# (MCP_MAX_BODY_BYTES, 1 MiB by default) is read to its end; a larger one is cut off.
LINGER_BYTES = 4 * 1024 * 1024
LINGER_SECONDS = 5.0
_RECV_BYTES = 64 * 1024
# How long a worker holding one connection per thread leaves a new connection to the others,
# per connection held beyond that, and at most: longer than a scheduler's time slice on a busy
# machine (so that a free worker, woken with it, gets to run and take it: under a load average
# of 15 to 20 on 2 cores, 3/3/2 of wrk's 8 connections in 18 runs of 20 at 20 ms, 14 at 10 ms;
# 5 ms piled 1/5/2), short enough that a client finding every worker full barely notices.
# A connection closed meanwhile shortens the wait (wait_for_and_dispatch_events);
# a head begun longer than ACCEPT_WAIT_MAX ago is a slow client's and no longer counts.
ACCEPT_WAIT_STEP = 0.02
ACCEPT_WAIT_MAX = 0.1


def header_timeout() -> float:
    """GUNICORN_HEADER_TIMEOUT: seconds a client has to send a whole request head."""
    value = env_float(HEADER_TIMEOUT_VARIABLE, HEADER_TIMEOUT_DEFAULT, minimum=HEADER_TIMEOUT_MINIMUM)
    if value > HEADER_TIMEOUT_CEILING:
        raise ImproperlyConfigured(
            f"{HEADER_TIMEOUT_VARIABLE} must be at most {HEADER_TIMEOUT_CEILING:g}, got {value:g}"
        )
    return value


def accept_wait(held: int, threads: int) -> float:
    """Seconds a worker holding `held` connections leaves a new one in the listen queue for
    another worker before taking it: none while it has a thread per connection to spare."""
    if held < threads:
        return 0.0
    return min(ACCEPT_WAIT_MAX, ACCEPT_WAIT_STEP * (held - threads + 1))


def error_answer(status: int, reason: str, message: str) -> bytes:
    """A whole HTTP/1.1 answer that closes its connection, with the body every refusal of
    the registry has (mcpapi/refusals.py)."""
    body = encode_error(None, INVALID_REQUEST, message)
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("ascii") + body


def head_is_complete(received: bytes) -> bool:
    """The request head has ended: its empty line is in. Empty lines before the request
    line are allowed (RFC 9112 section 2.2) and are not the end of anything."""
    return b"\r\n\r\n" in received.lstrip(b"\r\n")


class _Captured:
    """Where gunicorn's handle_error writes its HTML error page: kept, so that the worker
    can send the same status with the registry's JSON body instead."""

    def __init__(self) -> None:
        self.data = b""

    def gettimeout(self) -> float:
        return 0.0

    def sendall(self, data: bytes) -> None:
        self.data += data


class _Conn(TConn):
    """A connection, and what the event loop is doing with it outside the thread pool."""

    head = b""
    deadline = 0.0
    lingered = 0
    # Set once the head went to a thread, cleared there: the next request's head is ours again.
    head_ready = False


class HeadDeadlineWorker(ThreadWorker):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timeout = header_timeout()
        # Both ordered by deadline, as each deadline is "now + a constant" when added.
        self.heads: dict[_Conn, None] = {}
        self.lingering: dict[_Conn, None] = {}
        # Since when this worker, holding a connection per thread, has left a connection in
        # the listen queue for the others; None: it is not leaving one.
        self.deferred_since: float | None = None

    def accept(self, listener: socket.socket) -> None:
        if accept_wait(self.held(), self.cfg.threads) > 0:
            # Leave it to a worker with a free thread: stop listening, look again after the wait.
            self.deferred_since = time.monotonic()
            super().set_accept_enabled(False)
            return
        self._take(listener)

    def _take(self, listener: socket.socket) -> None:
        """Accept one connection, if one is queued (the listener does not block)."""
        try:
            client, address = listener.accept()
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self.nr_conns += 1
        self.enqueue_req(_Conn(self.cfg, client, address, listener.getsockname()))

    def set_accept_enabled(self, enabled: bool) -> None:
        """gthread's loop asks for the listener whenever the worker holds fewer than
        worker_connections: not while it leaves a connection to the other workers."""
        super().set_accept_enabled(enabled and self.deferred_since is None)

    def wait_for_and_dispatch_events(self, timeout: float) -> None:
        if self.deferred_since is not None:
            timeout = max(0.0, min(timeout, self._accept_at() - time.monotonic()))
        super().wait_for_and_dispatch_events(timeout)
        # The wait is the current one: a connection closed meanwhile shortens it, to nothing
        # once the worker holds fewer connections than it has threads.
        if self.deferred_since is not None and time.monotonic() >= self._accept_at():
            self.deferred_since = None
            if self.alive and self.nr_conns < self.worker_connections:
                # Nobody else took it: take one; gthread's next turn listens again.
                for listener in self.sockets:
                    self._take(listener)

    def _accept_at(self) -> float:
        assert self.deferred_since is not None
        return self.deferred_since + accept_wait(self.held(), self.cfg.threads)

    def held(self) -> int:
        """The connections that count against accepting another: in a thread or queued for
        one, kept alive, or reading a head they began less than ACCEPT_WAIT_MAX ago. A head
        slower than that is a slow client's (the event loop waits on it for free; counting
        them would let slow clients make every worker leave new connections waiting), and
        a lingering close is over."""
        oldest = time.monotonic() + self.header_timeout - ACCEPT_WAIT_MAX
        fresh = 0
        for conn in reversed(self.heads):  # newest first: ordered by deadline
            if conn.deadline <= oldest:
                break
            fresh += 1
        return self.nr_conns - len(self.lingering) - (len(self.heads) - fresh)

    def enqueue_req(self, conn: TConn) -> None:
        """Every way a connection reaches the thread pool passes here: only a complete head goes on."""
        if not isinstance(conn, _Conn) or self._served_as_gthread(conn) or conn.head_ready:
            if isinstance(conn, _Conn):
                conn.head_ready = False
            super().enqueue_req(conn)
            return
        # Bytes a drained body read ahead of the next request are its head's beginning.
        conn.head = conn.parser.unreader.take_buffered() if conn.parser is not None else b""
        conn.deadline = time.monotonic() + self.header_timeout
        if head_is_complete(conn.head):
            self._hand_over(conn)
            return
        conn.sock.setblocking(False)
        self.heads[conn] = None
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._on_head_bytes, conn))

    def handle_error(self, req: Any, client: socket.socket, addr: Any, exc: BaseException) -> None:
        """A head gunicorn cannot parse (400, 414, 431, 501) or an error escaping the
        application (500): gunicorn's status, log line and access line, with a JSON body
        instead of gunicorn's HTML page. Nothing of the request is echoed back."""
        captured = _Captured()
        super().handle_error(req, captured, addr, exc)
        parts = captured.data.split(b"\r\n", 1)[0].split(b" ", 2)
        if len(parts) < 3 or not parts[1].isdigit():
            return
        reason = parts[2].decode("latin-1")
        try:
            util.write_nonblock(client, error_answer(int(parts[1]), reason, f"{reason}."))
        except OSError:
            self.log.debug("Failed to send error message.")

    def _served_as_gthread(self, conn: _Conn) -> bool:
        """TLS, HTTP/2 and the uwsgi protocol: bytes this worker cannot read a head from."""
        if self.cfg.is_ssl or conn.is_http2 or getattr(self.cfg, "protocol", "http") != "http":
            return True
        return not conn.initialized and negotiation.prior_knowledge_allowed(self.cfg, conn.client)

    def _on_head_bytes(self, conn: _Conn, _sock: socket.socket) -> None:
        data = _received(conn)
        if data is None:
            return
        if not data:  # the client gave up
            self._stop_reading_head(conn)
            self._close(conn)
            return
        conn.head += data
        if head_is_complete(conn.head):
            self._stop_reading_head(conn)
            self._hand_over(conn)
        elif len(conn.head) > HEAD_LIMIT:
            self._stop_reading_head(conn)
            self._refuse(
                conn,
                error_answer(
                    431,
                    "Request Header Fields Too Large",
                    f"Request head too large: at most {HEAD_LIMIT} bytes.",
                ),
            )

    def _stop_reading_head(self, conn: _Conn) -> None:
        del self.heads[conn]
        self.poller.unregister(conn.sock)

    def _hand_over(self, conn: _Conn) -> None:
        """The whole head is here: a thread parses it from memory and serves the request."""
        conn.init()  # the HTTP/1.1 parser (TLS and HTTP/2 never come this way)
        conn.parser.unreader.unread(conn.head)
        conn.head = b""
        conn.head_ready = True
        self.enqueue_req(conn)

    def murder_pending(self) -> None:
        super().murder_pending()
        now = time.monotonic()
        for conn in _expired(self.heads, now):
            self._stop_reading_head(conn)
            if conn.head.strip(b"\r\n"):
                seconds = f"{self.header_timeout:g}"
                self._refuse(
                    conn,
                    error_answer(
                        408, "Request Timeout", f"Request timeout: send the request head within {seconds} s."
                    ),
                )
            else:  # nothing asked, nothing to answer: an idle connection
                self._close(conn)
        for conn in _expired(self.lingering, now):
            del self.lingering[conn]
            self.poller.unregister(conn.sock)
            self._close(conn)

    def _refuse(self, conn: _Conn, answer: bytes) -> None:
        # One line per refusal, as gunicorn logs the heads it cannot parse ("Invalid request").
        status = answer.split(b" ", 2)[1].decode()
        client = conn.client[0] if isinstance(conn.client, tuple) else conn.client
        self.log.info("Refused a request head from ip=%s: %s", client, status)
        try:
            conn.sock.send(answer)  # a few hundred bytes, into an empty send buffer
        except OSError:
            self._close(conn)
            return
        self._linger(conn)

    def finish_request(self, conn: TConn, fs: Any) -> None:
        closing = not fs.cancelled() and fs.exception() is None and fs.result() is False
        if closing and isinstance(conn, _Conn) and not self._served_as_gthread(conn):
            self._linger(conn)
        else:
            super().finish_request(conn, fs)

    def _linger(self, conn: _Conn) -> None:
        """Close after the answer: FIN first, then read and discard what the client still
        sends until it closes too, up to LINGER_BYTES or LINGER_SECONDS."""
        try:
            conn.sock.shutdown(socket.SHUT_WR)
            conn.sock.setblocking(False)
        except OSError:
            self._close(conn)
            return
        conn.lingered = 0
        conn.deadline = time.monotonic() + LINGER_SECONDS
        self.lingering[conn] = None
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._on_linger_bytes, conn))

    def _on_linger_bytes(self, conn: _Conn, _sock: socket.socket) -> None:
        data = _received(conn)
        if data is None:
            return
        conn.lingered += len(data)
        if not data or conn.lingered > LINGER_BYTES:
            del self.lingering[conn]
            self.poller.unregister(conn.sock)
            self._close(conn)

    def _close(self, conn: _Conn) -> None:
        self.nr_conns -= 1
        conn.close()


def _received(conn: _Conn) -> bytes | None:
    """What the socket has for us: None when nothing yet (a spurious wake-up), b"" when the
    client has gone (an error counts as gone)."""
    try:
        return conn.sock.recv(_RECV_BYTES)
    except (BlockingIOError, InterruptedError):
        return None
    except OSError:
        return b""


def _expired(conns: dict[_Conn, None], now: float) -> list[_Conn]:
    expired = []
    for conn in conns:
        if conn.deadline > now:
            break
        expired.append(conn)
    return expired
