"""The best members of a large label class read through each stem's score bands
(catalog.scoreheads): the same pages as a plain sort, with tag filters, exact matches, whole
labels and deep pages; each bound at its edge."""

from collections.abc import Callable, Sequence

import pytest

from bench.search.cpu import generated_skills
from catalog import scoreheads, searchranking
from catalog import search as search_module
from catalog.entries import SkillEntry
from catalog.searchbits import bitmap
from catalog.searchquery import Term
from catalog.textindex import TextIndex
from tests.catalog.test_search_cold import (
    assert_pages_are_the_reference_order,
    reference_order,
    some_queries,
)


@pytest.fixture(scope="module")
def generated() -> list[SkillEntry]:
    return generated_skills(300, 7)


def counting_best_members(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count the calls of best_members that settle and those that do not."""
    calls = {"settled": 0, "unsettled": 0}
    real = scoreheads.best_members

    def counted(*args: object) -> list[int] | None:
        found = real(*args)  # type: ignore[arg-type]
        calls["settled" if found is not None else "unsettled"] += 1
        return found

    monkeypatch.setattr(search_module, "best_members", counted)
    return calls


@pytest.mark.parametrize("band_ends", [(1, 2, 3, 5, 8, 13), (4, 40), (1000,)])
def test_first_and_deep_pages_read_through_the_bands_are_the_reference_order(
    generated: list[SkillEntry], monkeypatch: pytest.MonkeyPatch, band_ends: tuple[int, ...]
) -> None:
    # Every class that holds more than the ranks it must give goes through the bands; narrow
    # bands settle some and give up on others (then the class is listed whole).
    monkeypatch.setattr(search_module, "PREFIX", 12)
    monkeypatch.setattr(searchranking, "PREFIX", 12)
    monkeypatch.setattr(search_module, "BANDED_CLASS", 1)
    monkeypatch.setattr(scoreheads, "BAND_ENDS", band_ends)
    calls = counting_best_members(monkeypatch)
    index = search_module.SearchIndex(generated)
    queries = some_queries(generated, 150, 41)
    queries += [("code-review checklist", ()), ("c# tests", ()), (generated[5].id + " testing", ())]
    assert_pages_are_the_reference_order(index, queries, 12)
    for query, tags in queries[::5]:
        index._ranked.clear()
        deep = [hit.skill.id for hit in index.search(query, tags)[30:45]]
        assert deep == reference_order(index, query, tags)[30:45], (query, tags)
    assert calls["settled"] > 0
    if band_ends[0] == 1:
        assert calls["unsettled"] > 0


def plain_best(text: TextIndex, terms: Sequence[Term], among: list[int], wanted: int) -> list[int]:
    total = {p: sum(text.scores(term.stem).get(p, 0) for term in terms) for p in among}
    return sorted(among, key=lambda p: (-total[p], p))[:wanted]


def totals_of(index: search_module.SearchIndex, terms: Sequence[Term]) -> Callable[[list[int]], list[int]]:
    return lambda positions: index._totals(terms, positions)


def test_a_class_of_banded_class_members_is_read_through_the_bands_and_one_fewer_is_listed(
    generated: list[SkillEntry], monkeypatch: pytest.MonkeyPatch
) -> None:
    index = search_module.SearchIndex(generated)
    query = search_module.parse_query("docker testing")
    calls = counting_best_members(monkeypatch)
    monkeypatch.setattr(search_module, "BANDED_CLASS", 40)
    for count, banded in ((40, 1), (39, 0)):
        before = dict(calls)
        among = list(range(0, 2 * count, 2))
        found, scores = index._class_members(query, bitmap(among, len(generated)), 10)
        assert sum(calls.values()) - sum(before.values()) == banded
        if banded and calls["settled"] > before["settled"]:
            assert found == plain_best(index.text, query.terms, among, 10)
            assert scores == index._totals(query.terms, found)  # read in the bands, kept
        else:
            assert sorted(found) == among and scores == []
    # A class of no more members than wanted is listed whole.
    made = sum(calls.values())
    found, scores = index._class_members(query, bitmap(range(50), len(generated)), 50)
    assert sorted(found) == list(range(50)) and sum(calls.values()) == made and scores == []
    assert calls["settled"] == 1  # the class of 40 was settled by its bands


def test_best_members_are_those_of_a_plain_sort_or_none(generated: list[SkillEntry]) -> None:
    index = search_module.SearchIndex(generated)
    size = len(generated)
    settled = 0
    for text in ("docker testing", "python api review", "kubernetes", "zzzz nothing"):
        terms = search_module.parse_query(text).terms
        heads = [scoreheads.head_of(index.text, term.stem) for term in terms]
        for among in (list(range(size)), list(range(3, size, 7)), [1, 2]):
            for wanted in (wanted for wanted in (1, 2, 12, 41) if wanted < len(among)):
                bits = bitmap(among, size)
                found = scoreheads.best_members(heads, bits, wanted, size, totals_of(index, terms))
                if found is not None:  # else the class is listed whole
                    settled += 1
                    positions = [key % size for key in found]
                    assert positions == plain_best(index.text, terms, among, wanted), (text, wanted)
                    scores = [-(key // size) for key in found]
                    assert scores == index._totals(terms, positions), (text, wanted)
    assert settled >= 12


def test_a_head_keeps_the_first_band_ends_holders_by_score_and_the_score_past_each_band(
    generated: list[SkillEntry], monkeypatch: pytest.MonkeyPatch
) -> None:
    index = search_module.SearchIndex(generated)
    stem = search_module.parse_query("testing").terms[0].stem
    scores = index.text.scores(stem)
    ordered = sorted(scores, key=lambda p: (-scores[p], p))
    assert len(ordered) > 12
    size = len(generated)
    # The last band ends one before the last holder, at it, and past it.
    for last in (len(ordered) - 1, len(ordered), len(ordered) + 1):
        monkeypatch.setattr(scoreheads, "BAND_ENDS", (3, 7, last))
        head = scoreheads.head_of(index.text, stem)
        assert head.bands == (
            bitmap(ordered[:3], size),
            bitmap(ordered[3:7], size),
            bitmap(ordered[7:last], size),
        )
        past = scores[ordered[last]] if last < len(ordered) else 0
        assert head.below == (scores[ordered[3]], scores[ordered[7]], past)
    monkeypatch.setattr(scoreheads, "BAND_ENDS", (len(ordered), len(ordered) + 5))
    assert len(scoreheads.head_of(index.text, stem).bands) == 1  # no empty band kept


def test_an_index_keeps_head_stems_heads_the_least_recently_used_forgotten_first(
    generated: list[SkillEntry], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scoreheads, "HEAD_STEMS", 3)
    index = search_module.SearchIndex(generated)
    heads = scoreheads.ScoreHeads(index.text)
    stems = [term.stem for term in search_module.parse_query("docker testing python review").terms]
    first = heads.of(stems[0])
    heads.of(stems[1])
    heads.of(stems[2])
    assert len(heads) == 3 and heads.of(stems[0]) is first  # kept, and now the most recent
    heads.of(stems[3])
    assert len(heads) == 3
    assert heads.of(stems[0]) is first  # stems[1] was the least recent: forgotten
    assert list(heads._kept) == [stems[2], stems[3], stems[0]]
    assert heads.nbytes() > 0


def test_a_wanted_member_scoring_only_as_much_as_an_unread_one_is_not_settled() -> None:
    # Position 5 is read in the first band with score 7; a member past that band may score 7
    # too (below), and at a lower position it would rank first: not settled. Scoring 8, it is.
    size = 10
    among = bitmap(range(size), size)
    head = scoreheads.Head(bands=(bitmap([5], size),), below=(7,))
    for score, expected in ((7, None), (8, [5 - 8 * size])):
        found = scoreheads.best_members([head], among, 1, size, lambda read, s=score: [s] * len(read))
        assert found == expected
    # Every member read: settled whatever the bound.
    only = bitmap([5], size)
    assert scoreheads.best_members([head], only, 1, size, lambda read: [0] * len(read)) == [5]  # score 0
