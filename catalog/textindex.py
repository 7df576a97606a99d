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
from collections.abc import Callable, Iterable, Sequence, Sized
from itertools import compress, repeat
from operator import itemgetter, rshift

from catalog.searchbits import BITMAP_SHARE, bitmap
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
# A stem held by at least 1 / DENSE_SHARE of the skills keeps its scores in one slot per skill
# (4 bytes each, no position stored), read by position at once, when it is one of the
# DENSE_STEMS most common stems; any other keeps (position, score) pairs, 6 bytes each at most
# 65,535 skills, read by position through a dict made of them per query (a cost per pair).
# Dense costs at most 4 / (6 / 16) = 10.7 times the pairs it replaces, and 4 * DENSE_STEMS
# bytes a skill at most (1.2 KB; 11.7 MB at 9,505 skills, where all 308 stems are dense).
DENSE_SHARE = 16
DENSE_STEMS = 320
# Each score is kept with the fields holding the stem in its low bits (name 1, description 2,
# body 4): a slot of 0 is a skill not holding it.
_FIELD_BITS = 3
_FIELD_MASK = (1 << _FIELD_BITS) - 1


class TextIndex:
    """The text score of every (stem, skill) worked out once, at build, with the fields that
    hold the stem, and field lengths only while building.

    Scores are kept per stem: dense (one slot per skill) for the DENSE_STEMS most common stems
    at least 1 / DENSE_SHARE of the skills hold, else (position, score) pairs by position in
    two arrays shared by every such stem (an array per stem would cost more in headers than
    most of its pairs).
    A stem held by at least 1 / BITMAP_SHARE of the skills also keeps the set of its holders
    as a bitmap (catalog.searchbits), which counts the matches of a query at once."""

    def __init__(self, texts: Iterable[tuple[str, str, str]], count: int | None = None) -> None:
        """`texts`: (name, description, body) of each skill, by position, read once (so a
        generator decoding one body at a time never holds every body at once); `count`, how
        many there are when `texts` has no length."""
        if count is None:
            assert isinstance(texts, Sized)
            count = len(texts)
        code = "I" if count <= 0xFFFF else "Q"  # position << 16 | tf
        grouped: list[dict[bytes, array]] = [{}, {}, {}]
        lengths = [array("I"), array("I"), array("I")]
        size = 0
        for position, fields in enumerate(texts):
            size = position + 1
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
        self.size = size
        by_stem: dict[str, list[bytes]] = {}
        for word in dict.fromkeys(word for field in grouped for word in field):
            by_stem.setdefault(token_stem(word), []).append(word)
        # W[f] / (1 - B[f] + B[f] * len / avglen), per skill and field: what one occurrence
        # of a term in that field of that skill adds to tf~.
        units: list[array] = []
        for field, field_lengths in enumerate(lengths):
            average = sum(field_lengths) / size if size else 0.0
            weight, b = WEIGHTS[field], B[field]
            units.append(
                array(
                    "d",
                    (
                        weight / (1 - b + b * length / average) if average else weight
                        for length in field_lengths
                    ),
                )
            )
        del lengths
        self._dense: dict[str, array] = {}
        self._spans: dict[str, int] = {}
        self._positions = array("H" if size <= 0xFFFF else "I")
        self._packed = array("I")
        self._bits: dict[str, int] = {}
        self._highest: dict[str, int] = {}
        # The most common stems first (by postings over the three fields), to pick the dense ones.
        held = {
            stem: sum(len(field.get(word, ())) for field in grouped for word in found)
            for stem, found in by_stem.items()
        }
        dense_left = DENSE_STEMS
        for stem in sorted(by_stem, key=held.__getitem__, reverse=True):
            found = by_stem[stem]
            positions, scores, holding = _scored(grouped, units, found, size)
            dense = dense_left > 0 and len(positions) * DENSE_SHARE >= size
            dense_left -= dense
            self._keep(stem, dense, positions, scores, holding)
            for word in found:
                for postings in grouped:
                    postings.pop(word, None)  # freed as it is read: the peak stays near one copy

    def _keep(
        self, stem: str, dense: bool, positions: list[int], scores: list[int], fields: Iterable[int]
    ) -> None:
        highest = max(scores, default=0)
        self._highest[stem] = highest
        code = "I" if highest < 1 << (32 - _FIELD_BITS) else "Q"
        packed = [score << _FIELD_BITS | held for score, held in zip(scores, fields, strict=True)]
        if dense:
            slots = array(code, bytes(array(code).itemsize * self.size))
            for position, value in zip(positions, packed, strict=True):
                slots[position] = value
            self._dense[stem] = slots
        else:
            if code != self._packed.typecode:
                self._packed = array(code, self._packed)
            self._spans[stem] = len(self._positions) << 32 | len(positions)
            self._positions.extend(positions)
            self._packed.extend(packed)
        if len(positions) * BITMAP_SHARE >= self.size:
            self._bits[stem] = bitmap(positions, self.size)

    def _span(self, stem: str) -> tuple[int, int]:
        span = self._spans.get(stem)
        if span is None:
            return 0, 0
        start = span >> 32
        return start, start + (span & 0xFFFFFFFF)

    def holders(self, stem: str) -> int:
        """The skills holding `stem` in a text field, as a bitmap (catalog.searchbits)."""
        found = self._bits.get(stem)
        if found is not None:
            return found
        start, end = self._span(stem)
        return bitmap(self._positions[start:end], self.size)

    def packed(self, stem: str, positions: Sequence[int]) -> Iterable[int]:
        """score << 3 | fields of `stem` for each of `positions` (0 where it is not held)."""
        dense = self._dense.get(stem)
        if dense is not None:
            if len(positions) > 1:
                # One call reading every slot in C: half the instructions of a map over
                # dense.__getitem__ (docs/benchmarks.md, "Ranking by score heads, session 6").
                return itemgetter(*positions)(dense)
            return [dense[position] for position in positions]
        start, end = self._span(stem)
        pairs = dict(zip(self._positions[start:end], self._packed[start:end], strict=True))
        return map(pairs.get, positions, repeat(0))

    def score_arrays(self, stem: str) -> tuple[Iterable[int], Iterable[int]]:
        """(positions ascending, scores) of every skill holding `stem` in a text field."""
        dense = self._dense.get(stem)
        if dense is not None:
            return compress(range(self.size), dense), map(rshift, filter(None, dense), repeat(_FIELD_BITS))
        start, end = self._span(stem)
        return self._positions[start:end], map(rshift, self._packed[start:end], repeat(_FIELD_BITS))

    def scores(self, stem: str) -> dict[int, int]:
        """score(stem, d) in millionths, for every skill d holding `stem` in a text field."""
        positions, scores = self.score_arrays(stem)
        return dict(zip(positions, scores, strict=True))

    def highest(self, stem: str) -> int:
        """The largest score(stem, d) of any skill."""
        return self._highest.get(stem, 0)

    def fields_holding(self, stem: str, position: int) -> tuple[bool, bool, bool]:
        """Whether the name, the description and the body of the skill at `position` hold `stem`."""
        fields = self.fields_reader(stem)(position)
        return bool(fields & 1), bool(fields & 2), bool(fields & 4)

    def fields_reader(self, stem: str) -> Callable[[int], int]:
        """For a position, the fields of that skill holding `stem` (name 1, description 2,
        body 4): looked up once per query, read once per hit."""
        dense = self._dense.get(stem)
        if dense is not None:
            return lambda position: dense[position] & _FIELD_MASK
        start, end = self._span(stem)
        positions, packed = self._positions, self._packed

        def read(position: int) -> int:
            found = bisect_left(positions, position, start, end)
            return packed[found] & _FIELD_MASK if found < end and positions[found] == position else 0

        return read

    def vocabulary(self) -> int:
        """Distinct stems in any field (for measurements)."""
        return len(self._highest)


