"""The cold path of search (catalog.search): a ranking worked out from remembered term scores,
its first pages picked without sorting every match and the rest ordered only when a deeper
page is read, is the order of docs/reference.md#search exactly, on every page."""

from array import array

import pytest

from bench.cold import search_queries
from bench.search.cpu import generated_skills, queries
from bench.search.run import load_corpus, load_queries
from catalog import search as search_module
from catalog import searchlabels, searchranking, textindex
from catalog.entries import SkillEntry
from catalog.search import SearchIndex, parse_query
from catalog.searchbits import bitmap


def reference_order(index: SearchIndex, query: str, tags: tuple[str, ...]) -> list[str]:
    """Every match sorted by the documented key, computed afresh with no cache, no packing
    and no partial selection: (exact, tag count, keyword count, text score) higher first,
    then id."""
    parsed = parse_query(query)
    skills = index.skills
    exact = {p for p, s in enumerate(skills) if parsed.whole in (s.id.casefold(), s.name.casefold())}
    wanted = {tag.casefold() for tag in tags}
    allowed = {p for p, s in enumerate(skills) if wanted <= {tag.casefold() for tag in s.tags}}
    if not parsed.terms:
        return sorted(skills[p].id for p in exact & allowed)
    tag_counts = index._tags.counts(parsed)
    keyword_counts = index._keywords.counts(parsed)
    scores: dict[int, int] = {}
    for term in parsed.terms:
        for position, score in index.text.scores(term.stem).items():
            scores[position] = scores.get(position, 0) + score
    matching = (exact | set(tag_counts) | set(keyword_counts) | set(scores)) & allowed
    keys = sorted(
        (
            -(p in exact),
            -tag_counts.get(p, 0),
            -keyword_counts.get(p, 0),
            -scores.get(p, 0),
            skills[p].id,
        )
        for p in matching
    )
    return [key[-1] for key in keys]


def read_in_pages(index: SearchIndex, query: str, tags: tuple[str, ...], page: int) -> list[str]:
    """Every result, read page by page from the first, as a client following cursors does."""
    results = index.search(query, tags)
    found: list[str] = []
    for start in range(0, len(results), page):
        found.extend(hit.skill.id for hit in results[start : start + page])
    return found


