"""The four registry tools (docs/reference.md#tools, #errors): argument checks, handlers, results.
Their wire shapes (schemas, error codes) are in tool_schemas.py; wire.py encodes results.

Every result carries `api_version`, `registry_sha` and `published_at` in
`structuredContent`, and the same JSON as its one text content item. Problems a
model can act on (an unknown skill, a stale revision...) are tool errors:
results with `isError: true` and `structuredContent.error`. Malformed arguments
are JSON-RPC -32602, raised as InvalidParams.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from catalog import index as catalog
from catalog.index import SkillEntry, SnapshotRef, SnapshotView
from catalog.paths import is_well_formed_path
from catalog.search import normalise
from mcpapi import cursors, wire
from mcpapi.jsonrpc import InvalidParams, RawJson, dumps_text
from mcpapi.paginate import Page, Paginator
from mcpapi.params import validate_object
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


class ToolError(Exception):
    """An error a tool reports as its result (isError: true)."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.extra}


Handler = Callable[[dict[str, Any], SnapshotView], wire.Fields]


@dataclass(frozen=True, slots=True)
class Tool:
    spec: ToolSpec
    handler: Handler
    check: Callable[[dict[str, Any]], None] | None = None  # argument rules beyond the schema


def skills_list(args: dict[str, Any], view: SnapshotView) -> wire.Fields:
    pagination = view.config.pagination
    limit = _page_limit(args, "skills_list", pagination.default_limit, pagination.max_limit)
    tags = _normalised_tags(args.get("tags", ()))
    skills = view.search_index().with_tags(tags) if tags else view.skills
    paginator = Paginator(view.ref.sha, "skills_list", tags, view.zdr_cleared)
    page = _page(view, paginator, args, len(skills), limit)
    listed = wire.metadata_list(view, skills[page.start : page.end])
    return (("skills", listed), ("next_cursor", page.next_cursor))


def skills_search(args: dict[str, Any], view: SnapshotView) -> wire.Fields:
    settings = view.config.search
    limit = _page_limit(args, "skills_search", settings.default_limit, settings.max_limit)
    tags = _normalised_tags(args.get("tags", ()))
    # The ranking and the cursor both read the query's normal form: two queries with one
    # normal form have one ranking, so either may carry on the other's pages.
    query = normalise(args["query"])
    hits = view.search_index().search(query, tags)
    paginator = Paginator(view.ref.sha, "skills_search", query, tags, view.zdr_cleared)
    page = _page(view, paginator, args, len(hits), limit)
    results = wire.search_results(view, hits[page.start : page.end], settings.excerpt_chars)
    return (("results", results), ("next_cursor", page.next_cursor))


def _check_search(args: dict[str, Any]) -> None:
    if not normalise(args["query"]):
        raise InvalidParams("skills_search: 'query' must not be empty or blank.")


def skills_get(args: dict[str, Any], view: SnapshotView) -> wire.Fields:
    skill = _skill(view, args["id"])
    return (
        ("metadata", wire.metadata(skill)),
        ("instructions", skill.instructions),
        ("files", [wire.manifest_entry(entry) for entry in skill.files]),
        ("frontmatter", wire.frontmatter(skill)),
        ("omitted", wire.omitted_list(skill)),
    )


def skills_get_file(args: dict[str, Any], view: SnapshotView) -> wire.Fields:
    skill_id: str = args["id"]
    path: str = args["path"]
    if not is_well_formed_path(path):
        raise ToolError(
            INVALID_PATH,
            f"{path!r} is not a valid file path: paths are relative to the skill directory, with no "
            "'.' or '..' segment, no leading '/', no backslash, no '%' and no NUL.",
        )
    paginator = Paginator(view.ref.sha, "skills_get_file", skill_id, path)
    try:
        offset = paginator.start(args.get("cursor"))
    except (cursors.InvalidCursor, cursors.StaleCursor) as error:
        raise _cursor_error(view.ref, error) from None
    skill = _skill(view, skill_id)
    entry = skill.file(path)
    if entry is None:
        raise ToolError(
            FILE_NOT_FOUND,
            f"Skill {skill_id!r} lists no file {path!r}; skills_get returns its files manifest.",
        )
    data = catalog.read_blob(entry.sha256)
    if offset > len(data) or (offset < len(data) and _is_continuation_byte(data[offset])):
        raise ToolError(INVALID_CURSOR, "The cursor does not point into this file.")
    end = page_end(data, offset, view.config.file_page_bytes)
    return (
        ("id", skill.id),
        ("path", entry.path),
        ("text", data[offset:end].decode("utf-8")),
        ("offset", offset),
        ("size", entry.size),
        ("sha256", entry.sha256),
        ("media_type", entry.media_type),
        ("executable", entry.executable),
        ("next_cursor", paginator.cursor_at(end) if end < len(data) else None),
    )


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

REGISTRY_EMPTY_RESULT = wire.tool_error(
    None, {"code": REGISTRY_EMPTY, "message": "Nothing has been published to this registry yet."}
)


def prepare(name: str, arguments: Any) -> tuple[Tool, dict[str, Any]]:
    """The tool called `name` and its checked arguments; InvalidParams for an unknown tool or
    bad arguments."""
    tool = TOOLS.get(name)
    if tool is None:
        raise InvalidParams(f"Unknown tool: {name!r}.")
    args = validate_object(arguments, tool.spec.input_schema, name)
    if tool.check is not None:
        tool.check(args)
    return tool, args


def call(tool: Tool, args: dict[str, Any], view: SnapshotView) -> RawJson:
    """The CallToolResult of `tool` on `view`."""
    try:
        if "revision" in args and not view.serves(args["revision"]):
            raise _revision_unavailable(view.ref, f"Revision {args['revision']!r} is not available")
        fields = tool.handler(args, view)
    except ToolError as error:
        return wire.tool_error(view.ref, error.as_dict())
    return wire.tool_result(view.ref, fields)


def _revision_unavailable(ref: SnapshotRef, why: str) -> ToolError:
    return ToolError(
        REVISION_UNAVAILABLE,
        f"{why}: only the active snapshot {ref.sha} is served. Start again from skills_list or "
        "skills_search without a revision (or with active_sha).",
        active_sha=ref.sha,
    )


def _skill(view: SnapshotView, skill_id: str) -> SkillEntry:
    skill = view.get(skill_id)
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


def _page(view: SnapshotView, paginator: Paginator, args: dict[str, Any], total: int, limit: int) -> Page:
    try:
        return paginator.page(args.get("cursor"), total, limit)
    except (cursors.InvalidCursor, cursors.StaleCursor) as error:
        raise _cursor_error(view.ref, error) from None


def _cursor_error(ref: SnapshotRef, error: cursors.InvalidCursor | cursors.StaleCursor) -> ToolError:
    if isinstance(error, cursors.StaleCursor):
        return _revision_unavailable(ref, "The cursor comes from an earlier revision")
    if isinstance(error, cursors.CursorPastTheEnd):
        return ToolError(INVALID_CURSOR, "The cursor points past the end of the results.")
    return ToolError(
        INVALID_CURSOR,
        "The cursor is not valid for this query: pass back next_cursor exactly as returned, "
        "with the same arguments.",
    )
