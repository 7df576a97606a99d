"""Every skill-derived result on the wire, and the CallToolResult around a tool's fields.

The catalog hands out data (SkillEntry, FileEntry, search hits); this module alone decides
their JSON (docs/reference.md#tools). JSON is composed structurally: an object is made of
Members (its `"key":value` text, without braces), and a value already encoded is a RawJson,
put in as it is.

A skill's metadata members are encoded on first use and kept per snapshot index, so a page
of skills or search results is a join of stored fragments. The memo of an index is dropped
with the index (it is keyed weakly), so it is bounded by the catalog's index cache.
"""

import threading
from collections.abc import Iterable
from typing import Any, NewType
from weakref import WeakKeyDictionary

from catalog.index import FileEntry, SkillEntry, SnapshotIndex, SnapshotRef, SnapshotView
from catalog.search import SearchHit
from mcpapi.jsonrpc import RawJson, dumps_text

API_VERSION = "1"

# The members of one JSON object, `"a":1,"b":[2]`: what a larger object is made of.
Members = NewType("Members", str)
Fields = Iterable[tuple[str, Any]]


def members(fields: Fields) -> Members:
    """`fields` as object members, in order; a RawJson value goes in as it is."""
    return Members(
        ",".join(
            dumps_text(key) + ":" + (value if isinstance(value, RawJson) else dumps_text(value))
            for key, value in fields
        )
    )


def json_object(*parts: Members) -> RawJson:
    """One object made of the members of every part, in order."""
    return RawJson("{" + ",".join(part for part in parts if part) + "}")


def json_array(items: Iterable[RawJson]) -> RawJson:
    return RawJson("[" + ",".join(items) + "]")


# --- skills ------------------------------------------------------------------------------

_metadata_memo: WeakKeyDictionary[SnapshotIndex, dict[str, Members]] = WeakKeyDictionary()
_memo_lock = threading.Lock()


def metadata(view: SnapshotView, skill: SkillEntry) -> RawJson:
    """A skill's metadata object (docs/reference.md#tools)."""
    return json_object(_metadata_members(view, skill))


def search_result(view: SnapshotView, hit: SearchHit, excerpt_chars: int) -> RawJson:
    """A search result: the skill's metadata, why it matched, and an excerpt."""
    reasons = [{"rule": rule, "term": term} for rule, term in hit.match_reasons()]
    return json_object(
        _metadata_members(view, hit.skill),
        members((("match_reasons", reasons), ("excerpt", hit.excerpt(excerpt_chars)))),
    )


def manifest_entry(entry: FileEntry) -> dict[str, Any]:
    """One supporting file as the files manifest of skills_get lists it."""
    return {
        "path": entry.path,
        "size": entry.size,
        "sha256": entry.sha256,
        "media_type": entry.media_type,
        "executable": entry.executable,
    }


def _metadata_members(view: SnapshotView, skill: SkillEntry) -> Members:
    memo = _metadata_memo.get(view.index)
    if memo is None:
        with _memo_lock:
            memo = _metadata_memo.setdefault(view.index, {})
    encoded = memo.get(skill.id)
    if encoded is None:  # two threads may both encode it: the same text, stored twice
        encoded = memo[skill.id] = members(
            (
                ("id", skill.id),
                ("name", skill.name),
                ("description", skill.description),
                ("version", skill.version),
                ("tags", skill.tags),
                ("keywords", skill.keywords),
                ("requires", skill.requires),
                ("required_zdr", skill.required_zdr),
                ("content_hash", skill.content_hash),
            )
        )
    return encoded


# --- tool results --------------------------------------------------------------------------


def tool_result(ref: SnapshotRef, fields: Fields) -> RawJson:
    return _call_tool_result(ref, members(fields), is_error=False)


def tool_error(ref: SnapshotRef | None, error: dict[str, Any]) -> RawJson:
    """An error a model can act on, as a result (isError: true); `ref` is None before the
    first publish."""
    return _call_tool_result(ref, members((("error", error),)), is_error=True)


def _call_tool_result(ref: SnapshotRef | None, fields: Members, *, is_error: bool) -> RawJson:
    """structuredContent is encoded once and used twice: as the object, and as the text of
    the one content item."""
    registry = members(
        (
            ("api_version", API_VERSION),
            ("registry_sha", ref.sha if ref is not None else None),
            ("published_at", ref.published_at.isoformat() if ref is not None else None),
        )
    )
    structured = json_object(registry, fields)
    return json_object(
        members(
            (
                ("content", [{"type": "text", "text": str(structured)}]),
                ("structuredContent", structured),
                ("isError", is_error),
            )
        )
    )
