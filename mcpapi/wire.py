"""Every skill-derived result on the wire (the CallToolResult around a tool's fields is
mcpapi.call_results').

The catalog hands out data (SkillEntry, FileEntry, search hits); this module alone decides
their JSON (docs/reference.md#tools). JSON is composed structurally: an object is made of
Members (its `"key":value` text, without braces), and a value already encoded is a RawJson,
put in as it is.

A tool result is UTF-8 spliced from pieces encoded in both forms it holds them
(mcpapi.spliced): structuredContent, and the same JSON as its text content item. A skill's
metadata object (in both forms), and its Skill object of the skills extension, are encoded on
first use and kept per snapshot index, so a page of skills or search results is a join of
stored fragments (a single skill, as skills_get answers it, is encoded with the rest of its
result in one call). The memo of an index is dropped with the index, so it is bounded by the
catalog's index cache.
"""

import threading
import weakref
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any, NewType, TypeVar

import orjson

from catalog.index import FileEntry, SkillEntry, SnapshotIndex, SnapshotView
from catalog.report import OmittedFile
from catalog.search import SearchHit
from mcpapi import spliced
from mcpapi.answer_size import PAGE_ITEM_BYTES, utf8_size
from mcpapi.jsonrpc import RawJson, Utf8Json, dumps_text, json_utf8
from mcpapi.spliced import Buffer, Pieces, Spliced

API_VERSION = "1"
SKILL_SCHEME = "skill://"
SKILL_MD = "SKILL.md"

# The members of one JSON object, `"a":1,"b":[2]`: what a larger object is made of.
Members = NewType("Members", str)
Fields = Iterable[tuple[str, Any]]


def members(fields: Fields) -> Members:
    """`fields` as object members, in order; a RawJson value goes in as it is."""
    return Members(",".join(_encoded_runs(dict(fields))))


def encode_object(fields: Fields) -> RawJson:
    """The object of `fields`, in order; a RawJson value goes in as it is. Without one, this is
    a single encoder call."""
    values = dict(fields)
    if RawJson not in map(type, values.values()):
        return RawJson(dumps_text(values))
    return RawJson("{" + ",".join(_encoded_runs(values)) + "}")


def json_object(*parts: Members) -> RawJson:
    """One object made of the members of every part, in order."""
    return RawJson("{" + ",".join(filter(None, parts)) + "}")


def json_array(items: Iterable[RawJson]) -> RawJson:
    return RawJson("[" + ",".join(items) + "]")


def with_members(value: RawJson | Utf8Json | dict[str, Any], fields: Fields) -> RawJson | Utf8Json:
    """The object `value` (encoded or not) with `fields` added after its own members."""
    if isinstance(value, Utf8Json):
        data = value.data
        assert data.startswith(b"{") and data.endswith(b"}"), "only an object takes members"
        added = json_utf8(members(fields))
        if not added:
            return value
        # One join: the result (a page) is copied once on its way, not at every `+`.
        return Utf8Json(b"".join((memoryview(data)[:-1], b"," if len(data) > 2 else b"", added, b"}")))
    if isinstance(value, RawJson):
        assert value.startswith("{") and value.endswith("}"), "only an object takes members"
        return json_object(Members(value[1:-1]), members(fields))
    return encode_object(chain(value.items(), fields))


def _plain_members(values: dict[str, Any]) -> Members:
    """The members of the object of `values` (none of them a RawJson): one encoder call."""
    return Members(dumps_text(values)[1:-1])


def _encoded_runs(values: dict[str, Any]) -> list[str]:
    """The members of `values`: each run of plain values encoded in one call, each RawJson
    put in as it is."""
    parts: list[str] = []
    plain: dict[str, Any] = {}
    for key, value in values.items():
        if type(value) is RawJson:
            if plain:
                parts.append(_plain_members(plain))
                plain = {}
            parts.append(_encoded_key(key) + value)
        else:
            plain[key] = value
    if plain:
        parts.append(_plain_members(plain))
    return parts


_keys: dict[str, str] = {}


def _encoded_key(key: str) -> str:
    """`"key":`, kept: the keys are this module's and the tools' own few names."""
    encoded = _keys.get(key)
    if encoded is None:
        encoded = _keys[key] = dumps_text(key) + ":"
    return encoded


# --- skills ------------------------------------------------------------------------------

# Per snapshot index (by identity): skill id -> its metadata object less its closing brace
# (_metadata_head), and skill id -> its Skill
# of the skills extension. An entry is dropped when its index is (weakref.finalize), before the
# index's id can name another object.
_metadata_memo: dict[int, dict[str, Spliced]] = {}
_extension_memo: dict[int, dict[str, RawJson]] = {}
_memo_lock = threading.Lock()


