"""Tags and keywords (labels) as search matches them (docs/reference.md#search).

A term matches a label when it has the stem of one of the label's words; a label also
matches whole when the case-folded query holds it as a whole string, not cut inside a word
(`code-review` in "code-review checklist", `c#` in "c# tests"), and then counts as one more
matching term, unless it is simply one of the query's words (then it is that word's match,
counted once). A label without a letter or digit never matches.
"""

from collections import Counter
from collections.abc import Collection, Iterable, Iterator

from catalog.searchbits import BITMAP_SHARE, bitmap
from catalog.searchquery import Query
from catalog.textwords import in_word, stem, words

_NOWHERE: tuple[int, ...] = ()
# Postings this short are tuples (a one-skill tuple is 48 bytes, a frozenset 216).
_SMALL_POSTINGS = 8


def found_whole(label: str, folded_query: str) -> bool:
    """Whether the case-folded `label` occurs in the case-folded query without cutting a word
    at either end (`c#` occurs whole in "c# tests", `test` does not in "testing")."""
    start = folded_query.find(label)
    while start >= 0:
        end = start + len(label)
        cut_before = start > 0 and in_word(folded_query, start - 1) and in_word(folded_query, start)
        cut_after = end < len(folded_query) and in_word(folded_query, end - 1) and in_word(folded_query, end)
        if not cut_before and not cut_after:
            return True
        start = folded_query.find(label, start + 1)
    return False


class Labels:
    """Tags, or keywords: which skills have a label word of each stem, and the labels that
    could match whole on their own (several words, symbols, or a stop word), by first word;
    the skills of a stem held by at least 1 / BITMAP_SHARE of them also as a bitmap."""

    def __init__(self, labels_per_skill: Iterable[Iterable[str]]) -> None:
        by_stem: dict[str, set[int]] = {}
        by_first_word: dict[str, dict[str, set[int]]] = {}
        self.size = 0
        for position, labels in enumerate(labels_per_skill):
            self.size = position + 1
            for label in labels:
                folded = label.casefold()
                label_words = words(folded)
                for word in label_words:
                    word_stem = stem(word)
                    if word_stem is not None:
                        by_stem.setdefault(word_stem, set()).add(position)
                if label_words and (label_words != [folded] or stem(folded) is None):
                    by_first_word.setdefault(label_words[0], {}).setdefault(folded, set()).add(position)
        self._by_stem = _freeze(by_stem)
        self._bits = {
            label_stem: bitmap(positions, self.size)
            for label_stem, positions in by_stem.items()
            if len(positions) * BITMAP_SHARE >= self.size
        }
        self._by_first_word = {
            word: tuple((label, _frozen(positions)) for label, positions in labels.items())
            for word, labels in by_first_word.items()
        }

    def matchers(self, query: Query) -> list[tuple[str, Collection[int]]]:
        """What the labels of a skill may match, worked out once for every hit of a query
        (a skill's matches are those whose skills hold it): each term with the skills whose
        labels have its stem, in query order, then each label matched whole with its skills,
        in query order."""
        found = [(term.word, self._by_stem[term.stem]) for term in query.terms if term.stem in self._by_stem]
        found.extend(self._whole_labels(query))
        return found

    def counts(self, query: Query) -> Counter[int]:
        """How many terms (and labels matched whole) each skill's labels match."""
        counts: Counter[int] = Counter()
        for positions in self.postings(query):
            counts.update(positions)
        return counts

    def postings(self, query: Query) -> list[Collection[int]]:
        """The skills of each term's stem (those that have one), then of each label matched
        whole: a skill's count is how many of these hold it."""
        found = [self._by_stem[term.stem] for term in query.terms if term.stem in self._by_stem]
        found.extend(self._whole(query))
        return found

    def bitmaps(self, query: Query) -> list[int]:
        """postings(query) as bitmaps (catalog.searchbits), in the same order: a stem's kept
        bitmap when it has one, else made from its skills."""
        found = []
        for term in query.terms:
            positions = self._by_stem.get(term.stem)
            if positions is not None:
                bits = self._bits.get(term.stem)
                found.append(bits if bits is not None else bitmap(positions, self.size))
        found.extend(bitmap(positions, self.size) for positions in self._whole(query))
        return found

    def holders(self, query: Query) -> int:
        """The skills whose labels match `query`, as a bitmap (catalog.searchbits)."""
        found = 0
        for bits in self.bitmaps(query):
            found |= bits
        return found

    def _whole(self, query: Query) -> Iterator[Collection[int]]:
        """The skills of each label matched whole by `query` that is not one of its words."""
        for _, positions in self._whole_labels(query):
            yield positions

    def _whole_labels(self, query: Query) -> Iterator[tuple[str, Collection[int]]]:
        """Each label matched whole by `query` that is not one of its words, with its skills."""
        for word in query.all_words:
            for label, positions in self._by_first_word.get(word, ()):
                if label not in query.content_words and found_whole(label, query.whole):
                    yield label, positions


def _frozen(positions: set[int]) -> Collection[int]:
    """A sorted tuple when short (most ids, names and rare labels), else a frozenset."""
    return tuple(sorted(positions)) if len(positions) <= _SMALL_POSTINGS else frozenset(positions)


def _freeze(postings: dict[str, set[int]]) -> dict[str, Collection[int]]:
    return {value: _frozen(positions) for value, positions in postings.items()}


def freeze_lists(values_per_skill: Iterable[Iterable[str]]) -> dict[str, Collection[int]]:
    """Positions per value."""
    postings: dict[str, set[int]] = {}
    for position, values in enumerate(values_per_skill):
        for value in values:
            postings.setdefault(value, set()).add(position)
    return _freeze(postings)
