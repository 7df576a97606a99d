"""Structured log lines: one JSON object per line, with whatever `extra=` fields a caller adds.

Every /mcp request writes one (mcpapi.access_log), so the line is built with as little as
possible per record (docs/benchmarks.md, "The floor, session 4"): the time's text is made
once a second, a line of plain values (strings, numbers, None: every access line) is written
by orjson, and the record's own attributes are told from its `extra=` fields by one set
look-up each. The line is the one `datetime.isoformat` and `json.dumps` would give, byte for
byte (tests/test_logs.py).
"""

import json
import logging
import math
import time
from collections.abc import Callable
from datetime import UTC, datetime

import orjson

# Attributes every LogRecord has; anything else on a record came from `extra=`.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "taskName",
}
# Made once: json.dumps with any argument of its own builds a new encoder for every line.
_ENCODER = json.JSONEncoder(default=str, ensure_ascii=False)
# The values orjson writes as that encoder does: strings (json again for a lone surrogate,
# which orjson refuses), None, booleans, integers of 64 bits and floats between these bounds
# (below, orjson writes 0.00001 where json writes 1e-05; tests/test_logs.py compares them).
# Anything else (a nested object, a date, an Enum) goes through json, as every value did.
_SAME_IN_ORJSON = frozenset({str, bool, type(None)})
_INT_BOUNDS = (-(2**63), 2**63 - 1)
_FLOAT_BOUNDS = (1e-4, 1e16)
# orjson's two-space indentation has json's ": " between a key and its value; each item then
# starts on a line of its own, which json's ", " replaces (a string never holds a raw line break).
_ORJSON_ITEM_BREAK = b",\n  "


class JsonFormatter(logging.Formatter):
    # The second last written and its text, replaced together (one tuple) so that threads
    # sharing the formatter never pair one second with another's text.
    _second: tuple[int, str] = (-1, "")

    def format(self, record: logging.LogRecord) -> str:
        fields = {
            # Not a record's own, nor private: "_" <= key < "`" is `key.startswith("_")` in
            # two comparisons ("`" follows "_"), cheaper than a call or a slice a field.
            key: value
            for key, value in record.__dict__.items()
            if key not in _STANDARD and not ("_" <= key < "`")
        }
        exception = self.formatException(record.exc_info) if record.exc_info else None
        return self.line(
            record.created, record.levelname, record.name, record.getMessage(), fields, exception
        )

    def line(
        self,
        created: float,
        level: str,
        name: str,
        message: str,
        fields: dict[str, object],
        exception: str | None = None,
    ) -> str:
        """The line of a record made at `created` with these standard fields and `extra=` fields
        (a record's or, for write_direct, the caller's own)."""
        entry: dict[str, object] = {
            "time": self.time_text(created),
            "level": level,
            "logger": name,
            "message": message,
        }
        plain = True
        for key, value in fields.items():
            entry[key] = value
            if plain and type(value) not in _SAME_IN_ORJSON:
                plain = _same_number(value)
        if exception is not None:
            entry["exception"] = exception
        if plain:
            try:
                indented = orjson.dumps(entry, option=orjson.OPT_INDENT_2)
            except TypeError:  # a lone surrogate
                return _ENCODER.encode(entry)
            # {\n  "time": ...,\n  ...\n} -> {"time": ..., ...}
            return "{" + indented[4:-2].replace(_ORJSON_ITEM_BREAK, b", ").decode() + "}"
        return _ENCODER.encode(entry)

    def time_text(self, created: float) -> str:
        """`datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")`, the text
        of the whole second made once a second: microseconds rounded half to even as datetime
        rounds them (a fraction that rounds up to the next second is that second), then cut
        to milliseconds."""
        fraction, whole = math.modf(created)
        second = int(whole)
        microseconds = round(fraction * 1e6)
        if microseconds >= 1_000_000:
            second, microseconds = second + 1, microseconds - 1_000_000
        elif microseconds < 0:
            second, microseconds = second - 1, microseconds + 1_000_000
        kept_second, text = self._second
        if kept_second != second:
            text = datetime.fromtimestamp(second, UTC).isoformat()[:-6]  # without its "+00:00"
            self._second = (second, text)
        return f"{text}.{microseconds // 1000:03d}+00:00"


def _same_number(value: object) -> bool:
    """Whether orjson writes `value` as json does (see _SAME_IN_ORJSON)."""
    if type(value) is int:
        return _INT_BOUNDS[0] <= value <= _INT_BOUNDS[1]
    if type(value) is float:
        return value == 0.0 or _FLOAT_BOUNDS[0] <= abs(value) < _FLOAT_BOUNDS[1]
    return False


def direct_handler(logger: logging.Logger) -> logging.StreamHandler | None:
    """The one handler an INFO record of `logger` would reach, when the configuration is the
    registry's default (settings.LOGGING with LOG_FORMAT=json: no filter on the logger nor on
    the handler, no handler on the way up but the root's one StreamHandler with this
    JsonFormatter, the standard record factory), so that write_direct writes what the record
    would; else None. What Logger.handle and callHandlers look at, and nothing else: a logger
    on the way up applies no filter of its own to a record it passes on."""
    if logger.filters or logger.disabled or logging.getLogRecordFactory() is not logging.LogRecord:
        return None
    current = logger
    while current.parent is not None:
        if current.handlers or not current.propagate:
            return None
        current = current.parent
    handlers = current.handlers
    if len(handlers) != 1:
        return None
    handler = handlers[0]
    if (
        type(handler) is not logging.StreamHandler
        or handler.filters
        or handler.level > logging.INFO
        or type(handler.formatter) is not JsonFormatter
    ):
        return None
    return handler


def write_direct(
    handler: logging.StreamHandler,
    name: str,
    make_record: Callable[[], logging.LogRecord],
    message: str,
    fields: dict[str, object],
) -> None:
    """An INFO line of logger `name` written straight to `handler`'s stream (one of
    direct_handler's), byte for byte what the record would be formatted to and written as,
    without making the record (docs/benchmarks.md, "The floor against the ceiling, session 5"):
    the same lock, terminator and flush as StreamHandler.emit. An error in the write goes to
    handleError with the record `make_record` makes, as emit's does."""
    formatter = handler.formatter
    assert isinstance(formatter, JsonFormatter)  # direct_handler checked it
    try:
        line = formatter.line(time.time(), "INFO", name, message, fields)
        with handler.lock:  # type: ignore[union-attr]
            stream = handler.stream
            stream.write(line + handler.terminator)
            if stream and hasattr(stream, "flush"):  # StreamHandler.flush's own test
                stream.flush()
    except RecursionError:  # as StreamHandler.emit: see issue 36272 of CPython
        raise
    except Exception:  # noqa: BLE001 - what StreamHandler.emit catches, handled as it does
        handler.handleError(make_record())
