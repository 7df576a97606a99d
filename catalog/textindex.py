"""The text score of search: BM25F over a skill's name, description and body
(docs/reference.md#search).

For a term t (a stem) and a skill d, with tf(t, f, d) the times t occurs in field f of d and
len(f, d) the words of that field (stop words not counted):

    tf~(t, d)  = sum over f of  W[f] * tf(t, f, d) / (1 - B[f] + B[f] * len(f, d) / avglen(f))
    idf(t)     = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
    score(t, d) = idf(t) * tf~ * (K1 + 1) / (K1 + tf~)

N is the number of skills indexed and df(t) how many of them hold t in any of the three
fields; a skill's text score is the sum of score(t, d) over the query's terms. So a rare term
counts more than a common one, repeating a word in a long body saturates (K1), a long field
counts each occurrence for less (B), and a word in the name or description counts for more
than one in the body (W). Every statistic (N, df, average lengths) is over the skills this
index was built from, which is one caller's view: skills a caller may not see never shape
that caller's scores.

Each score(t, d) is rounded to an integer number of millionths (SCALE) before it is added, so
scores are exact integers: equal for every process and every order of the query's words.
"""

import math
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Sequence

from catalog.textwords import token_stem, word_counts

FIELDS = ("name", "description", "body")
# A name is a few words that say what the skill is; a description says when to use it, which
# is what a query usually asks; a body is the instructions, long and full of incidental words.
WEIGHTS = (3.0, 2.0, 1.0)
B = (0.5, 0.75, 0.75)  # length normalisation per field (names vary little in length)
K1 = 1.2
SCALE = 1_000_000
# A term frequency is kept in 16 bits; far past K1, so clamping changes no order.
_TF_BITS = 16
_MAX_TF = (1 << _TF_BITS) - 1


class _FieldPostings:
    """For each word, the skills whose field holds it and how often: one integer a skill,
    position << 16 | term frequency, ascending, in one array shared by every word (an array
    per word would cost more in headers than most of its postings)."""

    __slots__ = ("_packed", "_spans")

    def __init__(self, grouped: dict[bytes, array], code: str) -> None:
        self._packed = array(code)
        self._spans: dict[bytes, int] = {}
        for word, packed in grouped.items():
            self._spans[word] = len(self._packed) << 32 | len(packed)
            self._packed.extend(packed)

    def get(self, word: bytes) -> memoryview | None:
        span = self._spans.get(word)
        if span is None:
            return None
        start = span >> 32
        return memoryview(self._packed)[start : start + (span & 0xFFFFFFFF)]

    def holds(self, word: bytes, position: int) -> bool:
        span = self._spans.get(word)
        if span is None:
            return False
        start = span >> 32
        end = start + (span & 0xFFFFFFFF)
        found = bisect_left(self._packed, position << _TF_BITS, start, end)
        return found < end and self._packed[found] >> _TF_BITS == position

    def holds_any(self, words: Sequence[bytes], position: int) -> bool:
        for word in words:
            if self.holds(word, position):
                return True
        return False

    def words(self) -> Iterable[bytes]:
        return self._spans.keys()


class TextIndex:
    """Postings of words per field, the words of each stem, and field lengths, built once.

    Postings are kept per word rather than per stem, so that building them is counting
    words (stems are worked out once per distinct word); a term's postings are those of the
    words with its stem (usually one or two: `test`, `tests`, `testing`)."""

    def __init__(self, texts: Sequence[tuple[str, str, str]]) -> None:
        """`texts`: (name, description, body) of each skill, by position."""
        self.size = len(texts)
        code = "I" if self.size <= 0xFFFF else "Q"
        grouped: list[dict[bytes, array]] = [{}, {}, {}]
        lengths = [array("I"), array("I"), array("I")]
        for position, fields in enumerate(texts):
            shifted = position << _TF_BITS
            for field, text in enumerate(fields):
                counts, length = word_counts(text)
                lengths[field].append(length)
                postings = grouped[field]
                for word, tf in counts.items():
                    packed = shifted | (tf if tf <= _MAX_TF else _MAX_TF)
                    try:
                        postings[word].append(packed)
                    except KeyError:
                        postings[word] = array(code, (packed,))
        self._fields = tuple(_FieldPostings(field, code) for field in grouped)
        by_stem: dict[str, list[bytes]] = {}
        for word in dict.fromkeys(word for field in self._fields for word in field.words()):
            by_stem.setdefault(token_stem(word), []).append(word)
        self._words = {stem: tuple(found) for stem, found in by_stem.items()}
        # W[f] / (1 - B[f] + B[f] * len / avglen), per skill and field: what one occurrence
        # of a term in that field of that skill adds to tf~.
        self._unit: list[array] = []
        for field, field_lengths in enumerate(lengths):
            average = sum(field_lengths) / self.size if self.size else 0.0
            weight, b = WEIGHTS[field], B[field]
            self._unit.append(
                array(
                    "d",
                    (
                        weight / (1 - b + b * length / average) if average else weight
                        for length in field_lengths
                    ),
                )
            )

    def scores(self, stem: str) -> dict[int, int]:
        """score(stem, d) in millionths, for every skill d holding `stem` in a text field."""
        weighted: dict[int, float] = {}
        # Fields, and words within a field, added in one fixed order, so the float sums are
        # the same in every process.
        for field in (2, 1, 0):
            unit = self._unit[field]
            for word in self._words.get(stem, ()):
                found = self._fields[field].get(word)
                if found is None:
                    continue
                if not weighted:
                    weighted = {
                        packed >> _TF_BITS: (packed & _MAX_TF) * unit[packed >> _TF_BITS] for packed in found
                    }
                    continue
                get = weighted.get
                for packed in found:
                    position = packed >> _TF_BITS
                    weighted[position] = get(position, 0.0) + (packed & _MAX_TF) * unit[position]
        frequency = len(weighted)  # the skills holding the stem in any field
        idf = math.log(1 + (self.size - frequency + 0.5) / (frequency + 0.5))
        factor = idf * (K1 + 1) * SCALE
        return {position: round(factor * value / (K1 + value)) for position, value in weighted.items()}

    def fields_holding(self, stem: str, position: int) -> tuple[bool, bool, bool]:
        """Whether the name, the description and the body of the skill at `position` hold `stem`."""
        found = self._words.get(stem)
        if found is None:
            return False, False, False
        name, description, body = self._fields
        return (
            name.holds_any(found, position),
            description.holds_any(found, position),
            body.holds_any(found, position),
        )

    def vocabulary(self) -> int:
        """Distinct stems in any field (for measurements)."""
        return len(self._words)
