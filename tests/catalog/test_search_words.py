"""How search reads text: words, stop words, stems (catalog.textwords)."""

import re
from collections import Counter
from collections.abc import Collection
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog import textwords
from catalog.searchhits import excerpt_at, excerpt_at_utf8
from catalog.textwords import (
    STOP_WORDS,
    earliest_with_stem,
    earliest_with_stem_utf8,
    fold_stable,
    in_word,
    spans,
    stem,
    stem_prefix,
    token_stem,
    word_counts,
    words,
)


def excerpt_around(text: str, stems: Collection[str], excerpt_chars: int) -> str:
    """The text path's excerpt: at most `excerpt_chars` characters of `text` centred on its
    earliest word with one of `stems`, as catalog.searchhits.excerpt_of cuts a field."""
    if len(text) <= excerpt_chars:
        return text
    return excerpt_at(text, earliest_with_stem(text, stems), excerpt_chars)


def excerpt_around_utf8(data: bytes, stems: Collection[str], excerpt_chars: int) -> str:
    """The byte path's excerpt of the fold_stable text whose UTF-8 is `data`."""
    if len(data) <= excerpt_chars:  # no more characters than bytes
        return data.decode("utf-8", "surrogatepass")
    return excerpt_at_utf8(data, earliest_with_stem_utf8(data, stems), excerpt_chars)


CORPUS = Path(__file__).resolve().parents[2] / "bench" / "search" / "corpus"


def test_words_are_runs_of_letters_and_digits_case_folded() -> None:
    assert words("Fill the PDF-form: v2.1, user_name; don't") == [
        "fill",
        "the",
        "pdf",
        "form",
        "v2",
        "1",
        "user",
        "name",
        "don",
        "t",
    ]


def test_words_are_unicode_aware() -> None:
    assert words("Café naïve STRASSE straße Ünïcödé") == ["café", "naïve", "strasse", "strasse", "ünïcödé"]
    # A combining mark stays in the word it follows (vowel signs of Devanagari, an accent).
    assert words("हिन्दी भाषा") == ["हिन्दी", "भाषा"]
    assert words("cafe\u0301 ok") == ["cafe\u0301", "ok"]
    # Punctuation and symbols outside ASCII separate words too.
    assert words("alpha\u2014beta\u00a0gamma «delta»") == ["alpha", "beta", "gamma", "delta"]


def test_spans_index_the_original_text() -> None:
    text = "Go to İstanbul, then PDF"
    found = list(spans(text))
    assert [(text[start:end], word) for start, end, word in found] == [
        ("Go", "go"),
        ("to", "to"),
        ("İstanbul", "i̇stanbul"),
        ("then", "then"),
        ("PDF", "pdf"),
    ]


def test_the_shipped_stop_word_list_holds_function_words_only() -> None:
    listed = textwords.STOP_WORDS_FILE.read_text(encoding="utf-8")
    assert textwords.STOP_WORDS_FILE.parent == Path(textwords.__file__).parent
    for word in ("a", "an", "the", "to", "of", "for", "with", "my", "is", "how", "us"):
        assert word in STOP_WORDS
    # Names of things and tasks are never stop words, however common.
    for word in ("use", "make", "file", "test", "go", "c", "r", "data", "pdf"):
        assert word not in STOP_WORDS
    assert "# " in listed  # the file documents itself
    assert all(word == word.casefold() and re.fullmatch(r"[^\W_]+", word) for word in STOP_WORDS)


def test_stems_join_inflections_and_stop_words_have_none() -> None:
    assert stem("presentations") == stem("presentation")
    assert stem("testing") == stem("tests") == stem("test")
    assert stem("regulate") == stem("regulation")
    assert stem("form") != stem("format")
    assert stem("us") is None
    assert stem("use") != stem("user")
    assert stem("the") is None


# Text made of pieces that exercise every path: ASCII words and separators, stop words,
# characters whose case folding changes length or makes a letter of a mark, non-ASCII
# separators, marks after a separator.
PIECES = [
    *"abcXYZ019 -_.,'\n\t",
    *["é", "ß", "İ", "\u0301", "\u2014", "\u00a0", "ﬁ", "Σ", "ι", "\u0345", "あ"],
    *["the ", "Tests ", "testing ", "a ", "PDFs "],
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_word_counts_count_the_words_that_are_not_stop_words(text: str) -> None:
    counts, length = word_counts(text)
    expected = Counter(word for word in words(text) if stem(word) is not None)
    assert {token.decode("utf-8", "surrogatepass"): n for token, n in counts.items()} == expected
    assert length == sum(expected.values())


def test_word_counts_keep_a_lone_surrogate_without_failing() -> None:
    counts, length = word_counts("alpha \ud800 beta")
    assert set(counts) == {b"alpha", b"beta"} and length == 2


def test_token_stem_is_the_stem_of_the_word() -> None:
    assert token_stem(b"presentations") == stem("presentations")
    assert token_stem("naïve".encode()) == stem("naïve")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from([*"ab tesingTESÉé.-", "\u0301", "İ", "dying ", "tests ", "\u212a", "ſ", "—", "ß"]),
        max_size=40,
    ).map("".join),
    st.sampled_from([("test",), ("die",), ("a",), ("test", "die"), ("é",)]),
)
def test_the_earliest_word_with_a_stem_is_the_first_one_reading_word_by_word(
    text: str, wanted: tuple[str, ...]
) -> None:
    stems = {stem(word) or word for word in wanted}
    expected = next(((start, end) for start, end, word in spans(text) if stem(word) in stems), None)
    for first_piece in (1, 3, 256):  # the text is read in pieces: small ones cross every boundary
        with patch.object(textwords, "_FIRST_PIECE", first_piece):
            assert earliest_with_stem(text, stems) == expected


