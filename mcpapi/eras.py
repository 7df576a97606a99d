"""Which revision of MCP a request speaks, what its headers must say, and how that revision
words its answers (docs/reference.md#mcp-methods, docs/reference.md#http-surface).

Two eras share POST /mcp:

- legacy: the revisions a client opens with `initialize` (2025-11-25, 2025-06-18,
  2025-03-26). An MCP-Protocol-Version header, when sent, must name one of them.
- modern: revision 2026-07-28, with no handshake. Every request carries its version and
  the client's capabilities in `params._meta`, mirrors its method (and, for tools/call and
  resources/read, its name or URI) in headers, and is answered on its own.

A request is modern when its MCP-Protocol-Version header names a modern revision, or when
its `_meta` carries the modern protocol-version key (a modern client whose header went
missing is told about the header, not treated as legacy). `initialize` without the modern
header always opens the legacy era, as the revision's text says a dual-era server does.

Both eras run the same methods on the same snapshot view; this module alone knows what
each era adds to a result, how it words an error, and which HTTP status carries it.
"""

import base64
import binascii
import re
from typing import Any, Protocol

from django.conf import settings

from mcpapi import refusals, wire
from mcpapi.identity import SERVER_INFO
from mcpapi.jsonrpc import (
    HEADER_MISMATCH,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    RESOURCE_NOT_FOUND,
    UNSUPPORTED_PROTOCOL_VERSION,
    JsonRpcError,
    Message,
)
from mcpapi.refusals import Refusal

MODERN_VERSIONS = ("2026-07-28",)
# Newest first. initialize echoes a supported requested version, else answers the newest.
HANDSHAKE_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26")
# Every revision this endpoint serves, modern first: server/discover names them all, and so
# does an unsupported-version error, so a client learns it may also `initialize`.
SUPPORTED_VERSIONS = MODERN_VERSIONS + HANDSHAKE_VERSIONS

VERSION_HEADER = "MCP-Protocol-Version"
METHOD_HEADER = "Mcp-Method"
NAME_HEADER = "Mcp-Name"
PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"

# Methods whose body names what they act on, mirrored in Mcp-Name: the params key it mirrors.
_NAME_BEARING = {"tools/call": "name", "resources/read": "uri"}
_LEGACY_ONLY = frozenset({"initialize", "ping"})  # 2026-07-28 removed them
_MODERN_ONLY = frozenset({"server/discover"})
# Results a client may cache for ttlMs (2026-07-28), and those of the skills extension, which
# asks for the same hints in whichever era it is used.
_CACHEABLE = frozenset(
    {"server/discover", "tools/list", "resources/list", "resources/templates/list", "resources/read"}
)
_EXTENSION_CACHEABLE = frozenset({"skills/list", "skills/get"})

# An HTTP field value (RFC 9110): visible ASCII, spaces and tabs. Optional white space around
# it is not part of the value.
_FIELD_VALUE = re.compile(r"[\x20-\x7e\t]*")
_OWS = " \t"
_BASE64_FORM = re.compile(r"=\?base64\?(?P<payload>.*)\?=", re.DOTALL)


class Headers(Protocol):
    """A request's HTTP headers, looked up by name (case-insensitive)."""

    def get(self, name: str, default: str | None = None, /) -> str | None: ...


def cache_hints() -> wire.Fields:
    return (("ttlMs", settings.MCP_CACHE_TTL_SECONDS * 1000), ("cacheScope", "private"))


def negotiate_version(requested: str) -> str:
    """The legacy version `initialize` answers: the one asked for if served, else the newest."""
    return requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[0]


class Era:
    """How one era admits a request and words its answers (a dispatch.Dialect)."""

    name = ""

    def admit(self, message: Message, headers: Headers) -> None:
        """Raise a Refusal if `message` may not be dispatched as it stands."""

    def serves(self, method: str) -> bool:
        raise NotImplementedError

    def result(self, method: str, result: Any) -> Any:
        return result

    def error(self, error: JsonRpcError) -> JsonRpcError:
        return error

    def status(self, rpc_error: int | None) -> int:
        """The HTTP status of an answer with this JSON-RPC error code (None: a result)."""
        raise NotImplementedError


class Legacy(Era):
    name = "legacy"

    def admit(self, message: Message, headers: Headers) -> None:
        # 2025-03-26 clients send no version header; later ones must send a version we serve.
        version = _header(headers, VERSION_HEADER)
        if version is not None and version not in HANDSHAKE_VERSIONS:
            raise refusals.unsupported_version(message.id)

    def serves(self, method: str) -> bool:
        return method not in _MODERN_ONLY

    def result(self, method: str, result: Any) -> Any:
        if method in _EXTENSION_CACHEABLE:
            return wire.with_members(result, cache_hints())
        return result

    def status(self, rpc_error: int | None) -> int:
        # Unparsable JSON and non-messages are refused at the HTTP level; every other error
        # travels like a result.
        return 400 if rpc_error in (PARSE_ERROR, INVALID_REQUEST) else 200


