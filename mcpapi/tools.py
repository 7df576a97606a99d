"""The four registry tools (docs/reference.md#tools, #errors): argument checks, handlers, results.
Their wire shapes (schemas, error codes) are in tool_schemas.py; wire.py encodes results.

Every result carries `api_version`, `registry_sha` and `published_at` in
`structuredContent`, and the same JSON as its one text content item. Problems a
model can act on (an unknown skill, a stale revision, an argument that breaks its
schema...) are tool errors: results with `isError: true` and `structuredContent.error`,
so the model reads what to correct. Only an unknown tool is JSON-RPC -32602.
"""

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from catalog import index as catalog
from catalog.index import SkillEntry, SnapshotRef, SnapshotView
from catalog.paths import is_well_formed_path
from catalog.search import normalise
from catalog.textwords import words
from mcpapi import call_results, cursors, wire
from mcpapi.answer_size import PAGE_ITEM_BYTES
from mcpapi.jsonrpc import InvalidParams, RawJson, Utf8Json, dumps_text
from mcpapi.paginate import Page, Paginator
from mcpapi.params import ArgumentError, validate_object
from mcpapi.spliced import plain_json
from mcpapi.tool_schemas import (
    FILE_NOT_FOUND,
    INVALID_ARGUMENT,
    INVALID_CURSOR,
    INVALID_PATH,
    NO_SNAPSHOT,
    QUERY_MAX_TERMS,
    REGISTRY_EMPTY,
    REVISION_UNAVAILABLE,
    SKILL_NOT_FOUND,
    SKILLS_GET,
    SKILLS_GET_FILE,
    SKILLS_LIST,
    SKILLS_SEARCH,
    Bounds,
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
    limit = _page_limit(args, pagination.default_limit)
    tags = _normalised_tags(args.get("tags", ()))
    skills = view.search_index().with_tags(tags) if tags else view.skills
    paginator = Paginator(view.ref.sha, "skills_list", tags, view.zdr_cleared)
    page = _page(view, paginator, args, len(skills), limit)
    listed, count = wire.metadata_list(view, skills[page.start : page.end])
    return (("skills", listed), ("next_cursor", paginator.next_after(page, count)))


def skills_search(args: dict[str, Any], view: SnapshotView) -> wire.Fields:
    settings = view.config.search
    limit = _page_limit(args, settings.default_limit)
    tags = _normalised_tags(args.get("tags", ()))
    # The ranking and the cursor both read the query's normal form: two queries with one
    # normal form have one ranking, so either may carry on the other's pages.
    query = normalise(args["query"])
    hits = view.search_index().search(query, tags)
    paginator = Paginator(view.ref.sha, "skills_search", query, tags, view.zdr_cleared)
    page = _page(view, paginator, args, len(hits), limit)
    results, count = wire.search_results(view, hits[page.start : page.end], settings.excerpt_chars)
    return (("results", results), ("next_cursor", paginator.next_after(page, count)))


def _check_search(args: dict[str, Any]) -> None:
    query: str = args["query"]
    if not normalise(query):
        raise ToolError(INVALID_ARGUMENT, "skills_search: 'query' must not be empty or blank.")
    terms = distinct_terms(query)
    if terms > QUERY_MAX_TERMS:
        raise ToolError(
            INVALID_ARGUMENT,
            f"skills_search: 'query' holds {terms} distinct words; at most {QUERY_MAX_TERMS}.",
        )


def distinct_terms(query: str) -> int:
    """How many distinct words `query` holds, read as search reads it, stop words included: the
    bound is on what a request asks for, not on what the ranking keeps of it (and so does not
    move when the stop-word list does). parse_query's `all_words`, counted without working
    out the stems (most of parse_query's cost, docs/benchmarks.md "The page of a cold search,
    session 6"): the distinct words of the normal form."""
    return len(set(words(normalise(query))))


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
    end, text = fitted_page(data, offset, page_end(data, offset, view.config.file_page_bytes))
    return (
        ("id", skill.id),
        ("path", entry.path),
        ("text", text),
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


# JSON writes one byte of text as at most six (a control character as \u00XX): a page of fewer
# bytes than the answer budget over this always fits, and is not measured.
_MOST_ESCAPED = 6


def fitted_page(data: bytes, offset: int, end: int) -> tuple[int, str]:
    """The page data[offset:end] as text, cut shorter (on a character boundary) when its JSON
    would take the answer past the budget: a file of quotes, backslashes or control
    characters escapes to several times its size (docs/reference.md#answer-sizes)."""
    text = data[offset:end].decode("utf-8")
    while (end - offset) * _MOST_ESCAPED > PAGE_ITEM_BYTES:
        size = len(plain_json(text))  # the UTF-8 of string_text(text), without the str between
        if size <= PAGE_ITEM_BYTES:
            break
        end = page_end(data, offset, (end - offset) * PAGE_ITEM_BYTES // size)
        text = data[offset:end].decode("utf-8")
    return end, text


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


def bounds(view: SnapshotView | None) -> Bounds:
    """The argument bounds of the snapshot `view` reads (none before the first publish)."""
    if view is None:
        return NO_SNAPSHOT
    return Bounds(view.config.pagination.max_limit, view.config.search.max_limit)


# The same for every caller and request on one config: made once per process per Bounds.
@functools.lru_cache(maxsize=8)
def input_schemas(limits: Bounds) -> dict[str, dict[str, Any]]:
    return {name: tool.spec.input_schema(limits) for name, tool in TOOLS.items()}


@functools.lru_cache(maxsize=8)
def tool_list(limits: Bounds) -> RawJson:
    """The tools/list result under `limits`."""
    return RawJson(dumps_text({"tools": [tool.spec.definition(limits) for tool in TOOLS.values()]}))


REGISTRY_EMPTY_RESULT = call_results.tool_error(
    None, {"code": REGISTRY_EMPTY, "message": "Nothing has been published to this registry yet."}
)


def find(name: str) -> Tool:
    """The tool called `name`; InvalidParams (-32602) when there is none."""
    tool = TOOLS.get(name)
    if tool is None:
        raise InvalidParams(f"Unknown tool: {name!r}.")
    return tool


def call(tool: Tool, arguments: dict[str, Any], view: SnapshotView | None) -> Utf8Json:
    """The CallToolResult of `tool` with `arguments` on `view` (None before the first publish:
    arguments are checked all the same, then the answer is REGISTRY_EMPTY)."""
    ref = view.ref if view is not None else None
    try:
        args = _checked(tool, arguments, bounds(view))
        if view is None:
            return REGISTRY_EMPTY_RESULT
        if "revision" in args and not view.serves(args["revision"]):
            raise _revision_unavailable(view.ref, f"Revision {args['revision']!r} is not available")
        fields = tool.handler(args, view)
    except ToolError as error:
        return call_results.tool_error(ref, error.as_dict())
    return call_results.tool_result(view.ref, fields)


def _checked(tool: Tool, arguments: dict[str, Any], limits: Bounds) -> dict[str, Any]:
    """`arguments` checked against the tool's schema and rules, or ToolError INVALID_ARGUMENT."""
    name = tool.spec.name
    try:
        args = validate_object(arguments, input_schemas(limits)[name], name)
    except ArgumentError as error:
        raise ToolError(INVALID_ARGUMENT, error.message) from None
    if tool.check is not None:
        tool.check(args)
    return args


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


def _page_limit(args: dict[str, Any], default: int) -> int:
    """The page size asked for (its bounds are in the input schema, checked before the call)."""
    limit: int = args.get("limit", default)
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
