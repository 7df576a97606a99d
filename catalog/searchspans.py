"""Where the earliest word with a stem lies in each skill's description or body, remembered
per search index (docs/benchmarks.md, "The hits of a cold page, session 6").

A query never seen before is made of stems seen before (the cold row's queries are pairs of a
few hundred topic words; real clients' queries share a vocabulary too), and the earliest word
with any of a query's stems is the earliest of each stem's earliest word: every word has one
stem, and every word with stem s begins with s's prefix (catalog.textwords.earliest_with_stem),
so the search for the set finds the word the search for its stem finds. An excerpt is then a
minimum over the query's stems of spans found once per (field, stem, skill) and kept here.

Only the spans of hits actually built are found (lazily), and at most EXCERPT_SPANS of them
are kept per index; past that the table starts again. Each clearance has its own SearchIndex,
so its own spans."""

import threading
from array import array
from bisect import bisect_left
from collections.abc import Callable, Collection, Sequence

from catalog.entries import SkillEntry

# Spans kept per search index, over both fields: about 16 bytes each (the arrays, their tuple
# and the dict, measured), so at most ~2.1 MB an index; the first pages of the 4,096 cold
# queries keep 46,766 at 10,000 skills (docs/benchmarks.md, "The hits of a cold page, session 6").
EXCERPT_SPANS = 131_072
# A span is start * _END + end; one of no word (the field holds none found) is kept too, so
# that it is not searched again, as the largest value an array("q") holds (above every span).
_END = 1 << 32
_NONE = (1 << 63) - 1

# Finds the earliest word with one of some stems in a field (2 description, 4 body) of a
# skill, given that field as the caller holds it (text, or a body's UTF-8; read from the skill
# when None): catalog.searchhits.earliest_in.
Search = Callable[[SkillEntry, int, Collection[str], "str | bytes | None"], "tuple[int, int] | None"]


class EarliestSpans:
    """The earliest word with a stem in a field of a skill, found once and then read.

    Readers take no lock: each stem's positions and spans are two arrays published together
    as one tuple and never changed after (a new entry makes new arrays, under the lock), so a
    reader sees one consistent pair; a race makes a span twice, the same."""

    def __init__(self, skills: Sequence[SkillEntry], search: Search) -> None:
        self._skills = skills
        self._search = search
        # (field, stem) -> (positions ascending, the span at each)
        self._spans: dict[tuple[int, str], tuple[array, array]] = {}
        self._count = 0  # spans kept, over every (field, stem); changed under the lock only
        self._lock = threading.Lock()

    def earliest(
        self, position: int, field: int, stems: Collection[str], text: str | bytes | None = None
    ) -> tuple[int, int] | None:
        """The earliest word with one of `stems` in `field` of the skill at `position`, as
        search(skill, field, stems, text) finds it: the earliest of each stem's (their starts
        are distinct: one word, one stem). `text`, when given, is that field as the caller
        holds it: every stem missed is searched in it, not in the field read again."""
        best = _NONE
        spans = self._spans
        for wanted in stems:
            kept = spans.get((field, wanted))
            if kept is not None:
                positions, found = kept
                at = bisect_left(positions, position)
                if at < len(positions) and positions[at] == position:
                    if found[at] < best:
                        best = found[at]
                    continue
            packed = self._find(position, field, wanted, text)
            if packed < best:
                best = packed
        return None if best == _NONE else divmod(best, _END)

    def _find(self, position: int, field: int, wanted: str, text: str | bytes | None) -> int:
        """The span of `wanted` in `field` at `position`, searched for and kept."""
        found = self._search(self._skills[position], field, (wanted,), text)
        packed = _NONE if found is None else found[0] * _END + found[1]
        key = (field, wanted)
        with self._lock:
            if self._count >= EXCERPT_SPANS:
                self._spans = {}
                self._count = 0
            positions, spans = self._spans.get(key) or (array("i"), array("q"))
            at = bisect_left(positions, position)
            if at < len(positions) and positions[at] == position:
                return packed  # another thread kept it meanwhile
            positions, spans = array("i", positions), array("q", spans)
            positions.insert(at, position)
            spans.insert(at, packed)
            self._spans[key] = (positions, spans)
            self._count += 1
        return packed

    def __len__(self) -> int:
        """Spans kept (for measurements and tests)."""
        return self._count
