"""The JSON log line (skillsite.logs.JsonFormatter): one object, the standard fields first, then
every `extra=` field; characters kept as they are; anything JSON has no type for as its str()."""

import json
import logging
from datetime import date

from skillsite.logs import JsonFormatter


def test_a_line_is_the_standard_fields_then_the_extras_with_characters_kept() -> None:
    record = logging.LogRecord("mcpapi.access", logging.INFO, __file__, 1, "%s did %s", ("ünï", "it"), None)
    record.__dict__.update({"caller": "token:env", "status": 200, "when": date(2026, 12, 1), "none": None})
    line = JsonFormatter().format(record)
    entry = json.loads(line)
    assert list(entry) == ["time", "level", "logger", "message", "caller", "status", "when", "none"]
    assert entry["message"] == "ünï did it" and entry["when"] == "2026-12-01"
    assert '"message": "ünï did it", "caller": "token:env", "status": 200' in line
