"""One access log line per /mcp request, written from its Outcome: who called, what, how it
ended and from which snapshot; never the token. Other paths (/healthz) write theirs in the
same logger, naming the path where /mcp lines name the method."""

import logging
import os
import re
from collections.abc import Callable

from django.http import HttpRequest

from accounts.callers import Caller
from mcpapi.outcome import Outcome
from skillsite.logs import direct_handler, write_direct

logger = logging.getLogger("mcpapi.access")

# A request id the reverse proxy may pass on (nginx: `proxy_set_header X-Request-ID
# $request_id`); anything else a client sends is replaced, so log lines stay clean.
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
_LOGGED_NAME_CHARS = 100
# A fresh id is `uuid.uuid4().hex`: 128 random bits but the version (4) and the variant
# (RFC 4122), set as uuid.UUID sets them, without making a UUID object on every request.
_UUID4_CLEAR = ~((0xF000 << 64) | (0xC000 << 48))
_UUID4_SET = (4 << 76) | (0x8000 << 48)


def request_id(request: HttpRequest) -> str:
    supplied = request.META.get("HTTP_X_REQUEST_ID", "")
    return supplied if _REQUEST_ID.fullmatch(supplied) else fresh_id()


def fresh_id() -> str:
    """What `uuid.uuid4().hex` gives: 32 lower-case hex digits of a random version-4 UUID."""
    return "%032x" % (int.from_bytes(os.urandom(16), "big") & _UUID4_CLEAR | _UUID4_SET)


def write(request_id: str, caller: Caller | None, outcome: Outcome, duration_ms: float) -> None:
    if not logger.isEnabledFor(logging.INFO):
        return
    identity = caller.identity if caller is not None else None
    rpc_method, tool = _loggable(outcome.rpc_method), _loggable(outcome.tool)
    # The message names the caller and the duration too: a plain-text line says it all.
    _info(
        write,
        "%s %s %s %s %s %.2fms",
        (request_id, identity or "-", rpc_method or "-", tool or "-", outcome.status, duration_ms),
        {
            "request_id": request_id,
            "caller": identity,
            "rpc_method": rpc_method,
            "tool": tool,
            "status": outcome.status,
            "rpc_error": outcome.rpc_error,
            "duration_ms": duration_ms,
            "registry_sha": outcome.registry_sha,
            "era": outcome.era,
        },
    )


def write_page(request_id: str, path: str, status: int, duration_ms: float) -> None:
    """The line of an answer outside /mcp: no caller, no method; the path instead."""
    if not logger.isEnabledFor(logging.INFO):
        return
    _info(
        write_page,
        "%s - %s - %s %.2fms",
        (request_id, path, status, duration_ms),
        {"request_id": request_id, "path": path, "status": status, "duration_ms": duration_ms},
    )


def _info(
    site: Callable[..., None], message: str, args: tuple[object, ...], fields: dict[str, object]
) -> None:
    """`logger.info(message, *args, extra=fields)` from `site`, without the stack walk and
    checks `Logger.info` spends on every line (docs/benchmarks.md, "The floor, session 4"):
    the record names `site`'s file, first line and name where the walk would find them, and
    goes through the logger's filters, handlers and levels as any other record does. The
    caller has checked the level; the fields are ours and never clash with a record's own.

    With the registry's default configuration (skillsite.logs.direct_handler: one JSON
    stream handler, no filter, the standard record factory) the line is written straight to
    the handler's stream, byte for byte the record's, without the record (docs/benchmarks.md,
    "The floor against the ceiling, session 5")."""

    def record() -> logging.LogRecord:
        code = site.__code__
        made = logging.getLogRecordFactory()(
            logger.name,
            logging.INFO,
            code.co_filename,
            code.co_firstlineno,
            message,
            args,
            None,
            code.co_name,
        )
        made.__dict__.update(fields)
        return made

    handler = direct_handler(logger)
    if handler is None:
        logger.handle(record())
    else:
        write_direct(handler, logger.name, record, message % args, fields)


def _loggable(name: str | None) -> str | None:
    """A client-chosen method or tool name, as the access log may hold it: bounded, and
    escaped unless printable (no forged line breaks, no lone surrogate that a UTF-8 log
    stream could not write)."""
    if name is None:
        return None
    shown = name if name.isprintable() else repr(name)[1:-1]
    return shown[:_LOGGED_NAME_CHARS]
