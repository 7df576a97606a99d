"""The registry dialect of SKILL.md: a frontmatter with `schema_version`
(docs/reference.md#skill-format).

Strict on purpose: an unknown key is an error, because a silently ignored typo
(`required_zrd: true`) would publish a ZDR skill to everyone.
"""

import difflib
from collections.abc import Callable, Mapping
from typing import Any

from catalog.fields import LINE_BREAKS, MAX_ID_CHARS
from catalog.paths import path_problem
from catalog.strict_yaml import shown
from catalog.version_field import VersionField

SKILL_MD = "SKILL.md"
MAX_NAME_CHARS = 100
SUPPORTED_SCHEMA_VERSION = 1

REQUIRED_KEYS = ("schema_version", "id", "name", "description", "version")
OPTIONAL_DEFAULTS: Mapping[str, Any] = {
    "tags": (),
    "keywords": (),
    "requires": (),
    "files": (),
    "required_zdr": False,
}
KNOWN_KEYS = REQUIRED_KEYS + tuple(OPTIONAL_DEFAULTS)


class RegistryChecker(VersionField):
    """The key and type rules; `check` returns the values that passed. `files` holds at
    most `max_files` paths (the config's max_files_per_skill)."""

    def __init__(self, max_files: int) -> None:
        super().__init__()
        self.max_files = max_files

    def check(self, data: dict[Any, Any]) -> dict[str, Any]:
        for key in data:
            if key not in KNOWN_KEYS:
                self.fail("unknown_key", _unknown_key_message(key))
        for key in REQUIRED_KEYS:
            if key not in data:
                self.fail("missing_key", f"missing required key {key!r}")
        rules: dict[str, Callable[[Any], Any]] = {
            "schema_version": self._schema_version,
            "id": self._id,
            "name": self._name,
            "description": self.description,
            "version": self.version,
            "tags": self.tags,
            "keywords": self.keywords,
            "requires": self.requires,
            "files": self._files,
            "required_zdr": self.required_zdr,
        }
        valid: dict[str, Any] = {}
        for key in KNOWN_KEYS:
            if key in data:
                value = rules[key](data[key])
                if value is not None:
                    valid[key] = value
        # An absent optional key is its default; a present but invalid one is left out,
        # so a caller can tell "no files listed" from "the files list is unusable".
        for key, default in OPTIONAL_DEFAULTS.items():
            if key not in data:
                valid[key] = default
        return valid

    def _schema_version(self, value: Any) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int):
            self.type_error("schema_version", "an integer", value)
            return None
        if value != SUPPORTED_SCHEMA_VERSION:
            self.fail(
                "unsupported_schema_version",
                f"schema_version must be {SUPPORTED_SCHEMA_VERSION}, not {shown(value)}",
            )
            return None
        return value

    def _id(self, value: Any) -> str | None:
        # The value in full (repr, not shown): an id is a short string, and its length is told.
        return self.skill_id("id", value, repr, f"at most {MAX_ID_CHARS} characters", code="invalid_id")

    def _name(self, value: Any) -> str | None:
        if self.string("name", value) is None:
            return None
        if not value.strip() or len(value) > MAX_NAME_CHARS or LINE_BREAKS.intersection(value):
            self.fail("invalid_name", _name_message(value))
            return None
        return value

    def _files(self, value: Any) -> tuple[str, ...] | None:
        """Returns the well-formed paths even when some are not, so existence is still checked."""
        paths = self.string_list(
            "files",
            value,
            self.max_files,
            duplicate_code="duplicate_path",
            count_code="too_many_files",
            limit_name="max_files_per_skill",
        )
        if paths is None:
            return None
        good: list[str] = []
        for path in paths:
            why = path_problem(path)
            if why is None and path == SKILL_MD:
                why = "is SKILL.md itself; list only supporting files"
            if why is not None:
                self.fail("invalid_path", f"files entry {path!r} {why}")
            else:
                good.append(path)
        return tuple(good)


def _unknown_key_message(key: Any) -> str:
    if not isinstance(key, str):
        return f"unknown key {shown(key)} (keys are: {', '.join(KNOWN_KEYS)})"
    close = difflib.get_close_matches(key, KNOWN_KEYS, n=1, cutoff=0.6)
    if close:
        return f"unknown key {key!r}: did you mean {close[0]!r}?"
    return f"unknown key {key!r} (keys are: {', '.join(KNOWN_KEYS)})"


def _name_message(name: str) -> str:
    rule = f"name must be one line of 1 to {MAX_NAME_CHARS} characters"
    if LINE_BREAKS.intersection(name):
        return f"{rule}; it holds a line break (write it on one line)"
    if not name.strip():
        return f"{rule}; it is empty"
    return f"{rule}; it has {len(name)} (shorten it by {len(name) - MAX_NAME_CHARS})"
