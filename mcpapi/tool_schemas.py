"""What the four tools look like on the wire: names, descriptions, input and output
JSON Schemas, and the tool error codes (docs/reference.md#tools, #errors). Handlers live in tools.py.

The input schemas are also what arguments are checked against (mcpapi.params), so
what a client reads in tools/list is exactly what the server enforces. They state every
bound, some of them the active snapshot's config (the largest `limit`), so a schema is made
for the Bounds of one config.
"""

import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from catalog.search import RULES
from catalog.skill import FIELD_TYPES

SKILL_NOT_FOUND = "SKILL_NOT_FOUND"
FILE_NOT_FOUND = "FILE_NOT_FOUND"
INVALID_PATH = "INVALID_PATH"
REVISION_UNAVAILABLE = "REVISION_UNAVAILABLE"
INVALID_CURSOR = "INVALID_CURSOR"
REGISTRY_EMPTY = "REGISTRY_EMPTY"
INVALID_ARGUMENT = "INVALID_ARGUMENT"

# What one call may ask for, whatever the config (docs/reference.md#limits): enough for any
# real query, and small enough that no request can hold a worker for long.
QUERY_MAX_CHARS = 1024
QUERY_MAX_TERMS = 64
TAGS_MAX_ITEMS = 32


@dataclass(frozen=True, slots=True)
class Bounds:
    """The largest page of skills_list and of skills_search in one snapshot's config; None
    before the first publish, when no call reads anything and none is enforced."""

    list_limit: int | None
    search_limit: int | None


NO_SNAPSHOT = Bounds(None, None)


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_schema: Callable[[Bounds], dict[str, Any]]
    output_schema: dict[str, Any]

    def definition(self, bounds: Bounds) -> dict[str, Any]:
        """The tool as tools/list shows it under `bounds`."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema(bounds),
            "outputSchema": self.output_schema,
            "annotations": {
                "title": self.title,
                "readOnlyHint": True,
                "destructiveHint": False,
                "idempotentHint": True,
                "openWorldHint": False,
            },
        }


_REVISION = {
    "type": "string",
    "description": (
        "Registry commit SHA (full, or a unique prefix of at least 7 hex characters) that earlier "
        "results came from. Omit it to use the active snapshot; any other revision is "
        "REVISION_UNAVAILABLE, naming the active one."
    ),
}
_SKILL_ID = {"type": "string", "description": "The skill id, exactly as listed."}
_CURSOR = {
    "type": "string",
    "description": "The next_cursor of the previous page of the same query; omit it for the first page.",
}
_TAGS = {
    "type": "array",
    "items": {"type": "string"},
    "maxItems": TAGS_MAX_ITEMS,
    "description": "Only skills carrying every one of these tags (compared case-insensitively).",
}


def _limit(setting: str, maximum: int | None) -> dict[str, Any]:
    bound = {} if maximum is None else {"maximum": maximum}
    return {
        "type": "integer",
        "minimum": 1,
        **bound,
        "description": (
            f"Page size. Defaults to the registry's {setting}.default_limit; at most its {setting}.max_limit."
        ),
    }


_STRINGS = {"type": "array", "items": {"type": "string"}}
_NULLABLE_STRING = {"type": ["string", "null"]}


def _field_schema(hint: Any) -> dict[str, Any]:
    """The JSON Schema of a SkillMetadata field's declared type (catalog.skill.FIELD_TYPES)."""
    if hint is str:
        return {"type": "string"}
    if hint == str | None:
        return _NULLABLE_STRING
    if hint is bool:
        return {"type": "boolean"}
    if typing.get_origin(hint) is tuple:
        return _STRINGS
    raise TypeError(f"no JSON Schema for a metadata field of type {hint!r}")


# A skill's metadata on the wire: SkillMetadata's fields in declaration order, then the
# content hash the index adds (mcpapi.wire.metadata writes them in this order).
_METADATA_PROPERTIES: dict[str, Any] = {
    **{name: _field_schema(hint) for name, hint in FIELD_TYPES.items()},
    "content_hash": {"type": "string"},
}
_METADATA: dict[str, Any] = {
    "type": "object",
    "properties": _METADATA_PROPERTIES,
    "required": list(_METADATA_PROPERTIES),
}
_MANIFEST_ENTRY = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "size": {"type": "integer"},
        "sha256": {"type": "string"},
        "media_type": {"type": "string"},
        "executable": {"type": "boolean"},
    },
    "required": ["path", "size", "sha256", "media_type", "executable"],
}
_OMITTED_ENTRY = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "reason": {"type": "string"}},
    "required": ["path", "reason"],
}
_ERROR = {
    "type": "object",
    "properties": {
        "code": {
            "type": "string",
            "enum": [
                SKILL_NOT_FOUND,
                FILE_NOT_FOUND,
                INVALID_PATH,
                REVISION_UNAVAILABLE,
                INVALID_CURSOR,
                REGISTRY_EMPTY,
                INVALID_ARGUMENT,
            ],
        },
        "message": {"type": "string"},
        "active_sha": {"type": "string"},
    },
    "required": ["code", "message"],
}


