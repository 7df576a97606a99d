"""What a POST to /mcp must pass before its message is parsed (docs/reference.md#http-surface).

In order: the HTTP method (405), the Origin (403), the declared size (413), the bearer
token (401/403/503), the caller's rate limit (429), Accept and Content-Type (406/415), and
a bounded read of the body (400/413). Each step raises a Refusal; nothing of the body is
read before the caller is known and within its budget.
"""

from django.conf import settings
from django.http import HttpRequest

from accounts.authentication import authenticate
from accounts.callers import Caller
from accounts.errors import AuthError
from mcpapi import refusals, throttling
from mcpapi.origin import origin_allowed
from mcpapi.outcome import JSON

_READ_CHUNK = 64 * 1024


def caller(request: HttpRequest) -> Caller:
    """Who is calling; refused if the request cannot be one of ours (screen) or its caller may
    not come in."""
    screen(request)
    try:
        return authenticate(request)
    except AuthError as error:
        raise refusals.not_let_in(error) from None


def screen(request: HttpRequest) -> None:
    """What is refused before the token is even looked at: another HTTP method, a foreign
    Origin, a declared body over the limit."""
    if request.method != "POST":
        raise refusals.method_not_allowed()
    origin = request.META.get("HTTP_ORIGIN")
    if origin is not None and not origin_allowed(origin):
        raise refusals.forbidden_origin()
    declared = _declared_length(request)
    if declared is not None and declared > settings.MCP_MAX_BODY_BYTES:
        raise refusals.too_large(settings.MCP_MAX_BODY_BYTES)


def check_budget(caller: Caller) -> None:
    """The caller's rate limit (off unless MCP_RATE_LIMIT_PER_MINUTE is set)."""
    retry_after = throttling.retry_after(caller)
    if retry_after is not None:
        raise refusals.rate_limited(settings.MCP_RATE_LIMIT_PER_MINUTE, retry_after)


def body(request: HttpRequest) -> bytes:
    """The body of a JSON POST, read at most MCP_MAX_BODY_BYTES + 1 bytes far."""
    if not _accepts_json(request.META.get("HTTP_ACCEPT")):
        raise refusals.not_acceptable()
    if not _is_json(request.META.get("CONTENT_TYPE")):
        raise refusals.unsupported_media_type()
    declared = _declared_length(request)
    if declared is None and request.META.get("CONTENT_LENGTH"):
        raise refusals.bad_content_length()
    limit = settings.MCP_MAX_BODY_BYTES
    data = _read_body(request, declared, limit)
    if data is None:
        raise refusals.too_large(limit)
    return data


class Headers:
    """The request's HTTP headers by name (case-insensitive), each read from the WSGI environ
    when asked: Django's request.headers builds all of them first, a cost on every request."""

    __slots__ = ("_meta",)

    def __init__(self, request: HttpRequest) -> None:
        self._meta = request.META

    def get(self, name: str, default: str | None = None) -> str | None:
        key = _ENVIRON_KEYS.get(name)
        if key is None:
            key = _environ_key(name)
            if len(_ENVIRON_KEYS) < _ENVIRON_KEYS_KEPT:
                _ENVIRON_KEYS[name] = key
        return self._meta.get(key, default)


# The environ key of each header name asked for (a handful, all named in code), made once.
_ENVIRON_KEYS: dict[str, str] = {}
_ENVIRON_KEYS_KEPT = 64


def _environ_key(name: str) -> str:
    return "HTTP_" + name.upper().replace("-", "_")


def _declared_length(request: HttpRequest) -> int | None:
    raw = request.META.get("CONTENT_LENGTH")
    if not raw:
        return None
    try:
        length = int(raw)
    except ValueError:
        return None
    return length if length >= 0 else None


def _read_body(request: HttpRequest, declared: int | None, limit: int) -> bytes | None:
    """The body, read at most `limit` + 1 bytes far; None when it is longer than `limit`.

    With a Content-Length, Django's stream is bounded by it. Without one (chunked
    transfer), WSGI servers that end the input themselves (wsgi.input_terminated,
    as gunicorn does) let us read the raw input up to the limit.
    """
    if declared is not None:
        return request.read(declared)
    if not request.META.get("wsgi.input_terminated"):
        return b""
    stream = request.META["wsgi.input"]
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = stream.read(min(_READ_CHUNK, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return None if size > limit else b"".join(chunks)


def _media_types(header: str) -> list[str]:
    return [part.split(";", 1)[0].strip().lower() for part in header.split(",")]


def _accepts_json(header: str | None) -> bool:
    """No Accept header, or one that admits application/json."""
    if not header:
        return True
    return any(kind in (JSON, "application/*", "*/*") for kind in _media_types(header))


def _is_json(header: str | None) -> bool:
    """No Content-Type, or application/json (parameters such as charset are ignored)."""
    return not header or _media_types(header)[0] == JSON
