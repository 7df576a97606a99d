"""Every skill-derived result on the wire, and the CallToolResult around a tool's fields.

The catalog hands out data (SkillEntry, FileEntry, search hits); this module alone decides
their JSON (docs/reference.md#tools). JSON is composed structurally: an object is made of
Members (its `"key":value` text, without braces), and a value already encoded is a RawJson,
put in as it is.

A skill's metadata members, and its Skill object of the skills extension, are encoded on
first use and kept per snapshot index, so a page of skills or search results is a join of
stored fragments. The memo of an index is dropped with the index (it is keyed weakly), so it
is bounded by the catalog's index cache.
"""

import threading
from collections.abc import Callable, Iterable
from typing import Any, NewType
from weakref import WeakKeyDictionary

import yaml

from catalog.index import FileEntry, SkillEntry, SnapshotIndex, SnapshotRef, SnapshotView, read_blob
from catalog.search import SearchHit
from catalog.skillfile import parse_skill_file
from mcpapi.jsonrpc import RawJson, dumps_text

API_VERSION = "1"
SKILL_SCHEME = "skill://"
SKILL_MD = "SKILL.md"

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


def with_members(value: RawJson | dict[str, Any], fields: Fields) -> RawJson:
    """The object `value` (encoded or not) with `fields` added after its own members."""
    if isinstance(value, RawJson):
        assert value.startswith("{") and value.endswith("}"), "only an object takes members"
        own = Members(value[1:-1])
    else:
        own = members(value.items())
    return json_object(own, members(fields))


# --- skills ------------------------------------------------------------------------------

# Per snapshot index: (what was encoded, skill id) -> its encoding.
_memo: WeakKeyDictionary[SnapshotIndex, dict[tuple[str, str], str]] = WeakKeyDictionary()
_memo_lock = threading.Lock()


def _memoised(view: SnapshotView, kind: str, skill: SkillEntry, encode: Callable[[], str]) -> str:
    memo = _memo.get(view.index)
    if memo is None:
        with _memo_lock:
            memo = _memo.setdefault(view.index, {})
    key = (kind, skill.id)
    encoded = memo.get(key)
    if encoded is None:  # two threads may both encode it: the same text, stored twice
        encoded = memo[key] = encode()
    return encoded


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
    return Members(_memoised(view, "metadata", skill, lambda: _encode_metadata(skill)))


def _encode_metadata(skill: SkillEntry) -> Members:
    return members(
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


# --- the skills extension ---------------------------------------------------------------------


def skill_uri(skill_id: str, path: str = SKILL_MD) -> str:
    """A file of a skill as a resource: `skill://<id>/<path>` (docs/reference.md#mcp-methods)."""
    return f"{SKILL_SCHEME}{skill_id}/{path}"


def extension_skill(view: SnapshotView, skill: SkillEntry) -> RawJson:
    """A Skill of the skills extension: the URI of its SKILL.md, its frontmatter as written, and
    every file it serves (SKILL.md first) with the digest and size of the bytes resources/read
    returns."""
    return RawJson(_memoised(view, "extension", skill, lambda: _encode_extension_skill(skill)))


def _encode_extension_skill(skill: SkillEntry) -> RawJson:
    files = [(SKILL_MD, skill.skill_md_sha256, skill.skill_md_size)]
    files += [(entry.path, entry.sha256, entry.size) for entry in skill.files]
    return json_object(
        members(
            (
                ("uri", skill_uri(skill.id)),
                ("frontmatter", frontmatter(skill)),
                (
                    "resources",
                    [
                        {"uri": skill_uri(skill.id, path), "digest": f"sha256:{sha256}", "size": size}
                        for path, sha256, size in files
                    ],
                ),
            )
        )
    )


def frontmatter(skill: SkillEntry) -> dict[str, Any]:
    """The SKILL.md frontmatter of `skill`, every key as written, as JSON data."""
    # Stand-in until the index carries the frontmatter itself: the keys as written, with the
    # values the catalog checked.
    parsed = parse_skill_file(read_blob(skill.skill_md_sha256)).valid
    written = yaml.safe_load(read_blob(skill.skill_md_sha256).decode("utf-8").split("---\n")[1])
    return {
        key: list(value) if isinstance(value, tuple) else value
        for key, value in parsed.items()
        if key in written
    }


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
