"""Which unknown frontmatter keys are misspellings of known ones (docs/reference.md#skill-format).

The open dialect serves unknown keys as written, so a misspelt `required_zdr` would
silently publish a ZDR skill to everyone. A key near a known one is therefore an error:
compared case-insensitively with `-` and `_` as one character, it is near when it is
within two edits (insert, delete, substitute, or swap two neighbours: the
Damerau-Levenshtein distance), or within one edit
when it has at most four characters; otherwise real short vendor keys such as `date`
(two edits from `name`) could never be used.
"""

import functools

MAX_EDITS = 2
SHORT_KEY_CHARS = 4
SHORT_KEY_EDITS = 1


def normalised(key: str) -> str:
    return key.casefold().replace("-", "_")


def near_known_key(key: str, known: tuple[str, ...]) -> str | None:
    """The known key that `key` (not itself known) is probably a misspelling of, or None."""
    if len(key) > max(map(len, known), default=0) + MAX_EDITS:
        return None  # too long to be near any: never compared, never cached
    return _nearest(key, known)


# The same few keys (author, version...) recur in every skill of a repository; the keys
# cached are short (see above), so the cache stays small.
@functools.lru_cache(maxsize=4096)
def _nearest(key: str, known: tuple[str, ...]) -> str | None:
    mine = normalised(key)
    allowed = SHORT_KEY_EDITS if len(mine) <= SHORT_KEY_CHARS else MAX_EDITS
    best: tuple[int, str] | None = None
    for candidate in known:
        distance = edit_distance(mine, normalised(candidate), allowed)
        if distance <= allowed and (best is None or distance < best[0]):
            best = (distance, candidate)
    return None if best is None else best[1]


def edit_distance(a: str, b: str, bound: int) -> int:
    """The Damerau-Levenshtein distance between `a` and `b` (insert, delete, substitute, or
    swap two neighbours, with later edits allowed between swapped characters), or bound + 1
    when the lengths alone show it is over `bound`."""
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    far = len(a) + len(b)
    last_row: dict[str, int] = {}
    # d[i + 1][j + 1]: the distance between a[:i] and b[:j], with a border of `far`.
    d = [[far] * (len(b) + 2) for _ in range(len(a) + 2)]
    for i in range(len(a) + 1):
        d[i + 1][1] = i
    for j in range(len(b) + 1):
        d[1][j + 1] = j
    for i in range(1, len(a) + 1):
        last_match_col = 0
        for j in range(1, len(b) + 1):
            k = last_row.get(b[j - 1], 0)
            l_col = last_match_col
            cost = 1
            if a[i - 1] == b[j - 1]:
                cost = 0
                last_match_col = j
            d[i + 1][j + 1] = min(
                d[i][j] + cost,
                d[i + 1][j] + 1,
                d[i][j + 1] + 1,
                d[k][l_col] + (i - k - 1) + 1 + (j - l_col - 1),
            )
        last_row[a[i - 1]] = i
    return d[len(a) + 1][len(b) + 1]
