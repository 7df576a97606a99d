"""Words, stop words and stems: how search reads text (docs/reference.md#search).

A word is a run of letters and digits (Unicode-aware: what `str.isalnum` accepts, plus the
combining marks that follow such a character, so that a word in a script with vowel signs
stays one word), case-folded. Everything else separates words: spaces, punctuation,
underscores, hyphens. Stop words are the common English function words listed in
stopwords.txt beside this module; they never match anything. Every other word is reduced to
its stem under Snowball's English stemmer, and two words match when their stems are equal
(`presentations` and `presentation`, `testing` and `tests`).

Queries and indexed text go through the same functions, so a query word and a text word are
compared on the same terms.
"""

import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Collection, Iterable, Iterator
from functools import cache
from itertools import filterfalse
from pathlib import Path

import Stemmer

STOP_WORDS_FILE = Path(__file__).with_name("stopwords.txt")
# Stems remembered per process (a word's stem never changes): a real registry's vocabulary
# is some tens of thousands of words; past this bound the table starts again.
STEM_CACHE_SIZE = 200_000
# Combining marks outside these ranges do not exist (the variation selectors supplement is
# the only block of them above the supplementary multilingual plane).
_MARK_RANGES = (range(0x20000), range(0xE0100, 0xE01F0))
# An ASCII byte that separates words, mapped to a space; letters lower-cased; every byte of a
# multi-byte UTF-8 character kept as it is (such a token takes the general path).
_ASCII_WORDS = bytes((b if chr(b).isalnum() else 32) if b < 128 else b for b in bytes(range(256)).lower())


def _read_stop_words() -> frozenset[str]:
    words: set[str] = set()
    for line in STOP_WORDS_FILE.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            words.update(word.casefold() for word in line.split())
    return frozenset(words)


STOP_WORDS: frozenset[str] = _read_stop_words()


@cache
def _mark_class() -> str:
    """The combining marks as a regular expression's class body, listed on first use (a few
    tens of milliseconds)."""
    marks: list[list[int]] = []  # [first, last] code point of each run of marks
    for block in _MARK_RANGES:
        for code in block:
            if unicodedata.category(chr(code)).startswith("M") and not chr(code).isalnum():
                if marks and marks[-1][1] == code - 1:
                    marks[-1][1] = code
                else:
                    marks.append([code, code])
    return "".join(f"{re.escape(chr(low))}-{re.escape(chr(high))}" for low, high in marks)


@cache
def _word_pattern() -> re.Pattern[str]:
    return re.compile(rf"[^\W_](?:[^\W_]|[{_mark_class()}])*")


@cache
def _word_rest() -> re.Pattern[str]:
    """What follows a word's first character up to its end (see _word_pattern)."""
    return re.compile(rf"(?:[^\W_]|[{_mark_class()}])*")


def spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, case-folded word) for each word of `text`, in order; start and end index
    `text` itself."""
    for match in _word_pattern().finditer(text):
        yield match.start(), match.end(), match.group().casefold()


def words(text: str) -> list[str]:
    """The case-folded words of `text`, in order, repeats kept."""
    return [word.casefold() for word in _word_pattern().findall(text)]


def in_word(text: str, index: int) -> bool:
    """Whether text[index] belongs to a word: a letter or digit, or a combining mark that
    follows one (through any other marks)."""
    while index >= 0:
        char = text[index]
        if char.isalnum():
            return True
        if not unicodedata.category(char).startswith("M"):
            return False
        index -= 1
    return False


class _Stems:
    """Snowball English through PyStemmer, one stemmer per thread (a stemmer keeps state
    while it works, so it must never be shared by two threads at once), behind one table of
    stems shared by every thread."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._known: dict[str, str | None] = {}

    def _stemmer(self) -> Stemmer.Stemmer:
        stemmer = getattr(self._local, "stemmer", None)
        if stemmer is None:
            stemmer = Stemmer.Stemmer("english")
            stemmer.maxCacheSize = 0  # the table below is the cache
            self._local.stemmer = stemmer
        return stemmer

    def of(self, word: str) -> str | None:
        """The stem of a case-folded word; None for a stop word."""
        known = self._known.get(word, "")
        if known != "":
            return known
        found = None if word in STOP_WORDS else self._stemmer().stemWord(word)
        if len(self._known) >= STEM_CACHE_SIZE:
            self._known = {}
        self._known[word] = found
        return found


_stems = _Stems()


def stem(word: str) -> str | None:
    """The stem of the case-folded `word`, or None when it is a stop word."""
    return _stems.of(word)


