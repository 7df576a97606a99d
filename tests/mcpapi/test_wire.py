"""mcpapi.wire and mcpapi.paginate on their own: JSON composed from members, the metadata memo
per snapshot index, tool results, and the one paginator over signed cursors."""

import functools
import gc
import json
from datetime import UTC, datetime

import orjson
import pytest

from catalog.index import FileEntry, SkillEntry, SnapshotIndex, SnapshotRef, SnapshotView
from catalog.search import SearchIndex
from mcpapi import call_results, cursors, wire
from mcpapi.jsonrpc import (
    RawJson,
    dumps_text,
    encode_result,
    encode_utf8_result,
    id_utf8,
    json_utf8,
    result_utf8,
    string_text,
)
from mcpapi.paginate import Page, Paginator
from mcpapi.spliced import Pieces

REF = SnapshotRef("a" * 40, datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))


def skill(skill_id: str, **fields) -> SkillEntry:  # type: ignore[no-untyped-def]
    values = {
        "name": f"Skill “{skill_id}”",
        "description": "Review — carefully.",
        "version": "1.0.0",
        "tags": ("review",),
        "keywords": ("diff",),
        "requires": (),
        "required_zdr": False,
        "content_hash": "0" * 64,
        "instructions": "Steps to review.\n",
        "skill_md_sha256": "1" * 64,
        "skill_md_size": 10,
        "files": (FileEntry("scripts/run.sh", 3, "2" * 64, "text/x-shellscript", True),),
        "path": f"skills/{skill_id}",
        **fields,
    }
    return SkillEntry(id=skill_id, **values)


def view_of(*skills: SkillEntry) -> SnapshotView:
    return SnapshotView(SnapshotIndex(REF, None, skills), zdr_cleared=True)  # type: ignore[arg-type]


def test_objects_composed_from_members_are_what_the_encoder_makes_of_the_dict() -> None:
    inner = RawJson(dumps_text({"x": [1, "é"]}))
    composed = wire.json_object(wire.members([("a", 1), ("b", None)]), wire.members([("c", inner)]))
    assert composed == dumps_text({"a": 1, "b": None, "c": {"x": [1, "é"]}})
    assert wire.json_object(wire.members([]), wire.members([("a", ())])) == '{"a":[]}'
    assert wire.json_array([inner, RawJson("2")]) == '[{"x":[1,"é"]},2]'
    both = '{"a":1,"b":{"x":[1,"é"]},"c":"d","e":{"x":[1,"é"]}}'
    assert wire.encode_object([("a", 1), ("b", inner), ("c", "d"), ("e", inner)]) == both
    assert wire.encode_object([("a", 1)]) == '{"a":1}'
    assert wire.encode_object([("b", inner)]) == '{"b":{"x":[1,"é"]}}'
    assert wire.encode_object([]) == "{}"


def test_metadata_is_the_skills_fields_in_order() -> None:
    alpha, beta = skill("alpha"), skill("beta")
    listed, count = wire.metadata_list(view_of(alpha, beta), [alpha, beta])
    assert count == 2
    assert json.loads(listed.joined().json) == [
        json.loads(dumps_text(wire.metadata(alpha))),
        json.loads(dumps_text(wire.metadata(beta))),
    ]
    assert wire.metadata_list(view_of(alpha), []) == (Pieces([b"[]"], [b"[]"]), 0)
    assert json.loads(dumps_text(wire.metadata(alpha))) == {
        "id": "alpha",
        "name": "Skill “alpha”",
        "description": "Review — carefully.",
        "version": "1.0.0",
        "tags": ["review"],
        "keywords": ["diff"],
        "requires": [],
        "required_zdr": False,
        "path": "skills/alpha",
        "content_hash": "0" * 64,
    }
    assert list(wire.metadata(alpha)) == [
        "id",
        "name",
        "description",
        "version",
        "tags",
        "keywords",
        "requires",
        "required_zdr",
        "path",
        "content_hash",
    ]


def test_a_search_result_is_the_metadata_then_match_reasons_then_excerpt() -> None:
    alpha = skill("alpha")
    view = view_of(alpha)
    [hit] = SearchIndex(view.skills).search("review")
    results, count = wire.search_results(view, [hit], 6)
    [result] = json.loads(results.joined().json)
    assert count == 1
    assert result == {
        **json.loads(dumps_text(wire.metadata(alpha))),
        "match_reasons": [{"rule": rule, "term": term} for rule, term in hit.match_reasons()],
        "excerpt": hit.excerpt(6),
    }
    assert list(result)[-2:] == ["match_reasons", "excerpt"]


