"""Answers of the small HTTP stand-ins the tests run on 127.0.0.1 (GitHub's, a registry's)."""

from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler


def send(
    handler: BaseHTTPRequestHandler,
    status: int,
    body: bytes,
    content_type: str,
    headers: Mapping[str, str] | None = None,
) -> None:
    """One whole answer with its Content-Length; a client that stopped reading is no error."""
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    try:
        handler.wfile.write(body)
    except OSError:
        pass  # e.g. a bounded read of a huge body