def _output_schema(fields: dict[str, Any]) -> dict[str, Any]:
    """A result is either the tool's fields or an error, always with the registry fields."""
    return {
        "type": "object",
        "properties": {
            "api_version": {"type": "string"},
            "registry_sha": _NULLABLE_STRING,
            "published_at": {**_NULLABLE_STRING, "description": "ISO 8601 time the snapshot was activated."},
            **fields,
            "error": _ERROR,
        },
        "required": ["api_version", "registry_sha", "published_at"],
        "anyOf": [{"required": list(fields)}, {"required": ["error"]}],
    }


SKILLS_LIST = ToolSpec(
    name="skills_list",
    title="List skills",
    description=(
        "List the registry's skills (metadata only), ordered by id, one page at a time. "
        "Filter with tags; follow next_cursor for the next page (null on the last). "
        "Use skills_get to read a skill's instructions."
    ),
    input_schema=lambda bounds: {
        "type": "object",
        "properties": {
            "tags": _TAGS,
            "limit": _limit("pagination", bounds.list_limit),
            "cursor": _CURSOR,
            "revision": _REVISION,
        },
        "additionalProperties": False,
    },
    output_schema=_output_schema(
        {
            "skills": {"type": "array", "items": _METADATA},
            "next_cursor": _NULLABLE_STRING,
        }
    ),
)


SKILLS_SEARCH = ToolSpec(
    name="skills_search",
    title="Search skills",
    description=(
        "Find skills by words: an exact id or name match ranks first, then tag matches, keyword "
        "matches, then a text score over name, description and body (rare words count more), "
        "then id. Each result says why it matched (match_reasons) and quotes an excerpt. "
        "Deterministic; no embeddings."
    ),
    input_schema=lambda bounds: {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "maxLength": QUERY_MAX_CHARS,
                "description": (
                    "Words to look for, case-insensitive. Terms are the query's words (runs of "
                    "letters and digits); common English stop words are dropped; a term also "
                    "matches other forms of its word (its stem: 'tests' finds 'testing'). Not "
                    f"blank; at most {QUERY_MAX_TERMS} distinct words (stop words included)."
                ),
            },
            "tags": _TAGS,
            "limit": _limit("search", bounds.search_limit),
            "cursor": _CURSOR,
            "revision": _REVISION,
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    output_schema=_output_schema(
        {
            "results": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        **_METADATA["properties"],
                        "match_reasons": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "rule": {"type": "string", "enum": list(RULES)},
                                    "term": {"type": "string"},
                                },
                                "required": ["rule", "term"],
                            },
                        },
                        "excerpt": {"type": "string"},
                    },
                    "required": [*_METADATA["required"], "match_reasons", "excerpt"],
                },
            },
            "next_cursor": _NULLABLE_STRING,
        }
    ),
)


SKILLS_GET = ToolSpec(
    name="skills_get",
    title="Get a skill",
    description=(
        "Get one skill: its metadata, its instructions (the body of SKILL.md) and the manifest "
        "of its supporting files (path, size, sha256, media_type, executable), its frontmatter "
        "as written, and the files of its directory it does not serve (omitted). Read a file "
        "with skills_get_file."
    ),
    input_schema=lambda bounds: {
        "type": "object",
        "properties": {
            "id": _SKILL_ID,
            "revision": _REVISION,
        },
        "required": ["id"],
        "additionalProperties": False,
    },
    output_schema=_output_schema(
        {
            "metadata": _METADATA,
            "instructions": {"type": "string"},
            "files": {"type": "array", "items": _MANIFEST_ENTRY},
            "frontmatter": {"type": "object"},
            "omitted": {"type": "array", "items": _OMITTED_ENTRY},
        }
    ),
)


SKILLS_GET_FILE = ToolSpec(
    name="skills_get_file",
    title="Read a skill file",
    description=(
        "Read one supporting file of a skill as text, one page at a time: follow next_cursor "
        "until it is null; the pages joined are the file. Files under scripts/ are marked "
        "executable: the registry never runs them; read a script fully before running it, "
        "and only under your own permissions."
    ),
    input_schema=lambda bounds: {
        "type": "object",
        "properties": {
            "id": _SKILL_ID,
            "path": {
                "type": "string",
                "description": "A path from the skill's files manifest, e.g. references/guide.md.",
            },
            "cursor": _CURSOR,
            "revision": _REVISION,
        },
        "required": ["id", "path"],
        "additionalProperties": False,
    },
    output_schema=_output_schema(
        {
            "id": {"type": "string"},
            "path": {"type": "string"},
            "text": {"type": "string"},
            "offset": {"type": "integer", "description": "Bytes of the file before this page."},
            "size": {"type": "integer"},
            "sha256": {"type": "string"},
            "media_type": {"type": "string"},
            "executable": {"type": "boolean"},
            "next_cursor": _NULLABLE_STRING,
        }
    ),
)
