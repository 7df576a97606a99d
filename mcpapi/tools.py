"""The four registry tools (docs/reference.md#tools, #errors): argument checks, handlers, results.
Their wire shapes (schemas, error codes) are in tool_schemas.py.

Every result carries `api_version`, `registry_sha` and `published_at` in
`structuredContent`, and the same JSON as its one text content item. Problems a
model can act on (an unknown skill, a stale revision...) are tool errors:
results with `isError: true` and `structuredContent.error`. Malformed arguments
are JSON-RPC -32602, raised as InvalidParams.
"""

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from catalog import index as catalog
from catalog.index import SkillEntry, SnapshotRef
from catalog.paths import is_well_formed_path
from catalog.search import normalise
from mcpapi import cursors
from mcpapi.jsonrpc import InvalidParams, RawJson, dumps_text
from mcpapi.params import validate_object
from mcpapi.registry import RegistryView
from mcpapi.tool_schemas import (
    FILE_NOT_FOUND,
    INVALID_CURSOR,
    INVALID_PATH,
    REGISTRY_EMPTY,
    REVISION_UNAVAILABLE,
    SKILL_NOT_FOUND,
    SKILLS_GET,
    SKILLS_GET_FILE,
    SKILLS_LIST,
    SKILLS_SEARCH,
    ToolSpec,
)

API_VERSION = "1"
_HEX = re.compile(r"[0-9a-f]+")
MIN_REVISION_PREFIX = 7


