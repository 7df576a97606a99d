"""Bitmaps of skill positions (catalog.searchbits): the members read back from a bitmap, and
the label classes counted by bit slices, against plain sets and counts."""

import random

import pytest

from catalog.searchbits import bitmap, count_slices, counted_exactly, members


@pytest.mark.parametrize("size", [1, 7, 8, 9, 64, 1000, 10000])
def test_the_members_of_a_bitmap_are_its_positions_highest_first(size: int) -> None:
    chance = random.Random(size)  # noqa: S311 - reproducible test values, not secrets
    for count in {0, 1, size // 3, size - 1, size}:
        positions = set(chance.sample(range(size), count))
        assert members(bitmap(positions, size)) == sorted(positions, reverse=True)
    assert members(bitmap([size - 1], size)) == [size - 1]


def test_the_members_of_nothing_are_none() -> None:
    assert members(0) == []


@pytest.mark.parametrize("lists", [0, 1, 2, 3, 5, 8])
def test_counted_exactly_are_the_skills_exactly_that_many_bitmaps_hold(lists: int) -> None:
    chance = random.Random(lists)  # noqa: S311 - reproducible test values, not secrets
    size = 500
    sets = [set(chance.sample(range(size), chance.randrange(size))) for _ in range(lists)]
    # The same set twice counts twice, as a Counter of the postings does.
    sets += sets[:1]
    among = bitmap(range(0, size, 3), size)
    slices = count_slices(bitmap(positions, size) for positions in sets)
    for count in range(len(sets) + 3):
        expected = [p for p in range(0, size, 3) if sum(p in positions for positions in sets) == count]
        assert members(counted_exactly(slices, count, among)) == expected[::-1], count


@pytest.mark.parametrize("extra", [0, 1])
def test_a_bitmap_up_to_one_member_per_sparse_bits_is_read_member_by_member(
    extra: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from catalog import searchbits

    size = 64 * searchbits.SPARSE_BITS
    positions = [size - 1, *range(0, 16 * (63 + extra), 16)]
    bits = bitmap(positions, size)
    sparse = searchbits.SPARSE_BITS
    assert bits.bit_count() * sparse == bits.bit_length() + extra * sparse
    by_digits: list[int] = []
    real = searchbits._members_by_digits
    monkeypatch.setattr(searchbits, "_members_by_digits", lambda b: by_digits.append(b) or real(b))
    assert members(bits) == sorted(positions, reverse=True)
    assert by_digits == ([bits] if extra else [])