def some_queries(skills: list[SkillEntry], count: int, seed: int) -> list[tuple[str, tuple[str, ...]]]:
    """The cold bench's two-word queries, the CPU bench's one- to three-word queries of the
    generator's words, ids and names asked whole, stop words alone, and every third query
    filtered by one tag, every seventh by two (seeded draws, so every run asks the same)."""
    texts = search_queries(count // 2, seed) + queries(count // 3, seed)
    texts += [s.id for s in skills[::60]] + [s.name for s in skills[7::60]] + ["the", "", "and of"]
    tag_pool = sorted({tag for s in skills for tag in s.tags}) or ["none"]
    found = []
    for number, text in enumerate(texts):
        tags: tuple[str, ...] = ()
        if number % 3 == 0:
            tags = (tag_pool[number % len(tag_pool)],)
        if number % 7 == 0:
            tags += (tag_pool[(number // 7) % len(tag_pool)],)
        found.append((text, tags))
    return found


@pytest.fixture(scope="module")
def generated() -> list[SkillEntry]:
    return generated_skills(300, 7)


def assert_pages_are_the_reference_order(
    index: SearchIndex, queries: list[tuple[str, tuple[str, ...]]], page: int
) -> None:
    for query, tags in queries:
        assert read_in_pages(index, query, tags, page) == reference_order(index, query, tags), (query, tags)


def test_every_page_of_a_cold_query_is_the_reference_order_over_the_generated_corpus(
    generated: list[SkillEntry],
) -> None:
    index = SearchIndex(generated)
    for query, tags in some_queries(generated, 300, 18):
        expected = reference_order(index, query, tags)
        index._ranked.clear()
        assert read_in_pages(index, query, tags, 20) == expected, (query, tags)
        # A deep page read first, before any first page: the same order.
        index._ranked.clear()
        results = index.search(query, tags)
        assert [hit.skill.id for hit in results[60:]] == expected[60:], (query, tags)


def test_the_order_holds_with_every_stem_dense_and_with_none(
    generated: list[SkillEntry], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Share 1: only a stem (or label) every skill holds keeps a bitmap, and no stem is dense;
    # a huge share: every one does (and every stem is dense).
    for share, dense_stems in ((1, 0), (1 << 30, 1 << 30)):
        monkeypatch.setattr(textindex, "DENSE_SHARE", share)
        monkeypatch.setattr(textindex, "DENSE_STEMS", dense_stems)
        monkeypatch.setattr(textindex, "BITMAP_SHARE", share)
        monkeypatch.setattr(searchlabels, "BITMAP_SHARE", share)
        index = SearchIndex(generated)
        assert_pages_are_the_reference_order(index, some_queries(generated, 60, 5), 7)


def test_first_pages_picked_from_the_label_classes_are_the_reference_order(
    generated: list[SkillEntry], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A first ranking of 12 ranks: the label matches of most two-word topic queries fill it,
    # so their first pages come from the best label classes alone, counted by bitmaps.
    monkeypatch.setattr(search_module, "PREFIX", 12)
    monkeypatch.setattr(searchranking, "PREFIX", 12)
    index = SearchIndex(generated)
    queries = some_queries(generated, 120, 23)
    by_labels = 0
    for query, tags in queries:
        parsed = parse_query(query)
        exact = set(index._by_exact.get(parsed.whole, ()))
        if parsed.terms and index._by_labels(parsed, tags, exact, index._tagged(tags)) is not None:
            by_labels += 1
    assert by_labels >= len(queries) // 4
    assert_pages_are_the_reference_order(index, queries, 12)


def test_every_page_is_the_reference_order_over_the_search_benchmark_corpus() -> None:
    skills = sorted(load_corpus(), key=lambda s: s.id)
    index = SearchIndex(skills)
    queries = [(case.query, ()) for case in load_queries()] + some_queries(skills, 120, 3)
    assert_pages_are_the_reference_order(index, queries, 3)


def test_skills_given_out_of_id_order_rank_by_id_all_the_same(generated: list[SkillEntry]) -> None:
    shuffled = sorted(generated, key=lambda s: s.id[::-1])
    index = SearchIndex(shuffled)
    assert_pages_are_the_reference_order(index, some_queries(generated, 90, 11), 20)


def test_deeper_pages_picked_a_few_at_a_time_are_the_reference_order(
    generated: list[SkillEntry], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A first ranking of 3 ranks: reading on picks 12, 48, ... smallest keys, then sorts them all
    # (every query ranks every match, the path that keeps keys).
    monkeypatch.setattr(search_module, "LABEL_PASSES", -1)
    monkeypatch.setattr(search_module, "PREFIX", 3)
    monkeypatch.setattr(searchranking, "PREFIX", 3)
    index = SearchIndex(generated)
    for query, tags in some_queries(generated, 60, 9):
        assert read_in_pages(index, query, tags, 5) == reference_order(index, query, tags), (query, tags)
        index._ranked.clear()
        deep = [hit.skill.id for hit in index.search(query, tags)[40:50]]
        assert deep == reference_order(index, query, tags)[40:50], (query, tags)


def test_a_ranking_whose_keys_are_not_kept_ranks_again_for_a_deeper_page(
    generated: list[SkillEntry], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every key is below 0, so none is kept: reading past the prefix ranks the query again
    # (every query ranks every match, the path that keeps keys).
    monkeypatch.setattr(search_module, "LABEL_PASSES", -1)
    monkeypatch.setattr(search_module, "KEPT_KEY_MIN", 0)
    index = SearchIndex(generated)
    assert_pages_are_the_reference_order(index, some_queries(generated, 60, 13), 20)


def test_a_query_of_fewer_label_matches_than_the_prefix_ranks_its_text_matches_as_the_last_class(
    generated: list[SkillEntry], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A first ranking of 12 ranks: the skills matching by text only are the last class (exact,
    # tag and keyword count 0), listed whole or read through the bands (BANDED_CLASS 1).
    monkeypatch.setattr(search_module, "PREFIX", 12)
    monkeypatch.setattr(searchranking, "PREFIX", 12)
    for banded in (1, 1 << 30):
        monkeypatch.setattr(search_module, "BANDED_CLASS", banded)
        index = SearchIndex(generated)
        few = []
        for query, tags in [*some_queries(generated, 200, 47), ("zzzz qqqq", ()), ("workflow", ())]:
            parsed = parse_query(query)
            if not parsed.terms:
                continue
            labelled = index._tags.holders(parsed) | index._keywords.holders(parsed)
            if (labelled | bitmap(index._by_exact.get(parsed.whole, ()), len(generated))).bit_count() >= 12:
                continue
            few.append((query, tags))
            # Ranked by labels all the same, not by every match's key, its first ranks all known.
            ranking = index._by_labels(parsed, tags, set(), index._tagged(tags))
            assert ranking is not None, query
            assert len(ranking.positions) == min(12, ranking.count), query
        assert len(few) >= 20
        assert ("zzzz qqqq", ()) in few and len(index.search("zzzz qqqq")) == 0
        assert_pages_are_the_reference_order(index, few, 12)
        for query, tags in few[::3]:
            index._ranked.clear()
            deep = [hit.skill.id for hit in index.search(query, tags)[20:40]]
            assert deep == reference_order(index, query, tags)[20:40], (query, tags)


def test_a_query_of_more_label_postings_than_label_passes_ranks_every_match(
    generated: list[SkillEntry], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_module, "PREFIX", 3)
    monkeypatch.setattr(searchranking, "PREFIX", 3)
    index = SearchIndex(generated)
    parsed = parse_query("kubernetes terraform")  # two tags and a keyword (terraform): 2 * 2 passes
    monkeypatch.setattr(search_module, "LABEL_PASSES", 4)
    assert index._by_labels(parsed, (), set(), None) is not None
    monkeypatch.setattr(search_module, "LABEL_PASSES", 3)
    assert index._by_labels(parsed, (), set(), None) is None
    assert_pages_are_the_reference_order(index, some_queries(generated, 30, 31), 3)


@pytest.mark.parametrize("count", [0, 1, 5, 41, 99, 100, 150])
def test_the_smallest_keys_are_those_of_a_sort(count: int) -> None:
    keys = [(7919 * n) % 1000 - 500 for n in range(100)]
    assert searchranking.smallest(iter(keys), count) == sorted(keys)[:count]
    assert searchranking.smallest(array("q", keys), count) == sorted(keys)[:count]


def test_keys_at_most_sorted_share_times_the_count_are_sorted_and_more_are_heaped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    heaped: list[int] = []
    real = searchranking.heapq.heapify
    monkeypatch.setattr(searchranking.heapq, "heapify", lambda heap: (heaped.append(len(heap)), real(heap)))
    share = searchranking.SORTED_SHARE
    for extra in (0, 1):
        keys = [(7919 * n) % 1000 - 500 for n in range(share * 10 + extra)]
        assert searchranking.smallest(keys, 10) == sorted(keys)[:10]
    assert heaped == [share * 10 + 1]
