"""Parse one SKILL.md: YAML frontmatter between `---` lines, then the Markdown body
(docs/reference.md#skill-format).

Strict on purpose: an unknown key, a duplicate key or a near-boolean such as `yes`
is an error, because a silently ignored typo (`required_zrd: true`) would publish
a ZDR skill to everyone. Problems are collected, not raised, so an author sees
every one of them in a single run of check_skills.
"""

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import semver
import yaml

from catalog.paths import path_problem
from catalog.strict_yaml import load_yaml, shown

SKILL_MD = "SKILL.md"
ID_PATTERN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_ID_CHARS = 64
MAX_NAME_CHARS = 100
MAX_DESCRIPTION_CHARS = 1024
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

# Characters str.splitlines() breaks on: a one-line name contains none of them.
_LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
_OPENING = re.compile(r"---\r?\n")
# The closing delimiter: a line that is exactly `---` (CRLF tolerated, as git may check
# files out that way on Windows), possibly the last line of the file.
_CLOSING = re.compile(r"^---\r?(?:\n|\Z)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class FieldProblem:
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class SkillFrontmatter:
    schema_version: int
    id: str
    name: str
    description: str
    version: str
    tags: tuple[str, ...]
    keywords: tuple[str, ...]
    requires: tuple[str, ...]
    files: tuple[str, ...]
    required_zdr: bool


@dataclass(frozen=True, slots=True)
class ParsedSkillFile:
    """What one SKILL.md says.

    `frontmatter` is set only when there is no problem at all. `valid` holds each key
    whose value passed its own rules even when others failed, so that the caller can
    still cross-check the `files` list or apply the version rule and report everything.
    """

    frontmatter: SkillFrontmatter | None
    instructions: str | None
    problems: tuple[FieldProblem, ...]
    valid: Mapping[str, Any] = field(default_factory=dict)


# --- text -------------------------------------------------------------------------------


def text_problem(raw: bytes) -> FieldProblem | None:
    """Every served file must be UTF-8 text without NUL bytes (docs/reference.md#skill-format)."""
    nul = raw.find(b"\0")
    if nul >= 0:
        return FieldProblem(
            "binary_content", f"contains a NUL byte at offset {nul}; only text files are allowed"
        )
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return FieldProblem("not_utf8", f"is not valid UTF-8 (bad byte at offset {exc.start})")
    return None


# --- parsing ----------------------------------------------------------------------------


def parse_skill_file(raw: bytes) -> ParsedSkillFile:
    """Parse the bytes of one SKILL.md. Never raises for bad content: problems are returned."""
    problem = text_problem(raw)
    if problem is not None:
        return ParsedSkillFile(None, None, (problem,))
    text = raw.decode("utf-8")

    opening = _OPENING.match(text)
    if opening is None:
        hint = " (remove the byte-order mark)" if text.startswith("\ufeff") else ""
        return ParsedSkillFile(
            None,
            None,
            (
                FieldProblem(
                    "missing_frontmatter", f"must start with a '---' line, then YAML frontmatter{hint}"
                ),
            ),
        )
    closing = _CLOSING.search(text, opening.end())
    if closing is None:
        return ParsedSkillFile(
            None, None, (FieldProblem("unterminated_frontmatter", "frontmatter has no closing '---' line"),)
        )
    front = text[opening.end() : closing.start()]
    instructions = text[closing.end() :]

    problems: list[FieldProblem] = []
    if not instructions.strip():
        problems.append(
            FieldProblem("empty_body", "the body (the instructions after the frontmatter) is empty")
        )

    try:
        data = load_yaml(front)
    except yaml.MarkedYAMLError as exc:
        problems.append(FieldProblem(*_yaml_problem(exc)))
        return ParsedSkillFile(None, instructions, tuple(problems))
    except (yaml.YAMLError, RecursionError, ValueError, OverflowError):
        # ValueError/OverflowError: a scalar YAML resolves but Python cannot build, e.g. a
        # 2001-13-45 timestamp, `!!float x` or an integer of more than 4300 digits.
        problems.append(FieldProblem("invalid_yaml", "frontmatter is not valid YAML"))
        return ParsedSkillFile(None, instructions, tuple(problems))

    if not isinstance(data, dict):
        what = "empty" if data is None else f"a {_type_name(data)}"
        problems.append(
            FieldProblem("frontmatter_not_mapping", f"frontmatter must be a YAML mapping, not {what}")
        )
        return ParsedSkillFile(None, instructions, tuple(problems))

    checker = _Checker()
    valid = checker.check(data)
    problems.extend(checker.problems)
    frontmatter = None
    if not problems:
        frontmatter = SkillFrontmatter(
            schema_version=valid["schema_version"],
            id=valid["id"],
            name=valid["name"],
            description=valid["description"],
            version=valid["version"],
            tags=valid["tags"],
            keywords=valid["keywords"],
            requires=valid["requires"],
            files=valid["files"],
            required_zdr=valid["required_zdr"],
        )
    return ParsedSkillFile(frontmatter, instructions, tuple(problems), valid)


def _yaml_problem(exc: yaml.MarkedYAMLError) -> tuple[str, str]:
    mark = exc.problem_mark or exc.context_mark
    # +2: the mark counts from 0 within the frontmatter, which starts on line 2 of SKILL.md.
    where = f" at line {mark.line + 2}" if mark is not None else ""
    what = exc.problem or exc.context or "syntax error"
    if what.startswith("duplicate key"):
        return "duplicate_key", f"frontmatter has a {what}{where}"
    return "invalid_yaml", f"frontmatter is not valid YAML{where}: {what}"


def _type_name(value: Any) -> str:
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


class _Checker:
    """The key and type rules (docs/reference.md#skill-format); `check` returns the values that passed."""

    def __init__(self) -> None:
        self.problems: list[FieldProblem] = []

    def fail(self, code: str, message: str) -> None:
        self.problems.append(FieldProblem(code, message))

    def check(self, data: dict[Any, Any]) -> dict[str, Any]:
        for key in data:
            if key not in KNOWN_KEYS:
                self.fail("unknown_key", _unknown_key_message(key))
        for key in REQUIRED_KEYS:
            if key not in data:
                self.fail("missing_key", f"missing required key {key!r}")
        valid: dict[str, Any] = {}
        for key in KNOWN_KEYS:
            if key in data:
                value = getattr(self, f"_{key}")(data[key])
                if value is not None:
                    valid[key] = value
        # An absent optional key is its default; a present but invalid one is left out,
        # so a caller can tell "no files listed" from "the files list is unusable".
        for key, default in OPTIONAL_DEFAULTS.items():
            if key not in data:
                valid[key] = default
        return valid

    def _type_error(self, key: str, expected: str, value: Any) -> None:
        self.fail("invalid_type", f"{key} must be {expected}, not a {_type_name(value)}")

    def _schema_version(self, value: Any) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int):
            self._type_error("schema_version", "an integer", value)
            return None
        if value != SUPPORTED_SCHEMA_VERSION:
            self.fail(
                "unsupported_schema_version",
                f"schema_version must be {SUPPORTED_SCHEMA_VERSION}, not {shown(value)}",
            )
            return None
        return value

    def _id(self, value: Any) -> str | None:
        if not isinstance(value, str):
            self._type_error("id", "a string", value)
            return None
        if not is_slug(value):
            self.fail(
                "invalid_id",
                f"id {value!r} must be lowercase letters and digits separated by single '-', "
                f"at most {MAX_ID_CHARS} characters",
            )
            return None
        return value

    def _name(self, value: Any) -> str | None:
        if not isinstance(value, str):
            self._type_error("name", "a string", value)
            return None
        if not value.strip() or len(value) > MAX_NAME_CHARS or _LINE_BREAKS.intersection(value):
            self.fail("invalid_name", f"name must be one line of 1 to {MAX_NAME_CHARS} characters")
            return None
        return value

    def _description(self, value: Any) -> str | None:
        if not isinstance(value, str):
            self._type_error("description", "a string", value)
            return None
        if not value.strip() or len(value) > MAX_DESCRIPTION_CHARS:
            self.fail(
                "invalid_description",
                f"description must be 1 to {MAX_DESCRIPTION_CHARS} characters (it has {len(value)})",
            )
            return None
        return value

    def _version(self, value: Any) -> str | None:
        if not isinstance(value, str):
            # An unquoted 1.0 is a YAML number: say how to fix it.
            self._type_error("version", 'a string such as "1.2.3"', value)
            return None
        if parse_version(value) is None:
            self.fail(
                "invalid_version", f"version {value!r} is not a semantic version (e.g. 1.2.3 or 1.0.0-rc.1)"
            )
            return None
        return value

    def _string_list(self, key: str, value: Any) -> list[str] | None:
        if not isinstance(value, list):
            self._type_error(key, "a list of strings", value)
            return None
        bad = [item for item in value if not isinstance(item, str)]
        if bad:
            self.fail(
                "invalid_type", f"{key} must be a list of strings; {shown(bad[0])} is a {_type_name(bad[0])}"
            )
            return None
        return value

    def _tags(self, value: Any) -> tuple[str, ...] | None:
        tags = self._string_list("tags", value)
        if tags is None:
            return None
        ok = True
        for tag in tags:
            if not is_slug(tag):
                self.fail("invalid_tag", f"tag {tag!r} must be a slug like an id (e.g. 'data-export')")
                ok = False
        for tag in _duplicates(tags):
            self.fail("duplicate_tag", f"tag {tag!r} is listed more than once")
            ok = False
        return tuple(tags) if ok else None

    def _keywords(self, value: Any) -> tuple[str, ...] | None:
        keywords = self._string_list("keywords", value)
        if keywords is None:
            return None
        if any(not keyword.strip() for keyword in keywords):
            self.fail("invalid_keyword", "keywords must not be empty or blank")
            return None
        return tuple(keywords)

    def _requires(self, value: Any) -> tuple[str, ...] | None:
        requires = self._string_list("requires", value)
        return None if requires is None else tuple(requires)

    def _files(self, value: Any) -> tuple[str, ...] | None:
        """Returns the well-formed paths even when some are not, so existence is still checked."""
        paths = self._string_list("files", value)
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
        for path in _duplicates(paths):
            self.fail("duplicate_path", f"files lists {path!r} more than once")
        return tuple(dict.fromkeys(good))

    def _required_zdr(self, value: Any) -> bool | None:
        if not isinstance(value, bool):
            hint = " (remove the quotes)" if isinstance(value, str) and value in ("true", "false") else ""
            self.fail(
                "invalid_required_zdr",
                f"required_zdr must be true or false (a YAML boolean), "
                f"not the {_type_name(value)} {shown(value)}{hint}",
            )
            return None
        return value


def _unknown_key_message(key: Any) -> str:
    if not isinstance(key, str):
        return f"unknown key {shown(key)} (keys are: {', '.join(KNOWN_KEYS)})"
    close = difflib.get_close_matches(key, KNOWN_KEYS, n=1, cutoff=0.6)
    if close:
        return f"unknown key {key!r}: did you mean {close[0]!r}?"
    return f"unknown key {key!r} (keys are: {', '.join(KNOWN_KEYS)})"


def _duplicates(items: list[str]) -> list[str]:
    seen: set[str] = set()
    dups: dict[str, None] = {}
    for item in items:
        if item in seen:
            dups[item] = None
        seen.add(item)
    return list(dups)


def is_slug(value: str) -> bool:
    return len(value) <= MAX_ID_CHARS and ID_PATTERN.fullmatch(value) is not None


def parse_version(value: str) -> semver.Version | None:
    """A SemVer 2.0.0 version, or None. `1.2`, `v1.2.3` and leading zeros are not versions."""
    try:
        return semver.Version.parse(value)
    except (ValueError, TypeError):
        return None
