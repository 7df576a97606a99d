"""Method name -> (params schema, handler), and the one exception-to-wire boundary.

Knows nothing of skills or MCP's meaning: a handler takes checked params and a
request context and returns a result (or raises JsonRpcError). Anything else a
handler raises is logged with its traceback and answered -32603 with a fixed
message, so no library or stack text ever reaches a client.
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcpapi.jsonrpc import (
    INTERNAL_ERROR,
    METHOD_NOT_FOUND,
    JsonRpcError,
    Message,
    encode_error,
    encode_result,
)
from mcpapi.params import validate_object

logger = logging.getLogger("mcpapi")

Handler = Callable[[dict[str, Any], Any], Any]


@dataclass(frozen=True, slots=True)
class Method:
    params_schema: dict[str, Any]
    handler: Handler


class Dispatcher:
    def __init__(self) -> None:
        self._methods: dict[str, Method] = {}

    def register(
        self, name: str, params_schema: dict[str, Any] | None = None
    ) -> Callable[[Handler], Handler]:
        def decorator(handler: Handler) -> Handler:
            self._methods[name] = Method(params_schema or {"type": "object"}, handler)
            return handler

        return decorator

    def handles(self, name: str) -> bool:
        return name in self._methods

    def reply(self, message: Message, context: Any) -> tuple[bytes, int | None]:
        """The encoded response to a request (a message with an id), and its error code if any."""
        try:
            method = self._methods.get(message.method or "")
            if method is None:
                raise JsonRpcError(METHOD_NOT_FOUND, f"Method not found: {message.method}")
            params = validate_object(message.params, method.params_schema, message.method or "")
            return encode_result(message.id, method.handler(params, context)), None
        except JsonRpcError as error:
            return encode_error(message.id, error.code, error.message, error.data), error.code
        except Exception:  # the one boundary: log everything, send nothing of it
            logger.exception("Unhandled error answering %s", message.method)
            return encode_error(message.id, INTERNAL_ERROR, "Internal error."), INTERNAL_ERROR
