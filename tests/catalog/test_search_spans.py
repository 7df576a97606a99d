"""The earliest word with each stem, remembered per search index (catalog.searchspans): the
excerpts read through it are the ones worked out directly, its bound holds at its edge, and
threads sharing it never see a wrong span."""

import random
import sys
import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from itertools import combinations
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog import searchhits, searchspans
from catalog.entries import SkillEntry
from catalog.search import SearchIndex
from catalog.searchhits import earliest_in, excerpt_at, excerpt_at_utf8, excerpt_of
from catalog.searchspans import EarliestSpans
from catalog.textwords import spans, stem
from tests.catalog.search_support import skill

WORDS = ["tests ", "testing ", "dying ", "die ", "forms ", "format ", "Testé ", "the "]
# Separators and characters of every path: the em dash (a fold_stable body outside ASCII),
# marks, and characters that do not fold to themselves (the body is then read as text).
PIECES = [*WORDS, *"ab .-", "\u2014", "\u0301", "é", "\U0001f600", "\u212a", "ß", "İ"]
STEMS = sorted({stem(word.strip().casefold()) or "" for word in WORDS} - {""})
QUERIES = ["test", "test die", "die form", "form test format", "testé tests", "format"]

texts = st.lists(st.sampled_from(PIECES), max_size=50).map("".join)


def _skills(bodies: list[tuple[str, str]]) -> list[SkillEntry]:
    return [skill(f"s{n:02}", description=d, body=b) for n, (d, b) in enumerate(bodies)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(texts, texts), min_size=1, max_size=6))
def test_the_earliest_of_a_set_of_stems_is_the_earliest_of_each_stems(bodies: list[tuple[str, str]]) -> None:
    skills = _skills(bodies)
    spans = EarliestSpans(skills, earliest_in)
    for _ in range(2):  # found, then read back
        for position, entry in enumerate(skills):
            for field in (2, 4):
                for size in (3, 2, 1):  # sets first, before their stems are kept alone
                    for stems in combinations(STEMS, size):
                        assert spans.earliest(position, field, stems) == earliest_in(entry, field, stems)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(texts, texts), min_size=1, max_size=6), st.sampled_from([1, 9, 30, 240]))
def test_excerpts_through_the_index_are_the_ones_worked_out_directly(
    bodies: list[tuple[str, str]], excerpt_chars: int
) -> None:
    index = SearchIndex(_skills(bodies))
    for _ in range(2):
        for query in QUERIES:
            index._ranked.clear()  # each query cold, its stems remembered
            results = index.search(query)
            fields = index.matchers(results.query).fields
            for hit in results:
                position = index.skills.index(hit.skill)
                held = [(term, read(position)) for term, read in fields]
                assert hit.excerpt(excerpt_chars) == excerpt_of(hit.skill, held, excerpt_chars)


def test_the_spans_start_again_past_their_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(searchspans, "EXCERPT_SPANS", 4)
    skills = _skills([("tests and forms", "dying forms"), ("forms", "tests die")])
    spans = EarliestSpans(skills, earliest_in)
    wanted = [(0, 2, stem("test")), (0, 4, stem("form")), (1, 2, stem("form")), (1, 4, stem("die"))]
    for count, (position, field, found) in enumerate(wanted, 1):
        assert spans.earliest(position, field, (found,)) == earliest_in(skills[position], field, (found,))
        assert len(spans) == count  # up to the bound, every span kept
    for position, field, found in wanted:  # read back: nothing is found again
        assert spans.earliest(position, field, (found,)) == earliest_in(skills[position], field, (found,))
    assert len(spans) == 4
    assert spans.earliest(1, 4, (stem("test"),)) == (0, 5)  # one more: the table starts again
    assert len(spans) == 1
    assert spans.earliest(0, 2, (stem("test"),)) == (0, 5)
    assert len(spans) == 2


