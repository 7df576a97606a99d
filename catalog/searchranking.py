"""A ranking's positions, best first, read as deep as a client pages (catalog.search ranks;
this keeps what it ranked): the first PREFIX known, the rest made from the kept keys when a
page past them is asked for."""

import heapq
from array import array
from collections.abc import Callable, Iterable

from catalog.searchhits import KEPT_HITS

# Ranks a first ranking works out (the rest when a deeper page is read): the kept hits and
# the one past them, which tells the page of KEPT_HITS whether more follow.
PREFIX = KEPT_HITS + 1
# At most this many times `count` keys are sorted whole rather than heaped: below it a sort
# (in C, a few compares a key) costs less than heapify and `count` pops, each a call
# (docs/benchmarks.md, "A cold query's fixed work, session 6").
SORTED_SHARE = 3


def smallest(keys: Iterable[int], count: int) -> list[int]:
    """The `count` smallest of `keys`, ascending: what heapq.nsmallest answers, with the heap
    made and popped in C (heapify, heappop) where nsmallest compares each key in Python: from
    a third of its instructions at 200 keys to four fifths at 6,000 (docs/benchmarks.md, "Cold
    search at 0.4 ×, session 5")."""
    heap = list(keys)
    if len(heap) <= SORTED_SHARE * count:
        heap.sort()
        del heap[count:]
        return heap
    heapq.heapify(heap)
    pop = heapq.heappop
    return [pop(heap) for _ in range(count)]


class Ranking:
    """The positions of a ranking, best first: all of them, or the first few, and either the
    keys of every match (catalog.search.SearchIndex._keys) or how to rank them all again. A rank past
    the positions known picks at least four times as many smallest keys (all of them, sorted,
    once that is a quarter of the matches): the same order either way."""

    __slots__ = ("_decoded", "_keys", "count", "positions")

    def __init__(
        self,
        positions: array,
        count: int,
        decoded: Callable[[Iterable[int]], array] | None = None,
        keys: array | None = None,
    ) -> None:
        self.positions = positions
        self.count = count
        self._decoded = decoded
        self._keys = keys

    def position(self, rank: int) -> int:
        # Read once: another thread may complete the ranking meanwhile (to the same order).
        positions, decoded, keys = self.positions, self._decoded, self._keys
        if rank >= len(positions) and decoded is not None:
            wanted = max(rank + PREFIX, 4 * len(positions))
            if keys is None:
                positions = decoded(())
            elif 4 * wanted >= self.count:
                positions = decoded(sorted(keys))
            else:
                positions = decoded(smallest(keys, wanted))
            if len(positions) == self.count:
                self._decoded = self._keys = None
            self.positions = positions
        return positions[rank]
