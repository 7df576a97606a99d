"""The `version` field's messages, for both dialects (docs/reference.md#skill-format).

A first-time author writes `version: 1.0` (a YAML number), is told to quote it, writes
`"1.0"` and is refused again: both messages say what a version is (three numbers) and,
where it can be told, the value to write instead. The rule itself is FieldChecker's.
"""

import re
from typing import Any

from catalog.fields import FieldChecker, parse_version
from catalog.strict_yaml import shown

THREE_NUMBERS = "a version is three numbers MAJOR.MINOR.PATCH such as 1.0.0"
# One or two dot-separated numbers, perhaps after a "v": the three-number form is certain.
_SHORT = re.compile(r"v?(\d+)(?:\.(\d+))?(?:\.(\d+))?")


class VersionField(FieldChecker):
    def version(self, value: Any, key: str = "version") -> str | None:
        if isinstance(value, int | float) and not isinstance(value, bool):
            self.fail(
                "invalid_type",
                f"{key} {shown(value)} is a YAML number, not a version; {THREE_NUMBERS}: write three "
                f"numbers ({key}: 1.0.0, which YAML reads as text); quoting {shown(value)} is not enough",
            )
            return None
        if isinstance(value, str) and parse_version(value) is None:
            self.fail(
                "invalid_version",
                f"{key} {value!r} is not a semantic version; {THREE_NUMBERS}{_fix(key, value)}",
            )
            return None
        return super().version(value, key)


def _fix(key: str, value: str) -> str:
    short = _SHORT.fullmatch(value.strip())
    if short is None:
        return " (a pre-release such as 1.0.0-rc.1 is fine too)"
    numbers = [str(int(part)) for part in short.groups(default="0")]
    return f": write {key}: {'.'.join(numbers)}"
