"""After each answer, the part of its request's body the application never read is read and
discarded, within bounds: gunicorn's post_request hook (gunicorn.conf.py).

A request refused before its body is read (413 for a declared size over MCP_MAX_BODY_BYTES,
401 before authentication; docs/reference.md#http-surface) leaves that body on the
connection. gunicorn drains 64 KiB of it and then closes, and closing a socket with unread
bytes makes the kernel reset the connection: the client, still sending, gets a broken pipe
or a reset instead of the answer it was sent (issue 15). Read to its end here, the body
is gone, the client sends all of it and reads its answer, and the connection stays usable
(keep-alive). Past DRAIN_BYTES or DRAIN_SECONDS the drain gives up and gunicorn closes the
connection: a client may not make the server read without end.
"""

import socket
import time
from typing import Any

# Enough for a refused body several times the default limit (1 MiB).
DRAIN_BYTES = 4 * 1024 * 1024
# gunicorn's own drain deadline (gthread's worker data timeout).
DRAIN_SECONDS = 5.0
_STEP = 64 * 1024


def drain_unread_body(worker: Any, req: Any, environ: dict[str, Any], resp: Any) -> None:
    """gunicorn's post_request(worker, req, environ, resp): gunicorn's own objects, untyped."""
    body = getattr(req, "body", None)
    sock = environ.get("gunicorn.socket")
    if body is None or not isinstance(sock, socket.socket) or getattr(body, "failed", False):
        return
    if getattr(body.reader, "length", None) == 0:
        return  # read to its end (every /mcp request that was served): nothing to do
    prior = sock.gettimeout()
    try:
        drained = _drain(body, sock, time.monotonic() + DRAIN_SECONDS)
    except (OSError, ValueError):  # a timeout, a reset, a malformed chunk: close, as gunicorn would
        drained = False
    finally:
        try:
            sock.settimeout(prior)
        except OSError:
            pass
    if not drained:
        # Where the next request starts is unknown: gunicorn closes the connection, at once.
        body.failed = True


def _drain(body: Any, sock: socket.socket, deadline: float) -> bool:
    """Whether the body was read to its end within the bounds."""
    reader = body.reader
    if hasattr(reader, "length") and hasattr(reader, "unreader"):
        return _drain_length(reader, sock, deadline)
    # Chunked (or to the end of the connection): through gunicorn's own framing, each read
    # held to what is left of the deadline.
    total = 0
    while total <= DRAIN_BYTES:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        sock.settimeout(remaining)
        data = body.read(_STEP)
        if not data:
            return True
        total += len(data)
    return False


def _drain_length(reader: Any, sock: socket.socket, deadline: float) -> bool:
    """A body of known length: at most one recv() per step, each within the deadline, so that
    a client sending a byte at a time cannot stretch it."""
    total = 0
    while reader.length > 0:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or total > DRAIN_BYTES:
            return False
        sock.settimeout(remaining)
        # No size: what the unreader holds, or else one recv() of up to what is left.
        data = reader.unreader.read(None, read_ahead=reader.length)
        if not data:
            return False  # the client closed inside its body
        if len(data) > reader.length:  # the next request, pipelined: give it back
            reader.unreader.unread(data[reader.length :])
            data = data[: reader.length]
        reader.length -= len(data)
        total += len(data)
    return True