class Modern(Era):
    name = "modern"

    def admit(self, message: Message, headers: Headers) -> None:
        """The order of the revision's own validation: params._meta (-32602), then the headers
        against the body (-32020), then the version (-32022)."""
        if message.is_notification or message.is_response:
            # The revision sets no header rules for these; only a version we do not serve is refused.
            version = _header(headers, VERSION_HEADER)
            if version is not None and version not in MODERN_VERSIONS:
                raise refusals.unsupported_protocol_version(None, version, SUPPORTED_VERSIONS)
            return
        meta = message.params.get("_meta")
        if (
            not isinstance(meta, dict)
            or not isinstance(meta.get(PROTOCOL_VERSION_KEY), str)
            or not isinstance(meta.get(CLIENT_CAPABILITIES_KEY), dict)
        ):
            raise refusals.missing_request_meta(message.id, PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY)
        requested: str = meta[PROTOCOL_VERSION_KEY]
        _check_headers(message, headers, requested)
        if requested not in MODERN_VERSIONS:
            raise refusals.unsupported_protocol_version(message.id, requested, SUPPORTED_VERSIONS)

    def serves(self, method: str) -> bool:
        return method not in _LEGACY_ONLY

    def result(self, method: str, result: Any) -> Any:
        fields: list[tuple[str, Any]] = [("resultType", "complete")]
        if method in _CACHEABLE or method in _EXTENSION_CACHEABLE:
            fields += cache_hints()
        fields.append(("_meta", {SERVER_INFO_KEY: SERVER_INFO}))
        return wire.with_members(result, fields)

    def error(self, error: JsonRpcError) -> JsonRpcError:
        if error.code == RESOURCE_NOT_FOUND:  # this revision has no code of its own for it
            return JsonRpcError(INVALID_PARAMS, error.message, error.data)
        return error

    def status(self, rpc_error: int | None) -> int:
        if rpc_error == METHOD_NOT_FOUND:
            return 404
        return 400 if rpc_error in _REFUSED_CODES else 200


# The errors the revision sends with 400 Bad Request; -32601 goes with 404, the rest with 200.
_REFUSED_CODES = frozenset(
    {PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS, HEADER_MISMATCH, UNSUPPORTED_PROTOCOL_VERSION}
)

LEGACY = Legacy()
MODERN = Modern()


def era_of(message: Message, headers: Headers) -> Era:
    if _header(headers, VERSION_HEADER) in MODERN_VERSIONS:
        return MODERN
    meta = message.params.get("_meta")
    if message.method != "initialize" and isinstance(meta, dict) and PROTOCOL_VERSION_KEY in meta:
        return MODERN
    return LEGACY


def era_of_unparsed(headers: Headers) -> Era:
    """The era of a body that is not one JSON-RPC message: only its headers can tell."""
    return MODERN if _header(headers, VERSION_HEADER) in MODERN_VERSIONS else LEGACY


def _check_headers(message: Message, headers: Headers, requested: str) -> None:
    method = message.method or ""
    for header in (VERSION_HEADER, METHOD_HEADER, NAME_HEADER):
        value = headers.get(header)
        if value is not None and not _FIELD_VALUE.fullmatch(value):
            raise _mismatch(message, f"the {header} header holds characters no header value may hold")
    version = _header(headers, VERSION_HEADER)
    if version != requested:
        raise _mismatch(message, f"the {VERSION_HEADER} header must equal the version in params._meta")
    if _header(headers, METHOD_HEADER) != method:
        raise _mismatch(message, f"the {METHOD_HEADER} header must equal the body's method")
    key = _NAME_BEARING.get(method)
    if key is None:
        return
    raw = _header(headers, NAME_HEADER)
    if raw is None:
        raise _mismatch(message, f"{method} needs an {NAME_HEADER} header equal to params.{key}")
    name = decode_header_value(raw)
    if name is None:
        raise _mismatch(message, f"the {NAME_HEADER} header holds a malformed =?base64?...?= value")
    body_value = message.params.get(key)
    # A missing or mistyped body value is the method's own -32602, answered when its params are checked.
    if isinstance(body_value, str) and name != body_value:
        raise _mismatch(message, f"the {NAME_HEADER} header must equal params.{key}")


def _mismatch(message: Message, rule: str) -> Refusal:
    return refusals.header_mismatch(message.id, f"Header mismatch: {rule}.")


def _header(headers: Headers, name: str) -> str | None:
    """A header's value without surrounding optional white space; None when absent."""
    value = headers.get(name)
    return None if value is None else value.strip(_OWS)


def decode_header_value(value: str) -> str | None:
    """A header value as the body would hold it: `=?base64?<payload>?=` is the UTF-8 text of a
    canonical base64 payload; anything else is itself. None for a malformed encoded form."""
    encoded = _BASE64_FORM.fullmatch(value)
    if encoded is None:
        return value
    payload = encoded["payload"]
    try:
        data = base64.b64decode(payload, validate=True)
    except binascii.Error:
        return None
    if base64.b64encode(data).decode("ascii") != payload:  # non-canonical: stray bits, no padding
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