def _scored(
    grouped: list[dict[bytes, array]], units: list[array], words: list[bytes], size: int
) -> tuple[list[int], list[int], Iterable[int]]:
    """The skills holding one of `words` (a stem's) in a field, ascending, score(stem, d) in
    millionths of each, and the fields holding it (name 1, description 2, body 4)."""
    found = [
        (field, postings) for field in (2, 1, 0) for word in words if (postings := grouped[field].get(word))
    ]
    # Fields, and words within a field, added in one fixed order, so the float sums are the
    # same in every process. A common stem adds into a slot per skill, a rare one into a dict
    # (a list of every skill for each of thousands of rare stems would cost more than them).
    weighted: dict[int, float] | list[float]
    if sum(len(postings) for _, postings in found) * DENSE_SHARE >= size:
        weighted = [0.0] * size
        held = bytearray(size)
        for field, postings in found:
            unit = units[field]
            bit = 1 << field
            for packed in postings:
                position = packed >> _TF_BITS
                weighted[position] += (packed & _MAX_TF) * unit[position]
                held[position] |= bit
        positions = list(compress(range(size), held))
        values = list(map(weighted.__getitem__, positions))
        fields: Iterable[int] = map(held.__getitem__, positions)
    else:
        weighted = {}
        by_position: dict[int, int] = {}
        for field, postings in found:
            unit = units[field]
            bit = 1 << field
            get = weighted.get
            field_get = by_position.get
            for packed in postings:
                position = packed >> _TF_BITS
                weighted[position] = get(position, 0.0) + (packed & _MAX_TF) * unit[position]
                by_position[position] = field_get(position, 0) | bit
        positions = sorted(weighted)
        values = [weighted[position] for position in positions]
        fields = map(by_position.__getitem__, positions)
    frequency = len(positions)  # the skills holding the stem in any field
    idf = math.log(1 + (size - frequency + 0.5) / (frequency + 0.5))
    factor = idf * (K1 + 1) * SCALE
    return positions, [round(factor * value / (K1 + value)) for value in values], fields