def stem_prefix(found: str) -> str:
    """What every word with the stem `found` begins with (see earliest_with_stem)."""
    return found[: max(1, len(found) - (2 if found.endswith("ie") else 1))]


def earliest_with_stem(text: str, stems: Collection[str]) -> tuple[int, int] | None:
    """(start, end) in `text` of its first word whose stem is one of `stems`, if any.

    Snowball's English stemmer rewrites only the end of a word: a word with stem s begins
    with s less its last letter (`happily` gives `happili`), or less its last two when s ends
    in "ie" (`dying` gives `die`); true of each of some 580,000 distinct words tried. Each
    such prefix is looked for with str.find in the case-folded text, and only the words it
    starts are stemmed. The text is read in growing pieces, cut between words, since the
    earliest match is usually near the start and case folding a long body costs more than
    the search."""
    prefixes = {stem_prefix(wanted) for wanted in stems}
    start, size = 0, _FIRST_PIECE
    rest = _word_rest()
    while start < len(text):
        end = min(start + size, len(text))
        if end < len(text) and in_word(text, end):
            # Inside a word: its end (every character after one in a word is in it while it
            # is a letter, a digit or a mark).
            found_end = rest.match(text, end)
            assert found_end is not None  # the pattern matches the empty string
            end = found_end.end()
        found = _earliest_in_piece(text[start:end], stems, prefixes)
        if found is not None:
            return start + found[0], start + found[1]
        start, size = end, size * 2
    return None


_FIRST_PIECE = 256


def _earliest_in_piece(piece: str, stems: Collection[str], prefixes: Iterable[str]) -> tuple[int, int] | None:
    folded = piece.casefold()
    if len(folded) != len(piece):
        # Case folding changed the length (an `ß`, an `İ`): positions in `folded` would not
        # be positions in `piece`, so every word is read instead.
        for start, end, word in spans(piece):
            if _stems.of(word) in stems:
                return start, end
        return None
    pattern = _word_pattern()
    best: tuple[int, int] | None = None
    for prefix in prefixes:
        search = _after_no_letter(prefix).search
        found = search(folded)
        while found is not None:
            start = found.start()
            if best is not None and start >= best[0]:
                break
            # No letter or digit before (the pattern's look-behind): a word starts here unless
            # the character before is a combining mark that follows one (never an ASCII one).
            if start == 0 or folded[start - 1].isascii() or not in_word(folded, start - 1):
                match = pattern.match(folded, start)
                if match is not None and _stems.of(match.group()) in stems:
                    best = (start, match.end())
                    break
            found = search(folded, start + 1)
    return best


# A run of bytes that may hold a word of UTF-8 text: ASCII letters and digits and every byte of
# a multi-byte character. Words never hold an ASCII byte of any other kind, so a text cut where
# such a run ends is cut between words.
_UTF8_RUN = re.compile(rb"[0-9A-Za-z\x80-\xff]*")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def fold_stable(text: str) -> bool:
    """Whether case folding `text` only lower-cases its ASCII letters (each other character
    folds to itself): then the UTF-8 of its case-folded text is its UTF-8 with bytes.lower,
    and earliest_with_stem_utf8 may read it. Not so with `K` (Kelvin) or `ſ`, which fold to
    ASCII, `ß` or `İ`, which fold longer, or any capital outside ASCII."""
    return text.isascii() or all(char.casefold() == char for char in set(_NON_ASCII.findall(text)))


def earliest_with_stem_utf8(data: bytes, stems: Collection[str]) -> tuple[int, int] | None:
    """earliest_with_stem of the text whose UTF-8 (lone surrogates as "surrogatepass" writes
    them) is `data`, as byte offsets into `data`, for a text that is fold_stable: the same
    prefixes are found by the same patterns in pieces of `data` lower-cased, with no decoding
    but of the words found."""
    prefixes = {stem_prefix(wanted).encode("utf-8", "surrogatepass") for wanted in stems}
    # Bytes are lower-cased for far less than text is case-folded: a larger first piece
    # (docs/benchmarks.md, "Excerpts, session 5").
    start, size = 0, 4 * _FIRST_PIECE
    while start < len(data):
        end = min(start + size, len(data))
        if end < len(data):
            end = _match(_UTF8_RUN, data, end).end()
        found = _earliest_in_utf8_piece(data, start, end, stems, prefixes)
        if found is not None:
            return found
        start, size = end, size * 2
    return None


