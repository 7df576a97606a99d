"""JSON-RPC 2.0 envelopes: parse one incoming message, build replies, the error codes.

Knows nothing of MCP methods or skills. Every protocol error is a JsonRpcError
carrying its own short message, written here or by our handlers: library
exception text never becomes a message.
"""

import json
from dataclasses import dataclass
from typing import Any

import orjson

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002  # MCP's code for a resource the server does not have (until 2025-11-25)
# MCP 2026-07-28's codes for a request refused before any method runs (docs/reference.md#errors).
HEADER_MISMATCH = -32020  # a required header is missing or malformed, or disagrees with the body
UNSUPPORTED_PROTOCOL_VERSION = -32022  # data: {"supported": [...], "requested": "..."}

RequestId = str | int


class JsonRpcError(Exception):
    """A JSON-RPC error reply: `code`, `message` (ours, safe to send) and optional `data`."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class InvalidParams(JsonRpcError):
    def __init__(self, message: str, data: Any = None) -> None:
        super().__init__(INVALID_PARAMS, message, data)


class MalformedMessage(JsonRpcError):
    """The body is not one well-formed JSON-RPC message (found before any method runs)."""

    def __init__(self, code: int, message: str, request_id: RequestId | None = None) -> None:
        super().__init__(code, message)
        self.request_id = request_id


@dataclass(frozen=True, slots=True)
class Message:
    """One parsed message. A request has an id; a notification has none; a response
    (a client answering us, which never happens with this server) has no method."""

    method: str | None
    params: dict[str, Any]
    id: RequestId | None
    is_notification: bool
    is_response: bool


class RawJson(str):
    """A result already serialised (e.g. the tool list, built once per process)."""


@dataclass(slots=True)
class Utf8Json:
    """A result already serialised as UTF-8 (a tool result, spliced from encoded parts by
    mcpapi.wire): its bytes are put in any envelope as they are. It holds them rather than
    being bytes: a bytes subclass copies what it is made of, after zeroing its own, which for a
    40 KB search page was 90,000 instructions (docs/benchmarks.md, "The page of a cold search,
    session 6")."""

    data: bytes


def parse_message(body: bytes) -> Message:
    """Parse one JSON-RPC message, or raise MalformedMessage (-32700 / -32600 / -32602)."""
    try:
        data = loads(body)
    except (ValueError, RecursionError):  # bad JSON or UTF-8, an integer of 4300+ digits, deep nesting
        raise MalformedMessage(PARSE_ERROR, "Parse error: the body is not valid JSON.") from None
    if isinstance(data, list):
        raise MalformedMessage(
            INVALID_REQUEST, "Invalid request: batches are not supported; send one message."
        )
    if not isinstance(data, dict):
        raise MalformedMessage(INVALID_REQUEST, "Invalid request: the message must be a JSON object.")

    has_id = "id" in data
    request_id = data.get("id")
    if has_id and not _is_valid_id(request_id):
        raise MalformedMessage(INVALID_REQUEST, "Invalid request: id must be a string or an integer.")
    if data.get("jsonrpc") != "2.0":
        raise MalformedMessage(INVALID_REQUEST, 'Invalid request: "jsonrpc" must be "2.0".', request_id)

    if "method" not in data:
        if has_id and ("result" in data or "error" in data):
            return Message(method=None, params={}, id=request_id, is_notification=False, is_response=True)
        raise MalformedMessage(INVALID_REQUEST, "Invalid request: method is missing.", request_id)
    method = data["method"]
    if not isinstance(method, str) or not method:
        raise MalformedMessage(
            INVALID_REQUEST, "Invalid request: method must be a non-empty string.", request_id
        )

    params = data.get("params")
    if params is None or (isinstance(params, list) and not has_id):
        params = {}  # a notification is never answered, so its params are never looked at
    elif isinstance(params, list):
        raise MalformedMessage(INVALID_PARAMS, "Invalid params: params must be an object.", request_id)
    elif not isinstance(params, dict):
        raise MalformedMessage(INVALID_REQUEST, "Invalid request: params must be an object.", request_id)
    return Message(method=method, params=params, id=request_id, is_notification=not has_id, is_response=False)


# orjson reads a message in a third of json.loads' instructions, and whatever it reads, it reads
# as json does, but for an integer past 64 bits, which it reads as a float (an id of 2**64
# would stop being an integer): a body with a run of this many digits goes to json, as does
# one orjson refuses (NaN, 1e400, a lone surrogate, a BOM, UTF-16; docs/benchmarks.md "The
# floor against the ceiling, session 5" and "The floor of a cold search, session 6").
# -2**63 - 1, the first negative orjson does not hold, has 19 digits.
LONG_DIGITS = 19


def loads(body: bytes) -> Any:
    """json.loads(body): the same value, or a ValueError (or RecursionError) where it raises."""
    if not _has_long_number(body):
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            pass
    return json.loads(body)


def _has_long_number(body: bytes) -> bool:
    """Whether `body` holds LONG_DIGITS digits in a row (anywhere: in a string too)."""
    digits = body.translate(_DIGITS_AS_ZERO)
    return _ZEROS in digits


_DIGITS_AS_ZERO = bytes(48 if 48 <= byte <= 57 else 32 for byte in range(256))  # digit: "0"
_ZEROS = b"0" * LONG_DIGITS


def _is_valid_id(value: Any) -> bool:
    # bool is an int subclass in Python, but true/false are not JSON-RPC ids.
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def encode_result(request_id: RequestId | None, result: Any) -> bytes:
    if isinstance(result, (RawJson, Utf8Json)):
        return encode_utf8_result(request_id, result_utf8(result))
    return _dumps({"jsonrpc": "2.0", "id": request_id, "result": result})


def result_utf8(result: Any) -> bytes:
    """A result's JSON as UTF-8, as encode_utf8_result puts it in any envelope."""
    if isinstance(result, Utf8Json):
        return result.data
    return json_utf8(result) if isinstance(result, RawJson) else _dumps(result)


def encode_utf8_result(request_id: RequestId | None, result: bytes) -> bytes:
    """The reply to `request_id` around a result already encoded (result_utf8): the same bytes
    as encode_result gives for the result itself."""
    return b'{"jsonrpc":"2.0","id":%s,"result":%s}' % (id_utf8(request_id), result)


def id_utf8(request_id: RequestId | None) -> bytes:
    """`request_id` as _dumps writes it, without json's encoder for one value (a sixth of the
    cost on a warm call, docs/benchmarks.md "Warm calls, session 5"): an integer as its digits,
    a string as string_text writes it (orjson, or json for a lone surrogate)."""
    if type(request_id) is int:
        return b"%d" % request_id
    if type(request_id) is str:
        try:
            return orjson.dumps(request_id)
        except TypeError:
            pass
    return _dumps(request_id)


def encode_error(request_id: RequestId | None, code: int, message: str, data: Any = None) -> bytes:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return _dumps({"jsonrpc": "2.0", "id": request_id, "error": error})


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def dumps_text(value: Any) -> str:
    """Compact JSON text, UTF-8 characters kept as they are (one encoder, made once)."""
    return _ENCODER.encode(value)


def string_text(text: str) -> str:
    """`text` as a JSON string: the very characters dumps_text gives (orjson escapes what json
    does, and nothing else: tests/mcpapi/test_wire.py checks every code point), in under half
    the time for a page of text (docs/benchmarks.md#encode-once). orjson refuses a lone
    surrogate, which a client may send: that text goes through json."""
    try:
        return orjson.dumps(text).decode("utf-8")
    except TypeError:
        return dumps_text(text)


def _dumps(value: Any) -> bytes:
    return json_utf8(dumps_text(value))


def json_utf8(json_text: str) -> bytes:
    """JSON text as UTF-8. A client may send a lone surrogate (`"\\ud800"` is valid JSON
    syntax) that an id, a message or a result then echoes: UTF-8 cannot encode it, so it
    goes out as the same `\\udXXXX` escape. Only ever inside a string, where that is valid JSON."""
    return json_text.encode("utf-8", "backslashreplace")
