"""registry.config.json: load and validate into a typed, immutable object
(docs/reference.md#registryconfigjson).

The config at a commit governs that commit, so it is parsed from bytes (read
from whichever tree is being validated) and stored with each snapshot.

The file is optional and may be partial: every key it leaves out takes its value
from DEFAULTS, which the project's own registry.config.json writes out in full
(tests/catalog/test_config.py keeps the two equal). Every limit has a ceiling
(CEILINGS) that no file can raise, so one commit can never make the service hold
or serve unbounded data. Whatever the bytes, parsing ends in a RegistryConfig or a
ConfigError naming the key: the input is bounded in size, nesting and digits
before the JSON parser sees it.
"""

import dataclasses
import difflib
import json
import re
from dataclasses import asdict, dataclass
from typing import Any

CONFIG_FILENAME = "registry.config.json"
# The config is a small file: reading more than this is refused before parsing.
MAX_CONFIG_BYTES = 64 * 1024
SUPPORTED_SCHEMA_VERSIONS = (1,)
# A valid config nests two levels deep; the JSON parser recurses once per level, so a
# deeper document is refused before it is parsed.
MAX_NESTING = 16
# No integer a config holds needs more digits than this (the ceilings have at most 8);
# Python refuses to convert more than 4300 digits at all.
MAX_INTEGER_DIGITS = 20
MAX_EXTENSIONS = 64
MAX_EXTENSION_CHARS = 32
MAX_DIR_NAME_CHARS = 255  # a file name's length on common file systems
# A key is quoted in a message up to this many characters, and one message names at most
# this many problems: a hostile file gets a bounded answer.
_SHOWN_KEY_CHARS = 60
MAX_PROBLEMS_SHOWN = 20

MIB = 1024 * 1024


class ConfigError(ValueError):
    """registry.config.json is invalid; the message names every bad key."""


@dataclass(frozen=True, slots=True)
class Limits:
    max_skills: int
    max_files_per_skill: int
    max_skill_md_bytes: int
    max_file_bytes: int
    max_skill_total_bytes: int


@dataclass(frozen=True, slots=True)
class Pagination:
    default_limit: int
    max_limit: int


@dataclass(frozen=True, slots=True)
class SearchSettings:
    default_limit: int
    max_limit: int
    excerpt_chars: int


@dataclass(frozen=True, slots=True)
class RegistryConfig:
    schema_version: int
    skills_dir: str
    allowed_file_extensions: tuple[str, ...]
    allowed_script_extensions: tuple[str, ...]
    limits: Limits
    pagination: Pagination
    search: SearchSettings
    file_page_bytes: int

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["allowed_file_extensions"] = list(self.allowed_file_extensions)
        data["allowed_script_extensions"] = list(self.allowed_script_extensions)
        return data


# The built-in defaults: what a repository without registry.config.json, or a key a file
# leaves out, gets. The per-skill limits are the MCP skills extension's bounds for one skill.
DEFAULTS = RegistryConfig(
    schema_version=1,
    skills_dir="skills",
    allowed_file_extensions=(".md", ".txt"),
    allowed_script_extensions=(".sh", ".py", ".js", ".ts", ".rb"),
    limits=Limits(
        max_skills=10_000,
        max_files_per_skill=512,
        max_skill_md_bytes=256 * 1024,
        max_file_bytes=4 * MIB,
        max_skill_total_bytes=16 * MIB,
    ),
    pagination=Pagination(default_limit=20, max_limit=50),
    search=SearchSettings(default_limit=10, max_limit=25, excerpt_chars=240),
    file_page_bytes=32 * 1024,
)

# The hard ceiling of every integer setting, by dotted key (docs/reference.md#limits).
CEILINGS: dict[str, int] = {
    "limits.max_skills": 100_000,
    "limits.max_files_per_skill": 4096,
    "limits.max_skill_md_bytes": 1 * MIB,
    "limits.max_file_bytes": 16 * MIB,
    "limits.max_skill_total_bytes": 64 * MIB,
    "pagination.default_limit": 1000,
    "pagination.max_limit": 1000,
    "search.default_limit": 1000,
    "search.max_limit": 1000,
    "search.excerpt_chars": 2000,
    "file_page_bytes": 1 * MIB,
}
# The smallest meaningful value of each integer setting: a page must hold one UTF-8
# character (4 bytes); everything else counts something there must be one of.
_MINIMUMS: dict[str, int] = {"file_page_bytes": 4}

# The largest config any file can ask for: the defaults with every limit at its ceiling.
CEILING_LIMITS = Limits(
    **{key.removeprefix("limits."): value for key, value in CEILINGS.items() if key.startswith("limits.")}
)

_SECTIONS: dict[str, type[Limits] | type[Pagination] | type[SearchSettings]] = {
    "limits": Limits,
    "pagination": Pagination,
    "search": SearchSettings,
}
_TOP_FIELDS = tuple(field.name for field in dataclasses.fields(RegistryConfig))
_DEFAULT_DATA = DEFAULTS.to_dict()