def metadata(skill: SkillEntry) -> dict[str, Any]:
    """A skill's metadata object (docs/reference.md#tools), for one skill on its own."""
    return dict(_metadata_fields(skill))


def metadata_list(view: SnapshotView, skills: Iterable[SkillEntry]) -> tuple[Pieces, int]:
    """An array of the skills' metadata objects, as many of them as fit in a page
    (fitted_array), and how many that is."""
    memo = _memo(view)
    kept = _fitted((memo.get(skill.id) or _metadata_head(memo, skill) for skill in skills), _closed_size)
    return spliced.open_objects_array(kept), len(kept)


def search_results(view: SnapshotView, hits: Iterable[SearchHit], excerpt_chars: int) -> tuple[Pieces, int]:
    """An array of search results (each skill's metadata, why it matched, and an excerpt), as
    many of them as fit in a page (fitted_array), and how many that is.

    A result is its skill's kept metadata members, then `match_reasons` and `excerpt`: pieces of
    one list per form, joined once into the answer (docs/benchmarks.md, "The page of a cold
    search, session 6"). A page's hits share few lists of reasons (the query's terms), each
    encoded once."""
    memo = _memo(view)
    # Per list of reasons: `,"match_reasons":[...],"excerpt":` in both forms, the text's with
    # the excerpt string's opening quote (`\"`), so that a hit is four pieces a form.
    between: dict[tuple[tuple[str, str], ...], Spliced] = {}
    json_pieces: list[Buffer] = [b"["]
    text_pieces: list[Buffer] = [b"["]
    size = 2
    count = 0
    for hit in hits:
        head = memo.get(hit.skill.id) or _metadata_head(memo, hit.skill)
        reasons = tuple(hit.match_reasons())
        middle = between.get(reasons)
        if middle is None:
            middle = between[reasons] = _between(reasons)
        excerpt, excerpt_text = _excerpt(hit.excerpt(excerpt_chars))
        # The rule of fitted_array: the result's bytes and its comma, the closing brace included.
        size += len(head.json) + len(middle.json) + len(excerpt) + 2
        if size > PAGE_ITEM_BYTES and count:
            break
        json_pieces += (head.json, middle.json, excerpt, b"},")
        text_pieces += (head.text, middle.text, excerpt_text, _EXCERPT_CLOSED)
        count += 1
    if not count:
        return Pieces([b"[]"], [b"[]"]), 0
    json_pieces[-1] = b"}]"
    text_pieces[-1] = _EXCERPT_LAST
    return Pieces(json_pieces, text_pieces), count


def _between(reasons: tuple[tuple[str, str], ...]) -> Spliced:
    """What stands between a result's metadata and its excerpt's characters, in both forms."""
    encoded = spliced.plain([{"rule": rule, "term": term} for rule, term in reasons])
    return Spliced(
        b"".join((_REASONS.json, encoded.json, _EXCERPT.json)),
        b"".join((_REASONS.text, encoded.text, _EXCERPT.text, _QUOTE_TEXT)),
    )


def _excerpt(excerpt: str) -> tuple[bytes, Buffer]:
    """The excerpt's JSON string, and its characters as they stand in the text form, without
    the quotes. orjson escapes a quote as `\"`, so JSON with no backslash has no quote inside
    either: escaped again, it is its own characters (no replace, no Spliced object,
    docs/benchmarks.md "The floor of a cold search, session 6"). Otherwise its backslashes and
    quotes are escaped, as spliced.plain does; a lone surrogate goes through spliced.plain."""
    try:
        encoded = orjson.dumps(excerpt)
    except TypeError:  # json's text, as spliced.plain writes it
        both = spliced.plain(excerpt)
        return bytes(both.json), bytes(both.text)[2:-2]
    if b"\\" not in encoded:
        return encoded, encoded[1:-1]
    return encoded, encoded[1:-1].replace(b"\\", b"\\\\").replace(b'"', b'\\"')


def _after_members(key: str) -> Spliced:
    """`,"key":` in both forms: a member after others."""
    encoded = spliced.member_key(key)
    return Spliced(b"," + bytes(encoded.json), b"," + bytes(encoded.text))


_REASONS = _after_members("match_reasons")
_EXCERPT = _after_members("excerpt")
_QUOTE_TEXT = b'\\"'  # a string's quote in the text form
_EXCERPT_CLOSED = _QUOTE_TEXT + b"},"
_EXCERPT_LAST = _QUOTE_TEXT + b"}]"


def fitted_array(items: Iterable[RawJson], budget: int = PAGE_ITEM_BYTES) -> tuple[RawJson, int]:
    """The array of `items` up to the first one that would take it past `budget` bytes of
    UTF-8 (never fewer than one item), and how many it holds: a page a client hands its model
    whole however large its skills are (docs/reference.md#answer-sizes). Items after the cut
    are not encoded."""
    kept = _fitted(items, utf8_size, budget)
    return json_array(kept), len(kept)