class _Counted:
    """earliest_in, counting its calls and letting other threads run in the middle."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(
        self, entry: SkillEntry, field: int, stems: Collection[str], text: str | bytes | None = None
    ) -> tuple[int, int] | None:
        self.calls += 1
        found = earliest_in(entry, field, stems, text)
        threading.Event().wait(0)  # a switch between finding a span and keeping it
        return found


@contextmanager
def _switching_often() -> Iterator[None]:
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


@pytest.mark.parametrize("bound", [3, 1000])
def test_threads_sharing_the_spans_read_only_right_ones(monkeypatch: pytest.MonkeyPatch, bound: int) -> None:
    monkeypatch.setattr(searchspans, "EXCERPT_SPANS", bound)
    texts = ["—tests and forms", "dying forms, format", "forms", "tests die — format ß", "Testé tests", "x"]
    skills = _skills([(a, b) for a in texts for b in texts])
    search = _Counted()
    spans = EarliestSpans(skills, search)
    asked = [(p, f, s) for p in range(len(skills)) for f in (2, 4) for s in combinations(STEMS, 2)]
    expected = {key: earliest_in(skills[key[0]], key[1], key[2]) for key in asked}
    wrong: list[tuple[int, int, tuple[str, ...]]] = []

    def read(seed: int) -> None:
        order = random.Random(seed).choices(asked, k=3000)  # noqa: S311 (an order of reads)
        for key in order:
            if spans.earliest(*key) != expected[key]:
                wrong.append(key)

    threads = [threading.Thread(target=read, args=(seed,)) for seed in range(6)]
    with _switching_often():
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert wrong == []
    assert len(spans) <= bound
    if bound == 1000:  # everything fits: each span found about once (a race may find it twice)
        assert search.calls < 2 * len(skills) * 2 * len(STEMS)


def test_a_stems_arrays_are_never_changed_once_published() -> None:
    """What lets readers go without the lock: a new span makes new arrays."""
    skills = _skills([("forms", "x"), ("tests", "y"), ("test forms", "z")])
    spans = EarliestSpans(skills, earliest_in)
    spans.earliest(1, 2, (stem("test"),))
    positions, found = spans._spans[(2, stem("test"))]
    before = (positions.tolist(), found.tolist())
    spans.earliest(0, 2, (stem("test"),))
    spans.earliest(2, 2, (stem("test"),))
    assert (positions.tolist(), found.tolist()) == before
    assert spans._spans[(2, stem("test"))][0].tolist() == [0, 1, 2]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([*"ab -", "tests ", "\u2014", "é", "\U0001f600", "\u0301"]), max_size=80).map(
        "".join
    ),
    st.integers(0, 90),
    st.sampled_from([0, 1, 2, 7, 32]),
    st.integers(1, 60),
)
def test_an_excerpt_decodes_its_characters_only_whatever_the_slack(
    text: str, at: int, slack: int, excerpt_chars: int
) -> None:
    """excerpt_at_utf8 around any word (or none) is excerpt_at of the text, whether the bytes
    decoded first hold enough characters or have to be read again."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= excerpt_chars:
        return
    words = [(start, end) for start, end, _ in spans(text)]
    found = words[at % len(words)] if words and at < 80 else None
    in_bytes = None if found is None else tuple(len(text[:i].encode("utf-8", "surrogatepass")) for i in found)
    with patch.object(searchhits, "UTF8_SLACK", slack):
        found_text = excerpt_at_utf8(data, in_bytes, excerpt_chars)
    # (excerpt_at reads a text longer than the excerpt; a shorter one is its own excerpt)
    assert found_text == (text if len(text) <= excerpt_chars else excerpt_at(text, found, excerpt_chars))


def test_a_hits_excerpt_unpacks_its_body_once_whatever_the_stems_missed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every stem the spans miss is searched in the body the excerpt already unpacked."""
    body = "Some words first, then forms and tests and dying, more " * 8
    index = SearchIndex(_skills([("nothing here", body), ("nothing either", "x " + body)]))
    unpacked = 0
    unpack = SkillEntry.instructions_utf8

    def counted(entry: SkillEntry) -> bytes:
        nonlocal unpacked
        unpacked += 1
        return unpack(entry)

    monkeypatch.setattr(SkillEntry, "instructions_utf8", counted)
    results = index.search("form test die")
    assert len(results) == 2
    for hit in results:
        held = hit._text_fields()
        unpacked = 0
        found = hit.excerpt(40)
        assert unpacked == 1  # three stems missed, one body unpacked
        assert found == excerpt_of(hit.skill, held, 40)
