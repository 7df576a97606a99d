"""Which unknown frontmatter keys are misspellings of known ones (docs/reference.md#skill-format).

The open dialect serves unknown keys as written, so a misspelt `required_zdr` would
silently publish a ZDR skill to everyone. A key near a known one is therefore an error:
compared case-insensitively with `-` and `_` as one character, it is near when it is
within two edits (insert, delete, substitute, or swap two neighbours), or within one edit
when it has at most four characters; otherwise real short vendor keys such as `date`
(two edits from `name`) could never be used.
"""

from collections.abc import Iterable

MAX_EDITS = 2
SHORT_KEY_CHARS = 4
SHORT_KEY_EDITS = 1


def normalised(key: str) -> str:
    return key.casefold().replace("-", "_")


def near_known_key(key: str, known: Iterable[str]) -> str | None:
    """The known key that `key` (not itself known) is probably a misspelling of, or None."""
    mine = normalised(key)
    allowed = SHORT_KEY_EDITS if len(mine) <= SHORT_KEY_CHARS else MAX_EDITS
    best: tuple[int, str] | None = None
    for candidate in known:
        distance = edit_distance(mine, normalised(candidate), allowed)
        if distance <= allowed and (best is None or distance < best[0]):
            best = (distance, candidate)
    return None if best is None else best[1]


def edit_distance(a: str, b: str, bound: int) -> int:
    """The optimal-string-alignment distance between `a` and `b` (a transposition of two
    neighbours is one edit), or bound + 1 as soon as it must exceed `bound`."""
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, char_b in enumerate(b, 1):
            cost = 0 if char_a == char_b else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and char_a == b[j - 2] and a[i - 2] == char_b:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > bound:
            return bound + 1
        before, previous = previous, current
    return previous[len(b)]
