"""HTTP views, thin: /healthz, and POST /mcp (MCP Streamable HTTP, stateless, JSON replies).

A POST to /mcp goes: Origin check (403) -> declared size (413) -> authenticate
(401/403/503) -> per-caller rate limit (429) -> Accept / Content-Type (406/415) ->
bounded body read (413) -> parse one JSON-RPC message (400) -> MCP-Protocol-Version
header (400) -> notifications and responses 202 -> dispatch, with the caller's
registry view.
"""

import logging
import re
import time
import uuid
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from accounts.authentication import authenticate, challenge
from accounts.errors import AuthError
from catalog.index import active_snapshot
from mcpapi.jsonrpc import INVALID_REQUEST, METHOD_NOT_FOUND, MalformedMessage, encode_error, http_status_for
from mcpapi.jsonrpc import parse_message as parse_jsonrpc
from mcpapi.origin import origin_allowed
from mcpapi.protocol import DISCOVER_METHOD, RequestContext, dispatcher, version_header_supported
from mcpapi.registry import RegistryView
from mcpapi.throttling import refusal as rate_limit_refusal

access_log = logging.getLogger("mcpapi.access")

JSON = "application/json"
_READ_CHUNK = 64 * 1024


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    ref = active_snapshot()
    if ref is None:
        return JsonResponse({"status": "empty", "registry_sha": None, "published_at": None}, status=503)
    return JsonResponse(
        {"status": "ok", "registry_sha": ref.sha, "published_at": ref.published_at.isoformat()}
    )


@dataclass(slots=True)
class _Access:
    """What the access log line says about one request (never the token)."""

    caller: str | None = None
    rpc_method: str | None = None
    tool: str | None = None
    rpc_error: int | None = None
    registry: RegistryView | None = None


# A request id the reverse proxy may pass on (nginx: `proxy_set_header X-Request-ID
# $request_id`); anything else a client sends is replaced, so log lines stay clean.
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")


def _request_id(request: HttpRequest) -> str:
    supplied = request.META.get("HTTP_X_REQUEST_ID", "")
    return supplied if _REQUEST_ID.fullmatch(supplied) else uuid.uuid4().hex


@csrf_exempt
def mcp(request: HttpRequest) -> HttpResponse:
    started = time.perf_counter()
    request_id = _request_id(request)
    access = _Access()
    response = _serve(request, access)
    response["X-Request-ID"] = request_id
    duration_ms = round((time.perf_counter() - started) * 1000, 2)
    # The message names the caller and the duration too: a plain-text line says it all.
    access_log.info(
        "%s %s %s %s %s %.2fms",
        request_id,
        access.caller or "-",
        access.rpc_method or "-",
        access.tool or "-",
        response.status_code,
        duration_ms,
        extra={
            "request_id": request_id,
            "caller": access.caller,
            "rpc_method": access.rpc_method,
            "tool": access.tool,
            "status": response.status_code,
            "rpc_error": access.rpc_error,
            "duration_ms": duration_ms,
            "registry_sha": access.registry.resolved_sha if access.registry is not None else None,
        },
    )
    return response


def _serve(request: HttpRequest, access: _Access) -> HttpResponse:
    if request.method != "POST":
        response = _rpc_error(405, INVALID_REQUEST, "Method not allowed: POST one JSON-RPC message.")
        response["Allow"] = "POST"
        return response
    origin = request.META.get("HTTP_ORIGIN")
    if origin is not None and not origin_allowed(origin):
        return _rpc_error(403, INVALID_REQUEST, "Forbidden: this Origin may not call the registry.")
    limit = settings.MCP_MAX_BODY_BYTES
    declared = _declared_length(request)
    if declared is not None and declared > limit:
        return _too_large(limit)

    try:
        caller = authenticate(request)
    except AuthError as error:
        response = JsonResponse({"error": error.message}, status=error.status)
        header = challenge(error)
        if header:
            response["WWW-Authenticate"] = header
        return response
    access.caller = caller.identity
    refused = rate_limit_refusal(request, caller)
    if refused is not None:
        return refused

    if not _accepts_json(request.META.get("HTTP_ACCEPT")):
        return _rpc_error(406, INVALID_REQUEST, "Not acceptable: replies are application/json.")
    if not _is_json(request.META.get("CONTENT_TYPE")):
        return _rpc_error(415, INVALID_REQUEST, "Unsupported media type: send application/json.")
    if declared is None and request.META.get("CONTENT_LENGTH"):
        return _rpc_error(400, INVALID_REQUEST, "Bad request: invalid Content-Length.")
    body = _read_body(request, declared, limit)
    if body is None:
        return _too_large(limit)

    try:
        message = parse_jsonrpc(body)
    except MalformedMessage as error:
        access.rpc_error = error.code
        payload = encode_error(error.request_id, error.code, error.message)
        return HttpResponse(payload, status=http_status_for(error), content_type=JSON)
    access.rpc_method = _loggable(message.method)
    if message.method == "tools/call" and isinstance(message.params.get("name"), str):
        access.tool = _loggable(message.params["name"])

    if message.method == DISCOVER_METHOD and not message.is_notification:
        # Answered whatever its version header says, so the probing client falls back to initialize.
        access.rpc_error = METHOD_NOT_FOUND
        payload = encode_error(message.id, METHOD_NOT_FOUND, f"Method not found: {DISCOVER_METHOD}")
        return HttpResponse(payload, content_type=JSON)
    if not version_header_supported(request.META.get("HTTP_MCP_PROTOCOL_VERSION")):
        return _rpc_error(400, INVALID_REQUEST, "Bad request: unsupported MCP-Protocol-Version.", message.id)
    if message.is_notification or message.is_response:
        return HttpResponse(status=202)

    registry = RegistryView(caller.zdr_cleared)
    access.registry = registry
    payload, access.rpc_error = dispatcher.reply(message, RequestContext(caller=caller, registry=registry))
    return HttpResponse(payload, content_type=JSON)


_LOGGED_NAME_CHARS = 100


def _loggable(name: str | None) -> str | None:
    """A client-chosen method or tool name, as the access log may hold it: bounded, and
    escaped unless printable (no forged line breaks, no lone surrogate that a UTF-8 log
    stream could not write)."""
    if name is None:
        return None
    shown = name if name.isprintable() else repr(name)[1:-1]
    return shown[:_LOGGED_NAME_CHARS]


def _rpc_error(status: int, code: int, message: str, request_id: Any = None) -> HttpResponse:
    return HttpResponse(encode_error(request_id, code, message), status=status, content_type=JSON)


def _too_large(limit: int) -> HttpResponse:
    return _rpc_error(413, INVALID_REQUEST, f"Request body too large: at most {limit} bytes.")


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
