"""A search page's two forms, byte for byte, whatever its excerpts hold, and the registry's
members kept per snapshot within their bound (docs/benchmarks.md "The floor of a cold search,
session 6")."""

from dataclasses import dataclass
from datetime import timedelta
from typing import Any, cast

import pytest

from catalog.index import SkillEntry, SnapshotRef
from catalog.search import SearchHit
from mcpapi import call_results, wire
from mcpapi.jsonrpc import dumps_text, json_utf8, string_text
from tests.mcpapi.test_wire import REF, skill, view_of


@dataclass
class FakeHit:
    skill: SkillEntry
    excerpt_text: str
    reasons: list[tuple[str, str]]

    def match_reasons(self) -> list[tuple[str, str]]:
        return list(self.reasons)

    def excerpt(self, excerpt_chars: int) -> str:
        return self.excerpt_text


EXCERPTS = [
    "plain words",
    'a "quoted" word',
    "a back\\slash",
    "lines\nand\ttabs\r",
    "\x00\x1f\x7f controls",
    "é — “curly” 🎉 \u2028 \u2029",
    "a lone \ud800 surrogate",
    '\\"',
    "",
]


@pytest.mark.parametrize("excerpt", EXCERPTS, ids=range(len(EXCERPTS)))
def test_a_search_page_is_its_json_and_that_json_escaped(excerpt: str) -> None:
    skills = [skill("alpha"), skill("beta", description='Has "quotes" \\ too')]
    view = view_of(*skills)
    reasons = [("name", "alpha"), ("tag", 'q"\\')]
    hits = [FakeHit(skills[0], excerpt, reasons), FakeHit(skills[1], excerpt + "!", reasons[:1])]
    results, count = wire.search_results(view, cast(list[SearchHit], hits), 240)
    assert count == 2
    expected: list[dict[str, Any]] = [
        {
            **wire.metadata(hit.skill),
            "match_reasons": [{"rule": rule, "term": term} for rule, term in hit.reasons],
            "excerpt": hit.excerpt_text,
        }
        for hit in hits
    ]
    joined = results.joined()
    assert bytes(joined.json) == json_utf8(dumps_text(expected))
    assert bytes(joined.text) == json_utf8(string_text(dumps_text(expected))[1:-1])


def test_the_registry_members_are_kept_within_their_bound() -> None:
    refs = [
        SnapshotRef(f"{number:040x}", REF.published_at + timedelta(seconds=number))
        for number in range(call_results.REGISTRY_MEMO_SIZE + 3)
    ]
    for ref in [*refs, None, *refs]:
        structured = {
            "api_version": wire.API_VERSION,
            "registry_sha": ref.sha if ref is not None else None,
            "published_at": ref.published_at.isoformat() if ref is not None else None,
            "n": 1,
        }
        expected = dumps_text(structured)
        answer = call_results.tool_result(ref, [("n", 1)]).data  # type: ignore[arg-type]
        assert answer == json_utf8(
            '{"content":[{"type":"text","text":'
            + string_text(expected)
            + '}],"structuredContent":'
            + expected
            + ',"isError":false}'
        )
        assert len(call_results._registry_memo) <= call_results.REGISTRY_MEMO_SIZE
