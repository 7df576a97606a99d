"""Sets of skill positions as bitmaps: bit p of a Python int set when the skill at position p
is in the set. A union is one `|` and a size one `int.bit_count`, each a pass over size / 64
machine words, where a set of Python integers costs a hash and a probe per member: what
counting the matches of a query takes at once (catalog.search)."""

from collections.abc import Iterable, Sequence
from itertools import accumulate, islice, repeat
from operator import add, sub

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


# A bitmap with at most one member per SPARSE_BITS bits is read member by member from its top
# (each step a bit_length and an xor, which shortens the int to the next member); a denser one
# through bin's digits, whose cost is per bit, not per member (docs/benchmarks.md, "Ranking by
# score heads, session 6").
SPARSE_BITS = 32


def members(bits: int) -> list[int]:
    """The positions set in `bits`, highest first."""
    if bits.bit_count() * SPARSE_BITS <= bits.bit_length():
        found: list[int] = []
        append = found.append
        while bits:
            top = bits.bit_length() - 1
            append(top)
            bits ^= 1 << top
        return found
    return _members_by_digits(bits)


def _members_by_digits(bits: int) -> list[int]:
    """members(bits), found in C: bin's digits (bit 0 last) cut at each one, each digit's place
    one more than the last one's plus the zeros between them."""
    digits = bin(bits)
    gaps = digits.split("1")
    gaps.pop()  # the zeros below the lowest one (or all of them, for no member)
    places = islice(accumulate(map(add, map(len, gaps), repeat(1)), initial=-1), 1, None)
    return list(map(sub, repeat(len(digits) - 1), places))


def count_slices(bitmaps: Iterable[int]) -> list[int]:
    """How many of `bitmaps` hold each skill, as bit slices (bit j of a skill's count is its bit
    in slice j): each bitmap added by a ripple of carries, a few big-integer operations where
    a Counter of the positions costs a hash update per member."""
    slices: list[int] = []
    for bits in bitmaps:
        carry = bits
        digit = 0
        while carry and digit < len(slices):
            held = slices[digit]
            slices[digit] = held ^ carry
            carry &= held
            digit += 1
        if carry:
            slices.append(carry)
    return slices


def counted_exactly(slices: Sequence[int], count: int, among: int) -> int:
    """The skills of `among` that exactly `count` of the bitmaps counted in `slices` hold."""
    if count >> len(slices):
        return 0
    found = among
    for digit, held in enumerate(slices):
        found &= held if count >> digit & 1 else ~held
    return found
