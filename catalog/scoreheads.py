"""The skills of highest text score for each stem, kept per index, and the best members of a
large label class picked through them (catalog.search ranks by labels with them).

A cold query is new, but its terms are not: an index keeps, for a bounded number of stems
(HEAD_STEMS, the least recently used forgotten first), its holders in order of text score cut
into bands (BAND_ENDS), each band a bitmap (catalog.searchbits), with the highest score past
each band. The members of a label class all have the same first three components of the
order (docs/reference.md#search), so its best are those of highest text score, the sum of
each term's. Reading the query's terms' bands together, best band first (a threshold
algorithm): a member not yet read in any term's bands scores at most the sum of each term's
highest score past its band, so once the wanted-th best member read scores more than that,
no unread member can take its place. Only the members read are listed and scored, where
listing the class costs its every member (docs/benchmarks.md, "Ranking by score heads,
session 6").
"""

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import mul, sub

from catalog.searchbits import bitmap, members
from catalog.searchranking import smallest
from catalog.textindex import TextIndex

# Where each band of a stem's holders ends, by rank of text score (each about 1.6 times the
# one before): a stem keeps its first BAND_ENDS[-1] holders, one bitmap (size / 8 bytes) per band.
BAND_ENDS = (80, 128, 205, 328, 524, 839, 1342, 2147)
# Stems whose bands one index keeps: 8 bitmaps of size / 8 bytes at most, ~10 KB a stem at
# 9,505 skills, so ~2.5 MB at most (measured in docs/benchmarks.md, "Ranking by score heads").
HEAD_STEMS = 256
# A class of fewer members is listed whole: the bands' rounds cost more than listing it.
BANDED_CLASS = 256


@dataclass(frozen=True, slots=True)
class Head:
    """One stem's first holders by text score (then position), in bands, best first."""

    bands: tuple[int, ...]  # each band's holders, as a bitmap
    below: tuple[int, ...]  # after each band, the highest score of a holder in no band yet (0: none left)

    def past(self, band: int) -> int:
        """The highest score of a holder in none of the bands up to `band` (past the last band
        kept, that of the last: the holders after it are not kept)."""
        below = self.below
        return below[band] if band < len(below) else below[-1] if below else 0

    def nbytes(self) -> int:
        """The bytes this head holds (for measurements)."""
        return sys.getsizeof(self.bands) + sys.getsizeof(self.below) + sum(map(sys.getsizeof, self.bands))


def head_of(text: TextIndex, stem: str) -> Head:
    """`stem`'s bands, worked out from its prepared scores."""
    size = text.size
    positions, scores = text.score_arrays(stem)
    # One integer per holder, smaller first: higher score, then lower position.
    keys = map(sub, positions, map(mul, scores, repeat(size)))
    ordered = smallest(keys, BAND_ENDS[-1] + 1)  # one more, for the highest score past the last band
    bands: list[int] = []
    below: list[int] = []
    start = 0
    for end in BAND_ENDS:
        if start >= len(ordered):
            break
        bands.append(bitmap([key % size for key in ordered[start:end]], size))
        below.append(-(ordered[end] // size) if end < len(ordered) else 0)
        start = end
    return Head(tuple(bands), tuple(below))


class ScoreHeads:
    """The heads of one index's stems, made when first asked for and kept (HEAD_STEMS, least
    recently used forgotten first). Thread-safe: a race makes a head twice, the same."""

    def __init__(self, text: TextIndex) -> None:
        self._text = text
        self._kept: OrderedDict[str, Head] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, stem: str) -> Head:
        with self._lock:
            head = self._kept.get(stem)
            if head is not None:
                self._kept.move_to_end(stem)
                return head
        head = head_of(self._text, stem)
        with self._lock:
            self._kept[stem] = head
            self._kept.move_to_end(stem)
            while len(self._kept) > HEAD_STEMS:
                self._kept.popitem(last=False)
        return head

    def __len__(self) -> int:
        return len(self._kept)

    def nbytes(self) -> int:
        """The bytes the kept heads hold (for measurements)."""
        with self._lock:
            heads = list(self._kept.values())
        return sys.getsizeof(self._kept) + sum(head.nbytes() for head in heads)


def best_members(
    heads: Sequence[Head], among: int, wanted: int, size: int, totals: Callable[[list[int]], Sequence[int]]
) -> list[int] | None:
    """The keys (position - score * size, ascending) of the `wanted` members of the bitmap
    `among` of highest text score, then lowest position, each term's bands in `heads`
    (`totals`: the text score of each of a list of positions), so their scores need not be
    read again; None when the kept bands do not settle them."""
    left = among
    keys: list[int] = []  # each member read: position - score * size, smaller first
    for band in range(len(BAND_ENDS)):
        found = 0
        for head in heads:
            if band < len(head.bands):
                found |= head.bands[band]
        found &= left
        if found:
            left ^= found
            read = members(found)
            keys.extend(map(sub, read, map(mul, totals(read), repeat(size))))
        if len(keys) >= wanted:
            keys.sort()
            bound = sum(head.past(band) for head in heads)
            # Strictly more than any unread member scores (a tie would go by position).
            if not left or keys[wanted - 1] < -bound * size:
                del keys[wanted:]
                return keys
    return None