Item = TypeVar("Item")


def _fitted(
    items: Iterable[Item], size_of: Callable[[Item], int], budget: int = PAGE_ITEM_BYTES
) -> list[Item]:
    """The rule of fitted_array, for items of any form whose UTF-8 size `size_of` gives."""
    kept: list[Item] = []
    size = 2
    for item in items:
        size += size_of(item) + 1
        if size > budget and kept:
            break
        kept.append(item)
    return kept


def _closed_size(head: Spliced) -> int:
    """The bytes of the object `head` opens (lasting_open), its closing brace included."""
    return len(head.json) + 1


def manifest_entry(entry: FileEntry) -> dict[str, Any]:
    """One supporting file as the files manifest of skills_get lists it."""
    return {
        "path": entry.path,
        "size": entry.size,
        "sha256": entry.sha256,
        "media_type": entry.media_type,
        "executable": entry.executable,
    }


def frontmatter(skill: SkillEntry) -> RawJson:
    """The skill's frontmatter as written, every key in order: the JSON text stored at publish."""
    return RawJson(skill.frontmatter)


def omitted_list(skill: SkillEntry) -> list[dict[str, str]]:
    """The files of the skill's directory it does not serve, by path, and why."""
    return [{"path": entry.path, "reason": entry.reason} for entry in sorted(skill.omitted, key=_by_path)]


def _by_path(entry: OmittedFile) -> str:
    return entry.path


def _memo(view: SnapshotView) -> dict[str, Spliced]:
    memo = _metadata_memo.get(id(view.index))
    if memo is None:
        memo = _new_memo(_metadata_memo, view.index)
    return memo


def _new_memo(table: dict[int, dict[str, Any]], index: SnapshotIndex) -> dict[str, Any]:
    with _memo_lock:
        memo = table.get(id(index))
        if memo is None:
            memo = table[id(index)] = {}
            weakref.finalize(index, table.pop, id(index), None)
    return memo


def _metadata_head(memo: dict[str, Spliced], skill: SkillEntry) -> Spliced:
    """The skill's metadata object without its closing brace, kept: a search result adds its
    own members after the skill's (search_results), a list page closes it."""
    encoded = memo.get(skill.id)
    if encoded is None:  # two threads may both encode it: the same bytes, stored twice
        encoded = memo[skill.id] = spliced.lasting_open(dict(_metadata_fields(skill)))
    return encoded


def _metadata_fields(skill: SkillEntry) -> Fields:
    return (
        ("id", skill.id),
        ("name", skill.name),
        ("description", skill.description),
        ("version", skill.version),
        ("tags", skill.tags),
        ("keywords", skill.keywords),
        ("requires", skill.requires),
        ("required_zdr", skill.required_zdr),
        ("path", skill.path),
        ("content_hash", skill.content_hash),
    )


# --- the skills extension -----------------------------------------------------------------


def skill_uri(skill_id: str, path: str = SKILL_MD) -> str:
    """A file of a skill as a resource: `skill://<id>/<path>` (docs/reference.md#mcp-methods)."""
    return f"{SKILL_SCHEME}{skill_id}/{path}"


def extension_skills(view: SnapshotView, skills: Iterable[SkillEntry]) -> tuple[RawJson, int]:
    """An array of the skills as the skills extension gives them (extension_skill), as many as
    fit in a page (fitted_array), and how many that is."""
    return fitted_array(extension_skill(view, skill) for skill in skills)


def extension_skill(view: SnapshotView, skill: SkillEntry) -> RawJson:
    """A Skill of the skills extension: the URI of its SKILL.md, its frontmatter as written, and
    every file it serves (SKILL.md first) with the digest and size of the bytes resources/read
    returns."""
    memo = _extension_memo.get(id(view.index))
    if memo is None:
        memo = _new_memo(_extension_memo, view.index)
    encoded = memo.get(skill.id)
    if encoded is None:  # two threads may both encode it: the same text, stored twice
        encoded = memo[skill.id] = _encode_extension_skill(skill)
    return encoded


def _encode_extension_skill(skill: SkillEntry) -> RawJson:
    files = [(SKILL_MD, skill.skill_md_sha256, skill.skill_md_size)]
    files += [(entry.path, entry.sha256, entry.size) for entry in skill.files]
    resources = [
        {"uri": skill_uri(skill.id, path), "digest": f"sha256:{sha256}", "size": size}
        for path, sha256, size in files
    ]
    return encode_object(
        (("uri", skill_uri(skill.id)), ("frontmatter", frontmatter(skill)), ("resources", resources))
    )
