"""A query's hits with one pattern of memberships and fields held share their reasons
(catalog.search.SearchIndex.reasons), kept per query up to REASON_PATTERNS."""

import pytest

from catalog import search
from catalog.search import SearchIndex
from tests.catalog.search_support import skill

SKILLS = [
    skill("alpha", description="Tests forms.", tags=("forms",)),
    skill("beta", description="Forms.", body="tests", keywords=("tests",)),
    skill("gamma", body="forms and tests", tags=("tests", "forms")),
    skill("delta", description="tests", keywords=("forms",)),
    skill("tests forms", description="Nothing."),
    skill("omega", description="Forms tests.", tags=("forms",)),
]
EXPECTED = {
    "alpha": [("tag", "forms"), ("description", "tests"), ("description", "forms")],
    "beta": [("keyword", "tests"), ("description", "forms"), ("body", "tests")],
    "gamma": [("tag", "tests"), ("tag", "forms"), ("body", "tests"), ("body", "forms")],
    "delta": [("keyword", "forms"), ("description", "tests")],
    "tests forms": [("exact", "tests forms"), ("name", "tests"), ("name", "forms")],
    "omega": [("tag", "forms"), ("description", "tests"), ("description", "forms")],
}


@pytest.mark.parametrize("bound", [0, 1, 2, 64])
def test_reasons_are_the_same_whatever_patterns_are_kept(monkeypatch: pytest.MonkeyPatch, bound: int) -> None:
    monkeypatch.setattr(search, "REASON_PATTERNS", bound)
    index = SearchIndex(sorted(SKILLS, key=lambda s: s.id))
    results = index.search("tests forms")
    for _ in range(2):  # worked out, then read from the patterns kept
        assert {hit.skill.id: hit.match_reasons() for hit in results} == EXPECTED
    patterns = results.matchers().patterns
    # Six hits, five patterns (alpha's and omega's are one): kept up to the bound.
    assert len(patterns) == min(bound, 5)
