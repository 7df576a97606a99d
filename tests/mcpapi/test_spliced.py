"""mcpapi.spliced and the tool results mcpapi.wire splices from it: the very bytes of encoding
the whole with dumps_text, string_text and json_utf8, as tool results were made before."""

import sys
import tracemalloc
from datetime import UTC, datetime
from typing import Any

import pytest

from catalog.index import SnapshotRef
from mcpapi import call_results, spliced, wire
from mcpapi.jsonrpc import RawJson, Utf8Json, dumps_text, json_utf8, string_text
from mcpapi.spliced import Spliced

REF = SnapshotRef("a" * 40, datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
EVERY_CODE_POINT = "".join(chr(code) for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF)
AWKWARD = '"\\\n\t\x00\x1f\x7f\u2028\u2029 — 🎉 \\u00e9 \\"'
VALUES: list[Any] = [
    "",
    AWKWARD,
    EVERY_CODE_POINT[:0x3000],
    EVERY_CODE_POINT[0x3000:],
    {"a": AWKWARD, "b": [1, -2, True, False, None], "c": ("x", {"d": ()})},
    [2**70, "big integers are json's"],
    "a lone surrogate \ud800 is json's",
    {"key \udfff": ["\ud83d"]},
]


def expected(json_text: str) -> Spliced:
    return Spliced(json_utf8(json_text), json_utf8(string_text(json_text)[1:-1]))


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_a_plain_value_is_what_json_and_string_text_make_of_it(value: Any) -> None:
    assert spliced.plain(value) == expected(dumps_text(value))
    assert spliced.plain_json(value) == json_utf8(dumps_text(value))


OBJECTS = [value for value in VALUES if isinstance(value, dict) and value]


@pytest.mark.parametrize("value", OBJECTS, ids=range(len(OBJECTS)))
def test_a_lasting_object_is_the_plain_one_less_its_closing_brace(value: dict[str, Any]) -> None:
    whole = spliced.plain(value)
    opened = spliced.lasting_open(value)
    assert (opened.json + b"}", opened.text + b"}") == (whole.json, whole.text)


METADATA = {"id": "s-0001", "name": "n" * 30, "description": "d — " * 80, "tags": ["a", "b"]}


@pytest.mark.parametrize("value", [METADATA, {"n": 7}], ids=["metadata", "small"])
def test_a_lasting_value_holds_no_more_memory_than_its_bytes(value: dict[str, Any]) -> None:
    """What the metadata memo keeps per skill (mcpapi.wire): the bytes it holds, not orjson's
    working buffer (4 KiB and more, docs/benchmarks.md, "Every cache full, session 5")."""
    tracemalloc.start()
    try:
        kept = spliced.lasting_open(value)
        traced, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    held = sys.getsizeof(kept.json) + (0 if kept.text is kept.json else sys.getsizeof(kept.text))
    # Slack for what else the interpreter allocates meanwhile (under 1 KiB; orjson's buffer alone
    # is 4 KiB or more, so kept as it came this fails).
    assert traced <= held + sys.getsizeof(kept) + 1024


def test_text_encoded_elsewhere_takes_both_forms_as_it_is() -> None:
    text = dumps_text({"a": AWKWARD, "b": "\ud800"})
    assert spliced.raw(text) == expected(text)


def test_objects_and_arrays_of_pieces_are_the_encoding_of_the_whole() -> None:
    a, b = {"x": AWKWARD, "y": 1}, {"z": ["—", None]}
    pieces = [
        spliced.inner(spliced.plain(a)),
        spliced.inner(spliced.plain({})),
        spliced.inner(spliced.plain(b)),
    ]
    assert spliced.json_object(pieces) == expected(dumps_text({**a, **b}))
    nested = spliced.json_object(
        [spliced.member('k"ey', spliced.open_objects_array([spliced.lasting_open(x) for x in (a, b)]))]
    )
    assert nested == expected(dumps_text({'k"ey': [a, b]}))


def test_an_array_of_opened_objects_is_the_array_of_the_objects() -> None:
    a, b = {"x": AWKWARD, "y": 1}, {"z": ["—", None], "w": "\ud800"}
    array = spliced.open_objects_array([spliced.lasting_open(a), spliced.lasting_open(b)])
    assert array.joined() == expected(dumps_text([a, b]))
    assert spliced.open_objects_array([spliced.lasting_open(a)]).joined() == expected(dumps_text([a]))
    assert spliced.open_objects_array([]).joined() == expected("[]")


def reference_result(structured: dict[str, Any], is_error: bool = False) -> bytes:
    """A CallToolResult as wire made it before it was spliced: one JSON text, then UTF-8."""
    text = dumps_text(structured)
    return json_utf8(
        '{"content":[{"type":"text","text":'
        + string_text(text)
        + '}],"structuredContent":'
        + text
        + (',"isError":true}' if is_error else ',"isError":false}')
    )


def test_a_tool_result_spliced_from_pieces_is_the_one_encoded_whole() -> None:
    listed = [{"id": "a", "description": AWKWARD}, {"id": "b", "description": "—"}]
    fields = [
        ("n", 1),
        ("listed", spliced.plain(listed)),
        ("pieces", spliced.open_objects_array([spliced.lasting_open(item) for item in listed])),
        ("frontmatter", RawJson(dumps_text({"name": AWKWARD}))),
        ("text", EVERY_CODE_POINT[:5000] + "\ud800"),
        ("next", None),
    ]
    registry = {
        "api_version": wire.API_VERSION,
        "registry_sha": REF.sha,
        "published_at": REF.published_at.isoformat(),
    }
    structured = {
        **registry,
        "n": 1,
        "listed": listed,
        "pieces": listed,
        "frontmatter": {"name": AWKWARD},
        "text": EVERY_CODE_POINT[:5000] + "\ud800",
        "next": None,
    }
    result = call_results.tool_result(REF, fields)
    assert type(result) is Utf8Json
    assert result.data == reference_result(structured)
    error = {"code": "X", "message": AWKWARD}
    assert call_results.tool_error(REF, error).data == reference_result(
        {**registry, "error": error}, is_error=True
    )


def test_members_added_to_an_encoded_result_are_those_of_the_whole() -> None:
    result = call_results.tool_result(REF, [("n", "—")])
    added = wire.with_members(result, [("resultType", "complete"), ("_meta", {"k": AWKWARD})])
    assert type(added) is Utf8Json
    members = [("resultType", "complete"), ("_meta", {"k": AWKWARD})]
    assert added.data == json_utf8(wire.with_members(RawJson(result.data.decode()), members))
    assert wire.with_members(Utf8Json(b"{}"), [("a", 1)]) == Utf8Json(b'{"a":1}')
    assert wire.with_members(result, []) == result
