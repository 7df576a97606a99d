"""The CallToolResult around a tool's fields (docs/reference.md#tools): structuredContent
encoded once in both forms (mcpapi.spliced) and used twice, as the object and as the text of
its one content item, with the registry's members first. The skill-derived values inside are
mcpapi.wire's."""

from typing import Any

from catalog.index import SnapshotRef
from mcpapi import spliced
from mcpapi.jsonrpc import RawJson, Utf8Json
from mcpapi.spliced import Pieces, Spliced
from mcpapi.wire import API_VERSION, Fields


def tool_result(ref: SnapshotRef, fields: Fields) -> Utf8Json:
    """The CallToolResult of `fields`: plain values, RawJson, or Spliced pieces."""
    return _call_tool_result(ref, fields, is_error=False)


def tool_error(ref: SnapshotRef | None, error: dict[str, Any]) -> Utf8Json:
    """An error a model can act on, as a result (isError: true); `ref` is None before the
    first publish."""
    return _call_tool_result(ref, (("error", error),), is_error=True)


# The CallToolResult around one structuredContent: the text item holding it as a JSON string,
# then the object itself, then isError.
_RESULT_HEAD = b'{"content":[{"type":"text","text":"'
_RESULT_STRUCTURED = b'"}],"structuredContent":'
_RESULT_TAIL = {False: b',"isError":false}', True: b',"isError":true}'}


def _call_tool_result(ref: SnapshotRef | None, fields: Fields, *, is_error: bool) -> Utf8Json:
    """structuredContent is encoded once in both forms and used twice: as the object, and as
    the text of the one content item."""
    parts = [_registry_members(ref), *_spliced_runs(dict(fields))]
    json_chunks, text_chunks = spliced.chunks(b"{", parts, b"}")
    # One join: the page or the file's text is copied once, into the answer.
    return Utf8Json(
        b"".join((_RESULT_HEAD, *text_chunks, _RESULT_STRUCTURED, *json_chunks, _RESULT_TAIL[is_error]))
    )


# The registry's members of a result, per snapshot named (None before the first publish): the
# active one, and the few a worker answers for while a publish turns over. Emptied when full.
REGISTRY_MEMO_SIZE = 8
_registry_memo: dict[SnapshotRef | None, spliced.Part] = {}


def _registry_members(ref: SnapshotRef | None) -> spliced.Part:
    """`"api_version":...,"registry_sha":...,"published_at":...` in both forms, kept: the same
    bytes for every answer from one snapshot (docs/benchmarks.md "The floor of a cold search,
    session 6")."""
    part = _registry_memo.get(ref)
    if part is None:
        registry = {
            "api_version": API_VERSION,
            "registry_sha": ref.sha if ref is not None else None,
            "published_at": ref.published_at.isoformat() if ref is not None else None,
        }
        if len(_registry_memo) >= REGISTRY_MEMO_SIZE:
            _registry_memo.clear()
        part = _registry_memo[ref] = spliced.inner(spliced.plain(registry))
    return part


def _spliced_runs(values: dict[str, Any]) -> list[spliced.Part]:
    """The members of `values` in both forms: each run of plain values encoded in one call,
    each RawJson or Spliced value put in as it is."""
    parts: list[spliced.Part] = []
    plain: dict[str, Any] = {}
    for key, value in values.items():
        kind = type(value)
        if kind is Spliced or kind is Pieces or kind is RawJson:
            if plain:
                parts.append(spliced.inner(spliced.plain(plain)))
                plain = {}
            parts.append(spliced.member(key, spliced.raw(value) if kind is RawJson else value))
        else:
            plain[key] = value
    if plain:
        parts.append(spliced.inner(spliced.plain(plain)))
    return parts
