"""catalog.typos: which unknown keys are misspellings of known ones."""

import pytest

from catalog.typos import edit_distance, near_known_key

KNOWN = ("name", "description", "license", "tags", "required_zdr", "allowed-tools")


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [
        ("", "", 0),
        ("abc", "abc", 0),
        ("abc", "", 3),
        ("kitten", "sitting", 3),
        ("required_zrd", "required_zdr", 1),  # a swap of neighbours is one edit
        ("ca", "abc", 2),  # a swap, then an insertion between the swapped letters
        ("date", "name", 2),
    ],
)
def test_the_distance_counts_insertions_deletions_substitutions_and_swaps(
    a: str, b: str, distance: int
) -> None:
    assert edit_distance(a, b, 10) == distance == edit_distance(b, a, 10)


def test_lengths_too_far_apart_stop_at_once() -> None:
    assert edit_distance("a", "abcdef", 2) == 3


@pytest.mark.parametrize(
    ("key", "near"),
    [
        ("required_zrd", "required_zdr"),
        ("Required-ZDR", "required_zdr"),  # case and separators do not count
        ("allowed_tools", "allowed-tools"),
        ("licenses", "license"),
        ("tag", "tags"),  # short: one edit
        ("nam", "name"),
    ],
)
def test_a_near_key_is_named(key: str, near: str) -> None:
    assert near_known_key(key, KNOWN) == near


@pytest.mark.parametrize("key", ["date", "type", "tier", "model", "owner", "argument-hint", "category"])
def test_a_key_of_four_characters_or_fewer_needs_one_edit_and_others_two(key: str) -> None:
    assert near_known_key(key, KNOWN) is None
