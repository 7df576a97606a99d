"""Sets of skill positions as bitmaps: bit p of a Python int set when the skill at position p
is in the set. A union is one `|` and a size one `int.bit_count`, each a pass over size / 64
machine words, where a set of Python integers costs a hash and a probe per member: what
counting the matches of a query takes at once (catalog.search)."""

from collections.abc import Iterable

# Postings held by at least 1 / BITMAP_SHARE of the skills also keep a bitmap: size / 8 bytes,
# at most 64 / 8 / 6 = 1.33 times the 6-byte (position, score) pairs it stands beside.
# Rarer sets are turned into a bitmap when asked for: at most size / 64 members to set.
BITMAP_SHARE = 64


def bitmap(positions: Iterable[int], size: int) -> int:
    """The bitmap of `positions`, each below `size`."""
    mask = bytearray((size + 7) >> 3)
    for position in positions:
        mask[position >> 3] |= 1 << (position & 7)
    return int.from_bytes(mask, "little")
