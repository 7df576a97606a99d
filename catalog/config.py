"""registry.config.json: load and validate into a typed, immutable object
(docs/reference.md#registryconfigjson).

The config at a commit governs that commit, so it is parsed from bytes (read
from whichever tree is being validated) and stored with each snapshot.
"""

import json
from dataclasses import asdict, dataclass
from typing import Any

CONFIG_FILENAME = "registry.config.json"
# The config is a small file: reading more than this is refused before parsing.
MAX_CONFIG_BYTES = 64 * 1024
SUPPORTED_SCHEMA_VERSIONS = (1,)


class ConfigError(ValueError):
    """registry.config.json is missing or invalid; the message names every bad key."""


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


def parse_config(raw: bytes) -> RegistryConfig:
    """Parse the bytes of registry.config.json, or raise ConfigError naming every problem."""
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{CONFIG_FILENAME}: larger than {MAX_CONFIG_BYTES} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{CONFIG_FILENAME}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise ConfigError(f"{CONFIG_FILENAME}: invalid JSON at {where}") from None
    return config_from_dict(data)


def config_from_dict(data: Any) -> RegistryConfig:
    reader = _Reader()
    config = reader.build(data)
    if reader.problems:
        raise ConfigError(f"{CONFIG_FILENAME}: " + "; ".join(reader.problems))
    assert config is not None
    return config


class _Reader:
    """Collects every problem rather than stopping at the first."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def build(self, data: Any) -> RegistryConfig | None:
        if not isinstance(data, dict):
            self.problems.append("must be a JSON object")
            return None
        schema_version = self._int(data, "schema_version", minimum=1)
        if schema_version is not None and schema_version not in SUPPORTED_SCHEMA_VERSIONS:
            self.problems.append(f"schema_version {schema_version} is not supported (supported: 1)")
        skills_dir = self._str(data, "skills_dir")
        if skills_dir is not None and not _is_plain_dir_name(skills_dir):
            self.problems.append("skills_dir must be a single directory name (no '/', '.', '..' or '\\')")
        file_exts = self._extensions(data, "allowed_file_extensions")
        script_exts = self._extensions(data, "allowed_script_extensions")
        limits = self._section(
            data,
            "limits",
            (
                "max_skills",
                "max_files_per_skill",
                "max_skill_md_bytes",
                "max_file_bytes",
                "max_skill_total_bytes",
            ),
        )
        pagination = self._section(data, "pagination", ("default_limit", "max_limit"))
        search = self._section(data, "search", ("default_limit", "max_limit", "excerpt_chars"))
        file_page_bytes = self._int(data, "file_page_bytes", minimum=4)
        for name, section in (("pagination", pagination), ("search", search)):
            if section and section["default_limit"] > section["max_limit"]:
                self.problems.append(f"{name}.default_limit must not exceed {name}.max_limit")
        if self.problems:
            return None
        assert limits and pagination and search
        return RegistryConfig(
            schema_version=schema_version,  # type: ignore[arg-type]
            skills_dir=skills_dir,  # type: ignore[arg-type]
            allowed_file_extensions=file_exts,  # type: ignore[arg-type]
            allowed_script_extensions=script_exts,  # type: ignore[arg-type]
            limits=Limits(**limits),
            pagination=Pagination(**pagination),
            search=SearchSettings(**search),
            file_page_bytes=file_page_bytes,  # type: ignore[arg-type]
        )

    def _int(self, data: dict, key: str, *, minimum: int, where: str = "") -> int | None:
        name = f"{where}{key}"
        if key not in data:
            self.problems.append(f"missing key {name!r}")
            return None
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int):
            self.problems.append(f"{name} must be an integer")
            return None
        if value < minimum:
            self.problems.append(f"{name} must be at least {minimum}")
            return None
        return value

    def _str(self, data: dict, key: str) -> str | None:
        if key not in data:
            self.problems.append(f"missing key {key!r}")
            return None
        if not isinstance(data[key], str) or not data[key]:
            self.problems.append(f"{key} must be a non-empty string")
            return None
        return data[key]

    def _extensions(self, data: dict, key: str) -> tuple[str, ...] | None:
        if key not in data:
            self.problems.append(f"missing key {key!r}")
            return None
        value = data[key]
        if not isinstance(value, list) or not all(
            isinstance(ext, str) and len(ext) > 1 and ext.startswith(".") and "/" not in ext for ext in value
        ):
            self.problems.append(f'{key} must be a list of extensions such as ".md"')
            return None
        return tuple(ext.lower() for ext in value)

    def _section(self, data: dict, key: str, fields: tuple[str, ...]) -> dict[str, int] | None:
        if key not in data:
            self.problems.append(f"missing key {key!r}")
            return None
        section = data[key]
        if not isinstance(section, dict):
            self.problems.append(f"{key} must be an object")
            return None
        values = {field: self._int(section, field, minimum=1, where=f"{key}.") for field in fields}
        if any(value is None for value in values.values()):
            return None
        return values  # type: ignore[return-value]


def _is_plain_dir_name(name: str) -> bool:
    return name not in (".", "..") and not any(ch in name for ch in "/\\\0")