@pytest.mark.parametrize("listing", ["search", "list"])
def test_a_page_ends_at_the_first_item_past_the_budget_and_keeps_one_at_least(
    listing: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fitted_array's rule, as search_results and metadata_list apply it to their pieces: the
    array's bytes and one more per item (its comma, or the closing bracket) within the budget."""
    skills = [skill(name) for name in ("alpha", "beta", "gamma")]
    view = view_of(*skills)
    hits = SearchIndex(view.skills).search("review")

    def page(budget: int) -> tuple[Pieces, int]:
        if listing == "search":
            monkeypatch.setattr(wire, "PAGE_ITEM_BYTES", budget)
            return wire.search_results(view, hits, 6)
        monkeypatch.setattr(wire, "_fitted", functools.partial(wire._fitted, budget=budget))
        return wire.metadata_list(view, skills)

    whole, count = page(10**6)
    assert count == 3
    items = [orjson.dumps(item) for item in json.loads(whole.joined().json)]
    two = 2 + len(items[0]) + 1 + len(items[1]) + 1
    three = two + len(items[2]) + 1
    for budget, kept in ((three, 3), (three - 1, 2), (two, 2), (two - 1, 1), (1, 1)):
        listed, count = page(budget)
        assert count == kept, budget
        assert listed.joined().json == b"[" + b",".join(items[:kept]) + b"]"


def test_the_metadata_memo_lives_as_long_as_its_index() -> None:
    alpha = skill("alpha")
    view = view_of(alpha)
    first = wire.metadata_list(view, [alpha])
    assert wire.metadata_list(view, [alpha]) == first
    key = id(view.index)
    assert len(wire._metadata_memo[key]) == 1
    del view
    gc.collect()
    assert key not in wire._metadata_memo


def test_a_tool_result_carries_its_structured_content_twice_and_the_registry_fields() -> None:
    result = json.loads(call_results.tool_result(REF, [("n", 1), ("listed", RawJson("[]"))]).data)
    structured = {
        "api_version": wire.API_VERSION,
        "registry_sha": REF.sha,
        "published_at": REF.published_at.isoformat(),
        "n": 1,
        "listed": [],
    }
    assert result == {
        "content": [{"type": "text", "text": dumps_text(structured)}],
        "structuredContent": structured,
        "isError": False,
    }
    empty = json.loads(call_results.tool_error(None, {"code": "REGISTRY_EMPTY", "message": "m"}).data)
    assert empty["isError"] is True
    assert empty["structuredContent"] == {
        "api_version": wire.API_VERSION,
        "registry_sha": None,
        "published_at": None,
        "error": {"code": "REGISTRY_EMPTY", "message": "m"},
    }


def test_the_paginator_walks_a_list_and_stops_on_the_last_page() -> None:
    paginator = Paginator(REF.sha, "things", ["tag"], False)
    first = paginator.page(None, total=5, limit=2)
    assert (first.start, first.end) == (0, 2) and first.next_cursor is not None
    second = paginator.page(first.next_cursor, total=5, limit=2)
    third = paginator.page(second.next_cursor, total=5, limit=2)
    assert (second.start, second.end, third.start, third.end) == (2, 4, 4, 5)
    assert third.next_cursor is None
    assert paginator.page(None, total=0, limit=2) == Page(0, 0, None)


def test_the_paginator_refuses_a_cursor_of_another_query_revision_or_length() -> None:
    cursor = Paginator(REF.sha, "things", False).cursor_at(3)
    with pytest.raises(cursors.InvalidCursor):
        Paginator(REF.sha, "things", True).start(cursor)  # another clearance
    with pytest.raises(cursors.StaleCursor):
        Paginator("b" * 40, "things", False).start(cursor)
    with pytest.raises(cursors.CursorPastTheEnd):
        Paginator(REF.sha, "things", False).page(cursor, total=2, limit=10)
    with pytest.raises(cursors.InvalidCursor):
        Paginator(REF.sha, "things", False).start(cursor[:-1] + ("A" if cursor[-1] != "A" else "B"))


def test_a_string_is_encoded_to_the_characters_json_gives_for_every_code_point() -> None:
    every = [chr(code) for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF]
    assert [string_text(char) for char in every] == [dumps_text(char) for char in every]
    page = "".join(every[:0x3000]) + '"\\\n\t\x00\x7f\u2028\u2029 — 🎉' * 100
    assert string_text(page) == dumps_text(page)
    assert string_text(RawJson('{"a":"b"}')) == dumps_text(RawJson('{"a":"b"}'))


def test_a_string_holding_a_lone_surrogate_is_encoded_as_json_does() -> None:
    for text in ("\ud800", "a\udfffb", "\ud83d"):
        assert string_text(text) == dumps_text(text)


@pytest.mark.parametrize(
    "request_id",
    [
        0,
        1,
        -7,
        2**63,
        10**40,
        "",
        "a",
        'quote " and \\ backslash',
        "ünïcödé ✓ 🎉",
        "\x00\x1f\x7f",
        "\ud800",
        None,
    ],
)
def test_an_envelope_spliced_around_an_encoded_result_is_what_encode_result_gives(request_id: object) -> None:
    result = {"answer": "ünïcödé", "n": [1, 2]}
    spliced = encode_utf8_result(request_id, result_utf8(result))  # type: ignore[arg-type]
    assert spliced == encode_result(request_id, result)  # type: ignore[arg-type]
    assert spliced == json_utf8(dumps_text({"jsonrpc": "2.0", "id": request_id, "result": result}))


def test_every_code_point_as_an_id_is_written_as_json_writes_it() -> None:
    text = "".join(chr(point) for point in range(0x3000) if not 0xD800 <= point < 0xE000)
    assert id_utf8(text) == json_utf8(dumps_text(text))