class ToolError(Exception):
    """An error a tool reports as its result (isError: true)."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.extra}


Handler = Callable[[dict[str, Any], RegistryView], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Tool:
    spec: ToolSpec
    handler: Handler
    check: Callable[[dict[str, Any]], None] | None = None  # argument rules beyond the schema


def skills_list(args: dict[str, Any], registry: RegistryView) -> dict[str, Any]:
    pagination = registry.config.pagination
    limit = _page_limit(args, "skills_list", pagination.default_limit, pagination.max_limit)
    tags = _normalised_tags(args.get("tags", ()))
    skills = registry.search_index().with_tags(tags) if tags else registry.visible().skills
    query = cursors.query_key("skills_list", tags, registry.zdr_cleared)
    page, next_cursor = _page(skills, limit, args.get("cursor"), registry, query)
    return {
        "skills": _Encoded("[" + ",".join(skill.metadata_json() for skill in page) + "]"),
        "next_cursor": next_cursor,
    }


def skills_search(args: dict[str, Any], registry: RegistryView) -> dict[str, Any]:
    settings = registry.config.search
    limit = _page_limit(args, "skills_search", settings.default_limit, settings.max_limit)
    tags = _normalised_tags(args.get("tags", ()))
    query_text: str = args["query"]
    hits = registry.search_index().search(query_text, tags)
    # The cursor binds the query as the ranking reads it: two queries with one normal form
    # have one ranking, so either may carry on the other's pages.
    query = cursors.query_key("skills_search", normalise(query_text), tags, registry.zdr_cleared)
    page, next_cursor = _page(hits, limit, args.get("cursor"), registry, query)
    # Each result is the skill's metadata object with two more members: its stored JSON
    # without the closing brace, then those members.
    results = ",".join(
        hit.skill.metadata_json()[:-1]
        + ',"match_reasons":'
        + dumps_text([{"rule": rule, "term": term} for rule, term in hit.match_reasons()])
        + ',"excerpt":'
        + dumps_text(hit.excerpt(settings.excerpt_chars))
        + "}"
        for hit in page
    )
    return {"results": _Encoded("[" + results + "]"), "next_cursor": next_cursor}


def _check_search(args: dict[str, Any]) -> None:
    if not args["query"].strip():
        raise InvalidParams("skills_search: 'query' must not be empty or blank.")


def skills_get(args: dict[str, Any], registry: RegistryView) -> dict[str, Any]:
    skill = _skill(registry, args["id"])
    return {
        "metadata": skill.metadata(),
        "instructions": skill.instructions,
        "files": [entry.manifest() for entry in skill.files],
    }


def skills_get_file(args: dict[str, Any], registry: RegistryView) -> dict[str, Any]:
    skill_id: str = args["id"]
    path: str = args["path"]
    if not is_well_formed_path(path):
        raise ToolError(
            INVALID_PATH,
            f"{path!r} is not a valid file path: paths are relative to the skill directory, with no "
            "'.' or '..' segment, no leading '/', no backslash, no '%' and no NUL.",
        )
    offset = 0
    if "cursor" in args:
        offset = _decode_cursor(
            args["cursor"], registry, cursors.query_key("skills_get_file", skill_id, path)
        )
    skill = _skill(registry, skill_id)
    entry = skill.file(path)
    if entry is None:
        raise ToolError(
            FILE_NOT_FOUND,
            f"Skill {skill_id!r} lists no file {path!r}; skills_get returns its files manifest.",
        )
    data = registry.read_blob(entry.sha256)
    if offset > len(data) or (offset < len(data) and _is_continuation_byte(data[offset])):
        raise ToolError(INVALID_CURSOR, "The cursor does not point into this file.")
    end = page_end(data, offset, registry.config.file_page_bytes)
    next_cursor = None
    if end < len(data):
        next_cursor = cursors.encode(
            registry.ref.sha,  # type: ignore[union-attr]
            cursors.query_key("skills_get_file", skill_id, path),
            end,
        )
    return {
        "id": skill.id,
        "path": entry.path,
        "text": data[offset:end].decode("utf-8"),
        "offset": offset,
        "size": entry.size,
        "sha256": entry.sha256,
        "media_type": entry.media_type,
        "executable": entry.executable,
        "next_cursor": next_cursor,
    }


def page_end(data: bytes, offset: int, page_bytes: int) -> int:
    """Where a page starting at `offset` ends: at most `page_bytes` later, never inside
    a UTF-8 character (a page always holds at least one whole character)."""
    end = min(offset + page_bytes, len(data))
    if end < len(data):
        boundary = end
        while boundary > offset and _is_continuation_byte(data[boundary]):
            boundary -= 1
        if boundary > offset:
            end = boundary
        else:  # a page smaller than one character: take the whole character
            end = offset + 1
            while end < len(data) and _is_continuation_byte(data[end]):
                end += 1
    return end


def _is_continuation_byte(byte: int) -> bool:
    return byte & 0xC0 == 0x80


TOOLS: dict[str, Tool] = {
    tool.spec.name: tool
    for tool in (
        Tool(SKILLS_LIST, skills_list),
        Tool(SKILLS_SEARCH, skills_search, check=_check_search),
        Tool(SKILLS_GET, skills_get),
        Tool(SKILLS_GET_FILE, skills_get_file),
    )
}

# tools/list is the same for every caller and request: serialised once per process.
TOOL_LIST = RawJson(dumps_text({"tools": [tool.spec.definition() for tool in TOOLS.values()]}))


def call_tool(name: str, arguments: Any, registry: RegistryView) -> RawJson:
    """A CallToolResult for `name`; raises InvalidParams for an unknown tool or bad arguments."""
    tool = TOOLS.get(name)
    if tool is None:
        raise InvalidParams(f"Unknown tool: {name!r}.")
    args = validate_object(arguments, tool.spec.input_schema, name)
    if tool.check is not None:
        tool.check(args)
    try:
        ref = registry.ref
        if ref is None:
            raise ToolError(REGISTRY_EMPTY, "Nothing has been published to this registry yet.")
        if "revision" in args:
            _check_revision(args["revision"], ref)
        fields = tool.handler(args, registry)
    except ToolError as error:
        return _result({**_registry_fields(registry.ref), "error": error.as_dict()}, is_error=True)
    return _result({**_registry_fields(ref), **fields}, is_error=False)


class _Encoded(str):
    """A field value that is already JSON text (e.g. joined per-skill fragments): spliced
    into the result as it is."""


def _encode_structured(structured: dict[str, Any]) -> str:
    """dumps_text(structured), except that _Encoded values go in as they are."""
    if not any(isinstance(value, _Encoded) for value in structured.values()):
        return dumps_text(structured)
    return (
        "{"
        + ",".join(
            dumps_text(key) + ":" + (value if isinstance(value, _Encoded) else dumps_text(value))
            for key, value in structured.items()
        )
        + "}"
    )


def _result(structured: dict[str, Any], *, is_error: bool) -> RawJson:
    """The CallToolResult, serialised: structuredContent is encoded once and reused, as an
    object and as the text of the one content item."""
    text = _encode_structured(structured)
    flag = "true" if is_error else "false"
    return RawJson(
        '{"content":[{"type":"text","text":'
        + dumps_text(text)
        + '}],"structuredContent":'
        + text
        + ',"isError":'
        + flag
        + "}"
    )


def _registry_fields(ref: SnapshotRef | None) -> dict[str, Any]:
    return {
        "api_version": API_VERSION,
        "registry_sha": ref.sha if ref is not None else None,
        "published_at": ref.published_at.isoformat() if ref is not None else None,
    }


def _check_revision(revision: str, ref: SnapshotRef) -> None:
    """Only the active snapshot is served: its full SHA, or a unique prefix of >= 7 hex chars."""
    wanted = revision.lower()
    if wanted == ref.sha:
        return
    if (
        MIN_REVISION_PREFIX <= len(wanted) < len(ref.sha)
        and _HEX.fullmatch(wanted)
        and ref.sha.startswith(wanted)
    ):
        found = catalog.find_snapshot(wanted)  # None when the prefix names several snapshots
        if found is not None and found.sha == ref.sha:
            return
    raise _revision_unavailable(ref, f"Revision {revision!r} is not available")


def _revision_unavailable(ref: SnapshotRef, why: str) -> ToolError:
    return ToolError(
        REVISION_UNAVAILABLE,
        f"{why}: only the active snapshot {ref.sha} is served. Start again from skills_list or "
        "skills_search without a revision (or with active_sha).",
        active_sha=ref.sha,
    )


def _skill(registry: RegistryView, skill_id: str) -> SkillEntry:
    skill = registry.visible().get(skill_id)
    if skill is None:
        raise ToolError(SKILL_NOT_FOUND, f"No skill has the id {skill_id!r}; ids are matched exactly.")
    return skill


def _page_limit(args: dict[str, Any], tool: str, default: int, maximum: int) -> int:
    limit = args.get("limit", default)
    if limit > maximum:
        raise InvalidParams(f"{tool}: 'limit' must be at most {maximum}.")
    return limit


def _normalised_tags(tags: Any) -> list[str]:
    return sorted({tag.lower() for tag in tags})


def _page(
    items: Sequence, limit: int, cursor: str | None, registry: RegistryView, query: str
) -> tuple[list, str | None]:
    start = 0 if cursor is None else _decode_cursor(cursor, registry, query)
    if start > len(items):
        raise ToolError(INVALID_CURSOR, "The cursor points past the end of the results.")
    end = start + limit
    next_cursor = None
    if end < len(items):
        next_cursor = cursors.encode(registry.ref.sha, query, end)  # type: ignore[union-attr]
    return items[start:end], next_cursor


def _decode_cursor(cursor: str, registry: RegistryView, query: str) -> int:
    ref = registry.ref
    assert ref is not None
    try:
        return cursors.decode(cursor, ref.sha, query)
    except cursors.StaleCursor:
        raise _revision_unavailable(ref, "The cursor comes from an earlier revision") from None
    except cursors.InvalidCursor:
        raise ToolError(
            INVALID_CURSOR,
            "The cursor is not valid for this query: pass back next_cursor exactly as returned, "
            "with the same arguments.",
        ) from None
