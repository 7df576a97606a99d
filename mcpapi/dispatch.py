"""Method name -> (params schema, handler), and the one exception-to-wire boundary.

Knows nothing of skills or MCP's meaning: a handler takes checked params and a
request context and returns a result (or raises JsonRpcError). A caller may pass a
`memo_key`: a result it names by a key is encoded once, kept in an AnswerCache and served
again for the same key (what the key holds, and which results qualify, is the caller's);
errors are raised, so they are never kept. The context is made
by the caller's `context_for(method)`, inside the boundary, so whatever it reads for a
request fails like a handler does. Which methods a request may call, and how its results
and errors are worded, is the caller's Dialect (one per protocol revision). Anything else a
handler raises is logged with its traceback and answered -32603 with a fixed message, so no
library or stack text ever reaches a client.
"""

import logging
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from mcpapi.answer_cache import AnswerCache
from mcpapi.jsonrpc import (
    INTERNAL_ERROR,
    METHOD_NOT_FOUND,
    InvalidParams,
    JsonRpcError,
    Message,
    encode_error,
    encode_result,
    encode_utf8_result,
    result_utf8,
)
from mcpapi.params import ArgumentError, validate_object

logger = logging.getLogger("mcpapi")

C = TypeVar("C")
Handler = Callable[[dict[str, Any], Any], Any]
# The key a request's result is kept under, from its method, checked params and context; None:
# not kept.
MemoKey = Callable[[str, dict[str, Any], C], Hashable | None]


@dataclass(frozen=True, slots=True)
class Method:
    params_schema: dict[str, Any]
    handler: Handler


class Dialect(Protocol):
    """How one revision of a protocol answers: which methods it has, and the final form of
    its results and errors."""

    def serves(self, method: str) -> bool: ...

    def result(self, method: str, result: Any) -> Any: ...

    def error(self, error: JsonRpcError) -> JsonRpcError: ...


@dataclass(slots=True)  # made on every request: a frozen dataclass costs a setattr call a field
class Reply(Generic[C]):
    """The encoded response to one request, its error code if any, and the context the
    handler ran with (None when the request failed before one was made)."""

    payload: bytes
    rpc_error: int | None
    context: C | None


class Dispatcher(Generic[C]):
    def __init__(self, answers: AnswerCache | None = None) -> None:
        self._methods: dict[str, Method] = {}
        self.answers = answers

    def register(
        self, name: str, params_schema: dict[str, Any] | None = None
    ) -> Callable[[Handler], Handler]:
        def decorator(handler: Handler) -> Handler:
            self._methods[name] = Method(params_schema or {"type": "object"}, handler)
            return handler

        return decorator

    def reply(
        self,
        message: Message,
        context_for: Callable[[str], C],
        dialect: Dialect,
        memo_key: MemoKey[C] | None = None,
    ) -> Reply[C]:
        """Answer a request (a message with an id) in `dialect`; with `memo_key`, from the
        answers kept when it names one."""
        context: C | None = None
        try:
            name = message.method or ""
            method = self._methods.get(name) if dialect.serves(name) else None
            if method is None:
                raise JsonRpcError(METHOD_NOT_FOUND, f"Method not found: {message.method}")
            try:
                params = validate_object(message.params, method.params_schema, name)
            except ArgumentError as bad:
                raise InvalidParams(f"Invalid params: {bad.message}") from None
            context = context_for(name)
            key = None if memo_key is None or self.answers is None else memo_key(name, params, context)
            if key is None:
                payload = encode_result(message.id, dialect.result(name, method.handler(params, context)))
            else:
                payload = encode_utf8_result(
                    message.id, self._remembered(key, name, params, context, dialect)
                )
            return Reply(payload, None, context)
        except JsonRpcError as raised:
            worded = dialect.error(raised)
            return Reply(
                encode_error(message.id, worded.code, worded.message, worded.data), worded.code, context
            )
        except Exception:  # the one boundary: log everything, send nothing of it
            logger.exception("Unhandled error answering %s", message.method)
            return Reply(encode_error(message.id, INTERNAL_ERROR, "Internal error."), INTERNAL_ERROR, context)

    def _remembered(
        self, key: Hashable, name: str, params: dict[str, Any], context: C, dialect: Dialect
    ) -> bytes:
        """The result kept under `key`, or the method's result, encoded and kept: its JSON as
        UTF-8, so that a hit is only spliced into its envelope. Two threads missing at once both
        encode it: the same bytes, kept once."""
        assert self.answers is not None
        kept = self.answers.get(key)
        if kept is not None:
            return kept
        encoded = result_utf8(dialect.result(name, self._methods[name].handler(params, context)))
        self.answers.put(key, encoded)
        return encoded
