"""One skill's metadata, declared once (docs/reference.md#skill-format).

Both dialects of SKILL.md map their frontmatter onto SkillMetadata (catalog.skillfile);
validation keeps it whole (catalog.report.ValidatedSkill), storage maps it to and from
rows by field name (catalog.storage), the index serves it (catalog.entries.SkillEntry) and
the MCP layer derives its schema from these fields. Adding a key is a field here and its
rule in the parser (plus the column that stores it).
"""

import dataclasses
import enum
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


class Dialect(enum.Enum):
    REGISTRY = "registry"  # a frontmatter with schema_version
    OPEN = "open"  # the open Agent Skills format: no schema_version


@dataclass(frozen=True, slots=True)
class SkillMetadata:
    """What a skill says about itself, in either dialect, plus where it lives."""

    id: str
    name: str
    description: str
    version: str | None  # a semantic version; None for an open-dialect skill without one
    tags: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    required_zdr: bool = False
    path: str = ""  # the skill directory, relative to the repository root

    def to_values(self) -> dict[str, Any]:
        """The fields as plain JSON-able values, in declaration order (tuples as lists)."""
        return {
            name: list(value) if isinstance(value, tuple) else value
            for name, value in ((f.name, getattr(self, f.name)) for f in dataclasses.fields(self))
        }

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> "SkillMetadata":
        """The inverse of to_values(): lists become the tuples the fields hold."""
        fields: dict[str, Any] = {
            name: tuple(values[name]) if name in TUPLE_FIELDS else values[name]
            for name in FIELD_TYPES
            if name in values
        }
        return cls(**fields)


# Each field's declared type, for whatever has to derive a shape from it (storage, schemas).
FIELD_TYPES: Mapping[str, Any] = typing.get_type_hints(SkillMetadata)
TUPLE_FIELDS = frozenset(name for name, hint in FIELD_TYPES.items() if typing.get_origin(hint) is tuple)
