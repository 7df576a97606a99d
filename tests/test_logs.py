"""The JSON log line (skillsite.logs.JsonFormatter): one object, the standard fields first, then
every `extra=` field; characters kept as they are; anything JSON has no type for as its str().

The formatter takes shortcuts (orjson for plain values, the time's text made once a second):
the line must stay the one the plain way gives, `reference_line` below, for every value."""

import enum
import json
import logging
import random
import sys
from dataclasses import dataclass
from datetime import UTC, date, datetime

import pytest

from skillsite.logs import JsonFormatter
from tests.support.access_line import ACCESS_FIELDS

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName"}


def reference_line(record: logging.LogRecord) -> str:
    """The line as the formatter wrote it before its shortcuts: every attribute walked, one
    json encoding, the time from datetime."""
    entry: dict[str, object] = {
        "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
        "level": record.levelname,
        "logger": record.name,
        "message": record.getMessage(),
    }
    for key, value in vars(record).items():
        if key not in _STANDARD and not key.startswith("_"):
            entry[key] = value
    if record.exc_info:
        entry["exception"] = logging.Formatter().formatException(record.exc_info)
    return json.dumps(entry, default=str, ensure_ascii=False)


def record_with(fields: dict[str, object], created: float | None = None) -> logging.LogRecord:
    record = logging.LogRecord("mcpapi.access", logging.INFO, __file__, 1, "%s did %s", ("ünï", "it"), None)
    record.__dict__.update(fields)
    if created is not None:
        record.created = created
    return record


class Colour(enum.Enum):
    RED = 1


class Kind(enum.StrEnum):
    TOKEN = "token"


@dataclass
class Point:
    x: int


def test_a_line_is_the_standard_fields_then_the_extras_with_characters_kept() -> None:
    record = record_with({"caller": "token:env", "status": 200, "when": date(2026, 12, 1), "none": None})
    line = JsonFormatter().format(record)
    entry = json.loads(line)
    assert list(entry) == ["time", "level", "logger", "message", "caller", "status", "when", "none"]
    assert entry["message"] == "ünï did it" and entry["when"] == "2026-12-01"
    assert '"message": "ünï did it", "caller": "token:env", "status": 200' in line


@pytest.mark.parametrize(
    "fields",
    [
        ACCESS_FIELDS,
        {**ACCESS_FIELDS, "caller": None, "status": 401, "rpc_error": -32600, "duration_ms": 12.0},
        {"text": 'ünï — 日本 😀 \u2028 \x7f \x00 "quoted" back\\slash / tab\t line\nbreak \x1f'},
        {"surrogate": "x\ud800y"},  # orjson refuses it: json writes it as an escape
        {"nested": {"a": [1, 2.5, None, "é"], "b": {}}, "empty": [], "tuple": (1, "two")},
        {
            "big": 2**63,
            "small": -(2**63) - 1,
            "edge": 2**63 - 1,
            "low": -(2**63),
            "true": True,
            "false": False,
        },
        {
            "nan": float("nan"),
            "inf": float("inf"),
            "minus_inf": -float("inf"),
            "minus_zero": -0.0,
            "zero": 0.0,
        },
        {
            "tiny": 1e-5,
            "edge_low": 1e-4,
            "under": 9.999999999999999e-05,
            "edge_high": 1e16,
            "below": 9999999999999998.0,
        },
        {"when": datetime(2026, 12, 1, 10, 0, tzinfo=UTC), "day": date(2026, 12, 1), "colour": Colour.RED},
        {"kind": Kind.TOKEN, "point": Point(3), "set": {1}, "bytes": b"raw"},
        {"_private": 1, "^caret": 2, "`backtick": 3, "_": 4, "a_b": 5, "Z": 6, "": 7},
    ],
)
def test_every_kind_of_value_gives_the_line_the_plain_way_gives(fields: dict[str, object]) -> None:
    record = record_with(fields)
    assert JsonFormatter().format(record) == reference_line(record)


def test_floats_near_the_bounds_orjson_shares_with_json_give_the_same_line() -> None:
    rng = random.Random(18)  # noqa: S311 - reproducible test values, not secrets
    values = [rng.uniform(-1, 1) * 10 ** rng.uniform(-6, 18) for _ in range(3000)]
    values += [round(rng.uniform(0, 5000), 2) for _ in range(1000)]
    values += [sys.float_info.min, sys.float_info.max, 5e-324, 1e-4, 1e16, 1e15, 0.1, 1 / 3]
    formatter = JsonFormatter()
    for value in values:
        record = record_with({"duration_ms": value})
        assert formatter.format(record) == reference_line(record), value


def test_an_exception_is_its_traceback_text() -> None:
    try:
        raise ValueError("bad ünï value")
    except ValueError:
        record = logging.LogRecord("mcpapi", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    record.__dict__.update({"status": 500})
    line = JsonFormatter().format(record)
    assert line == reference_line(record)
    assert "ValueError: bad ünï value" in json.loads(line)["exception"]


@pytest.mark.parametrize(
    "created",
    [
        1764583200.0,
        1764583200.0004994,
        1764583200.0005,
        1764583200.9994999,
        1764583200.9995,
        1764583200.9999994,
        1764583200.9999995,  # rounds to the next second's .000
        1764583200.99999999,
        1764583259.9999996,  # ... and to the next minute
        0.0,
        0.9999995,
    ],
)
def test_the_time_is_datetimes_at_the_edges_of_a_second(created: float) -> None:
    formatter = JsonFormatter()
    expected = datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")
    assert formatter.time_text(created) == expected
    assert formatter.time_text(created) == expected  # the second's text kept from the call before


def test_the_time_is_datetimes_for_a_run_of_lines() -> None:
    rng = random.Random(4)  # noqa: S311 - reproducible test values, not secrets
    formatter = JsonFormatter()
    created = 1764583200.0
    for _ in range(5000):
        created += rng.choice([0.0, 1e-7, 0.0004, 0.3, 1.0, 61.0, 3600.7])
        expected = datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")
        assert formatter.time_text(created) == expected, created
