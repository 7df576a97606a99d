"""Every answer given before a message reaches a method (docs/reference.md#http-surface).

One body shape for all of them, the JSON-RPC error envelope with a null id unless the
message named one: `{"jsonrpc": "2.0", "id": null, "error": {"code", "message"[, "data"]}}`,
so a client reads any refusal the way it reads any other error. The HTTP status says what
happened; the headers RFC 6750 and RFC 9110 ask for (WWW-Authenticate, Retry-After, Allow)
go with it.
"""

from typing import Any

from accounts.authentication import challenge
from accounts.errors import AuthError, UpstreamUnavailable
from mcpapi.jsonrpc import (
    HEADER_MISMATCH,
    INVALID_PARAMS,
    INVALID_REQUEST,
    UNSUPPORTED_PROTOCOL_VERSION,
    MalformedMessage,
    RequestId,
    encode_error,
)
from mcpapi.outcome import Outcome

# JSON-RPC's range for implementation-defined server errors: this caller may not be served
# right now (over its rate limit, or the identity provider is down); retrying later may work.
TRY_LATER = -32000


class Refusal(Exception):
    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        *,
        request_id: RequestId | None = None,
        data: Any = None,
        headers: tuple[tuple[str, str], ...] = (),
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.request_id = request_id
        self.data = data
        self.headers = headers

    def outcome(
        self, *, rpc_method: str | None = None, tool: str | None = None, era: str | None = None
    ) -> Outcome:
        body = encode_error(self.request_id, self.code, self.message, self.data)
        return Outcome(self.status, body, self.headers, rpc_method, tool, rpc_error=self.code, era=era)


def method_not_allowed() -> Refusal:
    return Refusal(
        405, INVALID_REQUEST, "Method not allowed: POST one JSON-RPC message.", headers=(("Allow", "POST"),)
    )


def forbidden_origin() -> Refusal:
    return Refusal(403, INVALID_REQUEST, "Forbidden: this Origin may not call the registry.")


def too_large(limit: int) -> Refusal:
    return Refusal(413, INVALID_REQUEST, f"Request body too large: at most {limit} bytes.")


def not_let_in(error: AuthError) -> Refusal:
    """401 (no or a bad token), 403 (a login off the allowlists, or pinned to another
    GitHub account) or 503 (GitHub or the database failed; with Retry-After)."""
    header = challenge(error)
    headers: tuple[tuple[str, str], ...] = (("WWW-Authenticate", header),) if header else ()
    if error.retry_after is not None:
        headers += (("Retry-After", str(error.retry_after)),)
    return Refusal(
        error.status,
        TRY_LATER if error.status >= 500 else INVALID_REQUEST,
        error.message,
        data={"retry_after": error.retry_after} if error.retry_after is not None else None,
        headers=headers,
    )


def rate_limited(limit: int, retry_after: int) -> Refusal:
    return Refusal(
        429,
        TRY_LATER,
        f"Too many requests: at most {limit} per minute for this caller; retry after {retry_after} s.",
        data={"retry_after": retry_after},
        headers=(("Retry-After", str(retry_after)),),
    )


def unavailable() -> Refusal:
    """A dependency of the answer (the database) is down: 503, with the same hint of when to
    try again as every other 503 (UpstreamUnavailable.retry_after)."""
    retry_after = UpstreamUnavailable.retry_after
    return Refusal(
        503,
        TRY_LATER,
        "Unavailable: the registry's database cannot be reached; try again shortly.",
        data={"retry_after": retry_after},
        headers=(("Retry-After", str(retry_after)),),
    )


def not_acceptable() -> Refusal:
    return Refusal(406, INVALID_REQUEST, "Not acceptable: replies are application/json.")


def unsupported_media_type() -> Refusal:
    return Refusal(415, INVALID_REQUEST, "Unsupported media type: send application/json.")


def bad_content_length() -> Refusal:
    return Refusal(400, INVALID_REQUEST, "Bad request: invalid Content-Length.")


def malformed(error: MalformedMessage, status: int) -> Refusal:
    """A body that is not one usable JSON-RPC message, with the status its era gives that code."""
    return Refusal(status, error.code, error.message, request_id=error.request_id)


def unsupported_version(request_id: RequestId | None) -> Refusal:
    """An initialize-era request whose MCP-Protocol-Version header names no revision served."""
    return Refusal(
        400, INVALID_REQUEST, "Bad request: unsupported MCP-Protocol-Version.", request_id=request_id
    )


# The refusals of a 2026-07-28 request, in the order that revision checks them.


def missing_request_meta(request_id: RequestId | None, version_key: str, capabilities_key: str) -> Refusal:
    return Refusal(
        400,
        INVALID_PARAMS,
        f"Invalid params: params._meta must hold {version_key} (a string) and {capabilities_key} "
        "(an object) on every request of this revision.",
        request_id=request_id,
    )


def header_mismatch(request_id: RequestId | None, message: str) -> Refusal:
    return Refusal(400, HEADER_MISMATCH, message, request_id=request_id)


def unsupported_protocol_version(
    request_id: RequestId | None, requested: str, supported: tuple[str, ...]
) -> Refusal:
    return Refusal(
        400,
        UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        request_id=request_id,
        data={"supported": list(supported), "requested": requested},
    )