def parse_config(raw: bytes) -> RegistryConfig:
    """Parse the bytes of registry.config.json, or raise ConfigError naming every problem."""
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{CONFIG_FILENAME}: larger than {MAX_CONFIG_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{CONFIG_FILENAME}: not UTF-8 text") from None
    too_deep = _nesting_beyond(text, MAX_NESTING)
    if too_deep is not None:
        raise ConfigError(f"{CONFIG_FILENAME}: {too_deep} nests deeper than {MAX_NESTING} levels")
    try:
        data = json.loads(text, parse_int=_bounded_int, object_pairs_hook=_JsonObject.from_pairs)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise ConfigError(f"{CONFIG_FILENAME}: invalid JSON at {where}") from None
    return config_from_dict(data)


def config_from_dict(data: Any) -> RegistryConfig:
    """The config a parsed JSON document describes, keys it leaves out taking DEFAULTS."""
    return _read(data, _Reader())


def stored_config(data: Any) -> RegistryConfig:
    """The config stored with a snapshot, read for serving: a setting above today's
    ceiling (stored when the ceilings were higher) is clamped to it rather than refused,
    so lowering a ceiling never makes a published snapshot unservable."""
    return _read(data, _Reader(clamp_to_ceilings=True))


def _read(data: Any, reader: "_Reader") -> RegistryConfig:
    config = reader.build(data)
    if reader.problems:
        shown = reader.problems[:MAX_PROBLEMS_SHOWN]
        if len(reader.problems) > len(shown):
            shown.append(f"and {len(reader.problems) - len(shown)} more")
        raise ConfigError(f"{CONFIG_FILENAME}: " + "; ".join(shown))
    assert config is not None
    return config


class _JsonObject(dict):
    """A JSON object that remembers the keys it was given more than once."""

    duplicates: tuple[str, ...] = ()

    @classmethod
    def from_pairs(cls, pairs: list[tuple[str, Any]]) -> "_JsonObject":
        obj = cls(pairs)
        if len(obj) != len(pairs):
            counts: dict[str, int] = {}
            for key, _ in pairs:
                counts[key] = counts.get(key, 0) + 1
            obj.duplicates = tuple(key for key, count in counts.items() if count > 1)
        return obj


@dataclass(frozen=True, slots=True)
class _HugeInteger:
    """An integer literal with more digits than any setting needs (never converted)."""

    digits: int


def _bounded_int(literal: str) -> int | _HugeInteger:
    digits = len(literal.lstrip("-"))
    return _HugeInteger(digits) if digits > MAX_INTEGER_DIGITS else int(literal)


_STRUCTURE = re.compile(r'["\[\]{}:]')
_STRING_REST = re.compile(r'(?:[^"\\]|\\.)*"')  # what follows a string's opening quote


def _nesting_beyond(text: str, limit: int) -> str | None:
    """Where `text` first nests deeper than `limit` containers (a dotted key such as
    'limits.x', '[]' standing for an array item), or None. One linear scan, so that
    json.loads never recurses without bound; what is not JSON is left to json.loads,
    which reads in the same order and so fails before it nests deeper than this saw."""
    names: list[str] = []  # the key of each open container, outermost first
    in_array: list[bool] = []
    last_string, key = "", ""
    position = 0
    while (found := _STRUCTURE.search(text, position)) is not None:
        char, position = found.group(), found.end()
        if char == '"':
            rest = _STRING_REST.match(text, position)
            if rest is None:
                return None  # an unterminated string: not JSON
            last_string, position = text[found.start() : rest.end()], rest.end()
        elif char == ":":
            key = _decoded_key(last_string)
        elif char in "[{":
            names.append("[]" if in_array and in_array[-1] else key)
            in_array.append(char == "[")
            key = ""
            if len(names) > limit:
                named = ".".join(name for name in names if name not in ("", "[]"))
                return _shown(named) if named else "the document"
        elif names:  # a closing bracket
            names.pop()
            in_array.pop()
            key = ""
    return None


def _decoded_key(token: str) -> str:
    try:
        value = json.loads(token)
    except ValueError:
        value = token[1:-1]
    return value if isinstance(value, str) else ""


def _shown(name: str) -> str:
    name = name if len(name) <= _SHOWN_KEY_CHARS else name[:_SHOWN_KEY_CHARS] + "..."
    return repr(name)


class _Reader:
    """Collects every problem rather than stopping at the first."""

    def __init__(self, clamp_to_ceilings: bool = False) -> None:
        self.problems: list[str] = []
        self.clamp_to_ceilings = clamp_to_ceilings

    def build(self, data: Any) -> RegistryConfig | None:
        if not isinstance(data, dict):
            self.problems.append("must be a JSON object")
            return None
        self._check_keys(data, _TOP_FIELDS, "")
        schema_version = self._int(data, "schema_version")
        if schema_version is not None and schema_version not in SUPPORTED_SCHEMA_VERSIONS:
            self.problems.append(f"schema_version {schema_version} is not supported (supported: 1)")
        skills_dir = self._skills_dir(data)
        file_exts = self._extensions(data, "allowed_file_extensions")
        script_exts = self._extensions(data, "allowed_script_extensions")
        sections = {name: self._section(data, name, kind) for name, kind in _SECTIONS.items()}
        file_page_bytes = self._int(data, "file_page_bytes")
        for name in ("pagination", "search"):
            self._default_within_max(data, name, sections[name])
        if self.problems:
            return None
        return RegistryConfig(
            schema_version=schema_version,  # type: ignore[arg-type]
            skills_dir=skills_dir,  # type: ignore[arg-type]
            allowed_file_extensions=file_exts,  # type: ignore[arg-type]
            allowed_script_extensions=script_exts,  # type: ignore[arg-type]
            limits=sections["limits"],
            pagination=sections["pagination"],
            search=sections["search"],
            file_page_bytes=file_page_bytes,  # type: ignore[arg-type]
        )

    def _check_keys(self, data: dict, known: tuple[str, ...], where: str) -> None:
        for key in getattr(data, "duplicates", ()):
            self.problems.append(f"{_shown(where + key)} is given more than once")
        for key in data:
            if key in known:
                continue
            # A misspelt key would otherwise leave its setting at the default without a word.
            close = difflib.get_close_matches(key, known, n=1)
            hint = f"did you mean {where + close[0]!r}?" if close else f"known: {', '.join(known)}"
            self.problems.append(f"unknown key {_shown(where + key)} ({hint})")

    def _int(self, data: dict, key: str, where: str = "") -> int | None:
        name = where + key
        if key not in data:
            return _default(name)
        value = data[key]
        if isinstance(value, _HugeInteger):
            self.problems.append(f"{name} is an integer of {value.digits} digits, far above any limit")
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.problems.append(f"{name} must be an integer")
            return None
        minimum = _MINIMUMS.get(name, 1)
        if value < minimum:
            self.problems.append(f"{name} must be at least {minimum}")
            return None
        ceiling = CEILINGS.get(name)
        if ceiling is not None and value > ceiling and self.clamp_to_ceilings:
            return ceiling
        if ceiling is not None and value > ceiling:
            self.problems.append(f"{name} is {value}, above its ceiling of {ceiling}")
            return None
        return value

    def _skills_dir(self, data: dict) -> str | None:
        if "skills_dir" not in data:
            return DEFAULTS.skills_dir
        value = data["skills_dir"]
        if not isinstance(value, str) or not value or len(value) > MAX_DIR_NAME_CHARS:
            self.problems.append(
                f"skills_dir must be a non-empty string of at most {MAX_DIR_NAME_CHARS} characters"
            )
            return None
        if not _is_plain_dir_name(value):
            self.problems.append("skills_dir must be a single directory name (no '/', '.', '..' or '\\')")
            return None
        return value

    def _extensions(self, data: dict, key: str) -> tuple[str, ...] | None:
        if key not in data:
            return _default(key)
        value = data[key]
        if not isinstance(value, list) or not all(_is_extension(ext) for ext in value):
            self.problems.append(f'{key} must be a list of extensions such as ".md"')
            return None
        if len(value) > MAX_EXTENSIONS:
            self.problems.append(f"{key} holds {len(value)} extensions, more than {MAX_EXTENSIONS}")
            return None
        return tuple(ext.lower() for ext in value)

    def _section(
        self, data: dict, name: str, kind: type[Limits] | type[Pagination] | type[SearchSettings]
    ) -> Any:
        if name not in data:
            return getattr(DEFAULTS, name)
        section = data[name]
        if not isinstance(section, dict):
            self.problems.append(f"{name} must be an object")
            return None
        fields = tuple(field.name for field in dataclasses.fields(kind))
        self._check_keys(section, fields, f"{name}.")
        values = {field: self._int(section, field, where=f"{name}.") for field in fields}
        valid = {field: value for field, value in values.items() if value is not None}
        return kind(**valid) if len(valid) == len(values) else None

    def _default_within_max(self, data: dict, name: str, section: Any) -> None:
        if section is None or section.default_limit <= section.max_limit:
            return
        given = data.get(name, {})
        said = {
            field: f"{name}.{field} ({getattr(section, field)}{'' if field in given else ', the default'})"
            for field in ("default_limit", "max_limit")
        }
        self.problems.append(f"{said['default_limit']} must not exceed {said['max_limit']}")


def _default(dotted: str) -> Any:
    value: Any = _DEFAULT_DATA
    for part in dotted.split("."):
        value = value[part]
    return tuple(value) if isinstance(value, list) else value


def _is_extension(ext: object) -> bool:
    return (
        isinstance(ext, str)
        and 1 < len(ext) <= MAX_EXTENSION_CHARS
        and ext.startswith(".")
        and not any(ch in ext for ch in "/\\\0")
        and ext.isprintable()
    )


def _is_plain_dir_name(name: str) -> bool:
    return name not in (".", "..") and not any(ch in name for ch in "/\\\0") and name.isprintable()
