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
        entry: dict[str, object] = {
            "time": self.time_text(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        plain = True
        for key, value in record.__dict__.items():
            # Not a record's own, nor private: "_" <= key < "`" is `key.startswith("_")` in
            # two comparisons ("`" follows "_"), cheaper than a call or a slice a field.
            if key not in _STANDARD and not ("_" <= key < "`"):
                entry[key] = value
                if plain and type(value) not in _SAME_IN_ORJSON:
                    plain = _same_number(value)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
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
