"""The value rules both dialects of SKILL.md share (docs/reference.md#skill-format): one home
for what a description, a version, a list of tags, keywords or requirements and
required_zdr may be, whichever dialect names them.

A FieldChecker collects problems rather than raising, so that an author sees every one of
them in a single run of check_skills; each rule returns the value that passed, or None.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import semver

from catalog.strict_yaml import shown

ERROR = "error"
WARNING = "warning"

ID_PATTERN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_ID_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
# Every frontmatter list (tags, keywords, requires, allowed-tools; files: max_files_per_skill)
# and its items (docs/reference.md#limits). A YAML alias counts as each item it stands for,
# which len() on the constructed list already does: PyYAML builds an alias as the one object
# it refers to, so a bomb is refused by its count and nothing is ever expanded to be counted.
MAX_LIST_ITEMS = 64
MAX_ITEM_CHARS = 200
# What the list rule reports, whichever list: over the count (files: too_many_files), an
# item too long, a repeat (tags: duplicate_tag, files: duplicate_path).
LIST_PROBLEM_CODES = (
    "too_many_items",
    "too_many_files",
    "item_too_long",
    "duplicate_item",
    "duplicate_tag",
    "duplicate_path",
)
# The open dialect's metadata mapping: entries, key length and string value length.
MAX_METADATA_ENTRIES = 64
MAX_METADATA_VALUE_CHARS = 1024
# The frontmatter as written (catalog.frontmatter_json), aliases expanded: at most four times
# its written size plus 1 KiB, and never more than this however large the SKILL.md may be
# (4096 files of 200 characters still fit).
MAX_FRONTMATTER_COST = 1024 * 1024
# Characters str.splitlines() breaks on: a one-line name contains none of them.
LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


@dataclass(frozen=True, slots=True)
class FieldProblem:
    code: str
    message: str
    severity: str = ERROR  # ERROR or WARNING


def is_slug(value: str) -> bool:
    return len(value) <= MAX_ID_CHARS and ID_PATTERN.fullmatch(value) is not None


def parse_version(value: str) -> semver.Version | None:
    """A SemVer 2.0.0 version, or None. `1.2`, `v1.2.3` and leading zeros are not versions."""
    try:
        return semver.Version.parse(value)
    except (ValueError, TypeError):
        return None


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "mapping"
    return type(value).__name__


def duplicates(items: list[str]) -> list[str]:
    seen: set[str] = set()
    found: dict[str, None] = {}
    for item in items:
        if item in seen:
            found[item] = None
        seen.add(item)
    return list(found)


class FieldChecker:
    """The shared rules; a dialect's checker adds its own keys on top."""

    def __init__(self) -> None:
        self.problems: list[FieldProblem] = []

    def fail(self, code: str, message: str) -> None:
        self.problems.append(FieldProblem(code, message))

    def warn(self, code: str, message: str) -> None:
        self.problems.append(FieldProblem(code, message, WARNING))

    def type_error(self, key: str, expected: str, value: Any) -> None:
        self.fail("invalid_type", f"{key} must be {expected}, not a {type_name(value)}")

    def string(self, key: str, value: Any) -> str | None:
        if not isinstance(value, str):
            self.type_error(key, "a string", value)
            return None
        return value

    def skill_id(
        self, key: str, value: Any, quote: Callable[[str], str], bounds: str, *, code: str
    ) -> str | None:
        """The skill's id, a slug of at most MAX_ID_CHARS: the registry dialect's `id`, the open
        format's `name`. Each dialect quotes the value and states the length its own way; an
        overlong value is told its length."""
        if self.string(key, value) is None:
            return None
        if not is_slug(value):
            too_long = f"; it has {len(value)}" if len(value) > MAX_ID_CHARS else ""
            self.fail(
                code,
                f"{key} {quote(value)} must be lowercase letters and digits separated by single '-', "
                f"{bounds}{too_long}",
            )
            return None
        return value

    def description(self, value: Any) -> str | None:
        if self.string("description", value) is None:
            return None
        if not value.strip() or len(value) > MAX_DESCRIPTION_CHARS:
            self.fail(
                "invalid_description",
                f"description must be 1 to {MAX_DESCRIPTION_CHARS} characters (it has {len(value)})",
            )
            return None
        return value

    def version(self, value: Any, key: str = "version") -> str | None:
        if not isinstance(value, str):
            # An unquoted 1.0 is a YAML number: say how to fix it.
            self.type_error(key, 'a string such as "1.2.3"', value)
            return None
        if parse_version(value) is None:
            self.fail(
                "invalid_version", f"{key} {value!r} is not a semantic version (e.g. 1.2.3 or 1.0.0-rc.1)"
            )
            return None
        return value

    def string_list(
        self,
        key: str,
        value: Any,
        max_items: int = MAX_LIST_ITEMS,
        duplicate_code: str = "duplicate_item",
        count_code: str = "too_many_items",
        limit_name: str = "",
    ) -> list[str] | None:
        """A list of at most `max_items` distinct strings of at most MAX_ITEM_CHARS each. The
        count is checked first, so a list of a million aliases is refused without a look at
        its items."""
        if not isinstance(value, list):
            self.type_error(key, "a list of strings", value)
            return None
        if len(value) > max_items:
            limit = f"{limit_name} ({max_items})" if limit_name else str(max_items)
            self.fail(count_code, f"{key} holds {len(value)} items, more than {limit}")
            return None
        bad = [item for item in value if not isinstance(item, str)]
        if bad:
            self.fail(
                "invalid_type", f"{key} must be a list of strings; {shown(bad[0])} is a {type_name(bad[0])}"
            )
            return None
        ok = self.item_lengths(f"{key} item", value)
        for item in duplicates(value):
            self.fail(duplicate_code, f"{key} lists {shown(item)} more than once")
            ok = False
        return value if ok else None

    def item_lengths(self, what: str, items: list[str]) -> bool:
        """False, with a problem for each, when an item is over MAX_ITEM_CHARS; `what` names
        an item in the message ("keywords item", "metadata key")."""
        long = [item for item in items if len(item) > MAX_ITEM_CHARS]
        for item in long:
            self.fail(
                "item_too_long",
                f"{what} {shown(item)} has {len(item)} characters, more than {MAX_ITEM_CHARS}",
            )
        return not long

    def tags(self, value: Any) -> tuple[str, ...] | None:
        tags = self.string_list("tags", value, duplicate_code="duplicate_tag")
        if tags is None:
            return None
        ok = True
        for tag in tags:
            if not is_slug(tag):
                self.fail("invalid_tag", f"tag {shown(tag)} must be a slug like an id (e.g. 'data-export')")
                ok = False
        return tuple(tags) if ok else None

    def keywords(self, value: Any) -> tuple[str, ...] | None:
        keywords = self.string_list("keywords", value)
        if keywords is None:
            return None
        if any(not keyword.strip() for keyword in keywords):
            self.fail("invalid_keyword", "keywords must not be empty or blank")
            return None
        return tuple(keywords)

    def requires(self, value: Any) -> tuple[str, ...] | None:
        requires = self.string_list("requires", value)
        return None if requires is None else tuple(requires)

    def required_zdr(self, value: Any) -> bool | None:
        if not isinstance(value, bool):
            hint = " (remove the quotes)" if isinstance(value, str) and value in ("true", "false") else ""
            self.fail(
                "invalid_required_zdr",
                f"required_zdr must be true or false (a YAML boolean), "
                f"not the {type_name(value)} {shown(value)}{hint}",
            )
            return None
        return value