# Characters that fold to themselves (a dash, marks, a small letter, a lone surrogate, kana)
# and characters that do not: Kelvin sign and long s fold to ASCII, sharp s, dotted capital I
# and the ligature fold longer, a capital outside ASCII to another letter, ypogegrammeni (a
# mark) to a letter.
STABLE = ["\u2014", "\u0301", "\u0308", "é", "ü", "\ud800", "あ", "\u00a0", "ι"]
UNSTABLE = ["\u212a", "ſ", "ß", "İ", "ﬁ", "É", "Σ", "\u0345"]
STABLE_PIECES = [*"ab tesingTESé.-_", "dying ", "tests ", "Testé "]


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(  # mostly texts that fold to themselves, which the UTF-8 path reads
        *[st.lists(st.sampled_from([*STABLE_PIECES, *STABLE]), max_size=60)] * 3,
        st.lists(st.sampled_from([*"ab tesingTES.-", "tests ", *STABLE, *UNSTABLE]), max_size=30),
    ).map("".join),
    st.sampled_from([("test",), ("die",), ("a",), ("test", "die"), ("é",), ("testé",)]),
)
def test_the_earliest_word_in_utf8_is_the_earliest_in_the_text_when_folding_keeps_it(
    text: str, wanted: tuple[str, ...]
) -> None:
    assert fold_stable(text) == (text.casefold().encode("utf-8", "surrogatepass") == _utf8(text).lower())
    assert fold_stable(text) == (not any(char in text for char in UNSTABLE))
    if not fold_stable(text):
        return
    stems = {stem(word) or word for word in wanted}
    expected = earliest_with_stem(text, stems)
    for first_piece in (1, 3, 256):  # pieces of every size, cut inside characters too
        with patch.object(textwords, "_FIRST_PIECE", first_piece):
            found = earliest_with_stem_utf8(_utf8(text), stems)
            assert (None if found is None else tuple(_chars(text, at) for at in found)) == expected
            for excerpt_chars in (1, 4, 9, 30):
                assert excerpt_around_utf8(_utf8(text), stems, excerpt_chars) == excerpt_around(
                    text, stems, excerpt_chars
                )


def test_an_excerpt_of_utf8_is_cut_at_characters_of_four_bytes() -> None:
    text = "\U0001f600" * 50 + " testing " + "\U0001f600" * 50 + "—é"
    assert fold_stable(text)
    for excerpt_chars in (1, 2, 10, 57, 99, 108, 109, 200):
        for wanted in ({stem("test")}, {stem("absent")}):
            assert excerpt_around_utf8(_utf8(text), wanted, excerpt_chars) == excerpt_around(
                text, wanted, excerpt_chars
            )


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _chars(text: str, byte_offset: int) -> int:
    """The character offset in `text` of a byte offset into its UTF-8."""
    return len(_utf8(text)[:byte_offset].decode("utf-8", "surrogatepass"))


def test_the_prefix_patterns_start_again_past_their_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(textwords, "PREFIX_PATTERNS", 2)
    monkeypatch.setattr(textwords, "_prefix_patterns", {})
    text = "Latest notes: a contest of tests, then dying plants and forms."
    expected = {"test": (27, 32), "die": (39, 44), "plant": (45, 51), "form": (56, 61)}
    for _ in range(2):
        for found, place in expected.items():
            assert earliest_with_stem(text, {stem(found) or found}) == place
            assert len(textwords._prefix_patterns) <= 2
    assert earliest_with_stem(text, {stem("test"), stem("form")}) == (27, 32)


def test_every_word_begins_with_the_prefix_of_its_stem() -> None:
    """What earliest_with_stem relies on, checked over the evaluation corpus's words and the
    forms the stemmer treats specially."""
    vocabulary = {word for path in CORPUS.glob("*/SKILL.md") for word in words(path.read_text())}
    vocabulary |= {"dying", "lying", "tying", "skies", "early", "gently", "happily", "hoping", "agreed"}
    vocabulary |= {"operational", "probability", "cookies", "ied", "news", "idly", "singly"}
    assert len(vocabulary) > 3000
    for word in vocabulary:
        found = stem(word)
        if found is not None:
            assert word.startswith(stem_prefix(found)), (word, found)
    assert stem_prefix("die") == "d" and stem_prefix("happili") == "happil" and stem_prefix("a") == "a"


@pytest.mark.parametrize(
    ("text", "index", "inside"),
    [("ab", 1, True), ("a b", 1, False), ("e\u0301", 1, True), (" \u0301", 1, False), ("-", 0, False)],
)
def test_in_word_tells_word_characters_from_separators(text: str, index: int, inside: bool) -> None:
    assert in_word(text, index) is inside