def _earliest_in_utf8_piece(
    data: bytes, first: int, last: int, stems: Collection[str], prefixes: Iterable[bytes]
) -> tuple[int, int] | None:
    piece = data[first:last].lower()
    pattern = _word_pattern()
    best: tuple[int, int] | None = None
    for prefix in prefixes:
        search = _after_no_letter_utf8(prefix).search
        found = search(piece)
        while found is not None:
            start = found.start()
            if best is not None and start >= best[0]:
                break
            # The piece starts after an ASCII byte that is no letter (or at the text's start),
            # the pattern rules out an ASCII letter or digit before: left is a character
            # outside ASCII, which may be a letter or a mark that follows one.
            if start == 0 or piece[start - 1] < 0x80 or not _in_word_before(data, first + start):
                run = _match(_UTF8_RUN, piece, start).group()
                if run.isascii():
                    word: str | None = run.decode("ascii")
                else:
                    match = pattern.match(run.decode("utf-8", "surrogatepass"))
                    word = match.group() if match is not None else None
                if word and _stems.of(word) in stems:
                    best = (start, start + len(word.encode("utf-8", "surrogatepass")))
                    break
            found = search(piece, start + 1)
    return None if best is None else (first + best[0], first + best[1])


def _match(pattern: re.Pattern[bytes], data: bytes, start: int) -> re.Match[bytes]:
    found = pattern.match(data, start)
    assert found is not None  # the pattern matches the empty string
    return found


def _in_word_before(data: bytes, end: int) -> bool:
    """in_word of the character that ends at byte `end` of the UTF-8 `data`."""
    while end > 0:
        start = end - 1
        while start > 0 and data[start] & 0xC0 == 0x80:  # a continuation byte
            start -= 1
        char = data[start:end].decode("utf-8", "surrogatepass")
        if char.isalnum():
            return True
        if not unicodedata.category(char).startswith("M"):
            return False
        end = start
    return False


_prefix_patterns_utf8: dict[bytes, re.Pattern[bytes]] = {}


def _after_no_letter_utf8(prefix: bytes) -> re.Pattern[bytes]:
    """_after_no_letter for lower-cased UTF-8: no ASCII letter or digit before `prefix` (the
    caller tests a character outside ASCII)."""
    found = _prefix_patterns_utf8.get(prefix)
    if found is None:
        if len(_prefix_patterns_utf8) >= PREFIX_PATTERNS:
            _prefix_patterns_utf8.clear()
        escaped = re.escape(prefix)
        found = _prefix_patterns_utf8[prefix] = re.compile(rb"%s(?<![0-9a-z]%s)" % (escaped, escaped))
    return found


# Patterns of _after_no_letter kept (one per stem prefix of the queries, each compiled once);
# past this bound the table starts again.
PREFIX_PATTERNS = 4096
_prefix_patterns: dict[str, re.Pattern[str]] = {}


def _after_no_letter(prefix: str) -> re.Pattern[str]:
    """`prefix` where no letter or digit precedes it: each place a word may start with it."""
    found = _prefix_patterns.get(prefix)
    if found is None:
        if len(_prefix_patterns) >= PREFIX_PATTERNS:
            _prefix_patterns.clear()
        # The literal first, so that the engine scans for it as str.find does; then the
        # look-behind, over the prefix and the character before it.
        escaped = re.escape(prefix)
        found = _prefix_patterns[prefix] = re.compile(rf"{escaped}(?<![^\W_]{escaped})")
    return found


def word_counts(text: str) -> tuple[dict[bytes, int], int]:
    """How often each word of `text` that is not a stop word occurs (words as UTF-8 bytes),
    and how many such words there are: what the index keeps of a field. The same words as
    `words(text)`, only faster: the text is split as UTF-8 bytes (ASCII separators become
    spaces, ASCII letters lower case), and only the tokens holding a non-ASCII character
    (which may be several words, or none) are read again as text."""
    translated = text.encode("utf-8", "surrogatepass").translate(_ASCII_WORDS)
    counts = Counter(translated.split())
    if not text.isascii():
        for token in list(filterfalse(bytes.isascii, counts)):
            count = counts.pop(token)
            for word in words(token.decode("utf-8", "surrogatepass")):
                counts[word.encode("utf-8", "surrogatepass")] += count
    for stop_word in counts.keys() & _STOP_TOKENS:
        dict.__delitem__(counts, stop_word)  # (Counter's own __delitem__ is Python code)
    return counts, sum(counts.values())


def token_stem(token: bytes) -> str:
    """The stem of a word of word_counts."""
    found = _stems.of(token.decode("utf-8", "surrogatepass"))
    assert found is not None  # word_counts leaves no stop word
    return found


_STOP_TOKENS = frozenset(word.encode() for word in STOP_WORDS)
