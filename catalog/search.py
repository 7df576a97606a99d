"""Deterministic keyword search over one view's skills (SPEC §6, §9).

No database, no HTTP, no callers: a SearchIndex is built from a fixed sequence of
SkillEntry (one snapshot as one caller may see it). The ranking is the sort key
of SPEC §9, component by component:

    1. 1 if the whole query (trimmed) equals the id or the name, else 0
    2. the number of terms equal to a tag
    3. the number of terms equal to a keyword
    4. the number of terms that are substrings of the description
    5. the number of terms that are substrings of the instructions body

higher first, then id ascending. Terms are the lower-cased query split on white
space (as split, so a repeated word counts each time it is repeated); every
comparison is case-insensitive. A skill that matches nothing is not a result.

Speed: the lower-cased texts, tag and keyword postings are built once per index;
where a term occurs as a substring is worked out once per term and remembered (a
bounded number of terms), so a repeated query costs set look-ups, not text scans.
"""

import threading
from array import array
from collections import Counter, OrderedDict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import overload

from catalog.index import SkillEntry

RULES = ("exact", "tag", "keyword", "description", "body")
# Terms whose substring postings an index remembers (each at most two sets of positions).
TERM_CACHE_SIZE = 512
# Rankings an index remembers per (query, terms, tags): 4 bytes per candidate each.
RANKED_CACHE_SIZE = 128
_NOWHERE: frozenset[int] = frozenset()
# Lone surrogates (never in published text) still round-trip rather than raise.
_UTF8_ERRORS = "surrogatepass"
# Postings this short are tuples (a one-skill tuple is 48 bytes, a frozenset 216).
_SMALL_POSTINGS = 8


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A matching skill and what matched. Reasons and the excerpt are worked out on
    demand, so a search pays for them only on the page it returns."""

    skill: SkillEntry
    sort_key: tuple[int, int, int, int, int]
    exact_term: str | None
    tag_terms: tuple[str, ...]
    keyword_terms: tuple[str, ...]
    description_terms: tuple[str, ...]
    body_terms: tuple[str, ...]
    # The index's lower-cased texts, so an excerpt does not lower-case the body again.
    lowered_description: str | None = field(default=None, repr=False, compare=False)
    lowered_body: bytes | None = field(default=None, repr=False, compare=False)  # UTF-8

    def match_reasons(self) -> list[tuple[str, str]]:
        """Every (rule, term) pair that matched, in rule order, then query order."""
        reasons = [("exact", self.exact_term)] if self.exact_term is not None else []
        for rule, matched in (
            ("tag", self.tag_terms),
            ("keyword", self.keyword_terms),
            ("description", self.description_terms),
            ("body", self.body_terms),
        ):
            reasons.extend((rule, term) for term in matched)
        return reasons

    def reasons(self) -> list[dict[str, str]]:
        return [{"rule": rule, "term": term} for rule, term in self.match_reasons()]

    def excerpt(self, excerpt_chars: int) -> str:
        """Around the description's earliest hit, else the body's, else the description's start."""
        if self.description_terms:
            return excerpt_around(
                self.skill.description, self.description_terms, excerpt_chars, self.lowered_description
            )
        if self.body_terms:
            lowered = None if self.lowered_body is None else self.lowered_body.decode("utf-8", _UTF8_ERRORS)
            return excerpt_around(self.skill.instructions, self.body_terms, excerpt_chars, lowered)
        return self.skill.description[:excerpt_chars]


def normalise(query: str) -> str:
    """The whole query as compared with ids and names, and as a cursor remembers it."""
    return query.strip().lower()


def query_terms(query: str) -> list[str]:
    """The lower-cased query split on white space (empty for a blank query)."""
    return query.lower().split()


class SearchIndex:
    """Search over a fixed sequence of skills (kept in the order given: by id)."""

    def __init__(self, skills: Iterable[SkillEntry]) -> None:
        self.skills: tuple[SkillEntry, ...] = tuple(skills)
        self._descriptions = [skill.description.lower() for skill in self.skills]
        # Bodies are most of an index: kept lower-cased as UTF-8, 1 byte a character for
        # ASCII where a str holding one em dash takes 2 for every character. For valid
        # UTF-8, `term.encode() in body` answers as `term in body.decode()` does.
        self._bodies = [skill.instructions.lower().encode("utf-8", _UTF8_ERRORS) for skill in self.skills]
        self._by_tag = _postings((tag.lower() for tag in skill.tags) for skill in self.skills)
        self._by_keyword = _postings((word.lower() for word in skill.keywords) for skill in self.skills)
        self._by_exact = _postings((skill.id.lower(), skill.name.lower()) for skill in self.skills)
        self._substrings: OrderedDict[str, tuple[frozenset[int], frozenset[int]]] = OrderedDict()
        self._ranked: OrderedDict[tuple, SearchResults] = OrderedDict()
        self._lock = threading.Lock()
        # Ties are broken by id: a position's place in id order (the identity when the skills
        # come sorted by id, as a snapshot's always do).
        ids = [skill.id for skill in self.skills]
        if all(a < b for a, b in pairwise(ids)):
            self._id_rank: list[int] | None = None
        else:
            self._id_rank = [0] * len(ids)
            for rank, position in enumerate(sorted(range(len(ids)), key=ids.__getitem__)):
                self._id_rank[position] = rank

    def with_tags(self, tags: Sequence[str]) -> list[SkillEntry]:
        """The skills carrying every one of `tags` (case-insensitive), in order."""
        positions = self._tagged(tags)
        if positions is None:
            return list(self.skills)
        return [self.skills[position] for position in sorted(positions)]

    def search(self, query: str, tags: Sequence[str] = ()) -> "SearchResults":
        """Every skill matching `query` (and carrying every tag), best first.

        The ranking of a (query, tags) pair is remembered (RANKED_CACHE_SIZE per index, as
        positions in an int array), so the later pages of a query and repeats of it cost a
        look-up."""
        terms = query_terms(query)
        if not terms:
            return SearchResults(self, array("i"), "", Counter())
        whole = normalise(query)
        key = (whole, tuple(terms), tuple(sorted({tag.lower() for tag in tags})))
        with self._lock:
            cached = self._ranked.get(key)
            if cached is not None:
                self._ranked.move_to_end(key)
                return cached
        results = self._rank(terms, whole, tags)
        with self._lock:
            self._ranked[key] = results
            while len(self._ranked) > RANKED_CACHE_SIZE:
                self._ranked.popitem(last=False)
        return results

    def _rank(self, terms: list[str], whole: str, tags: Sequence[str]) -> "SearchResults":
        weights = Counter(terms)  # each distinct term counts as often as the query repeats it
        found = {
            term: (
                self._by_tag.get(term, _NOWHERE),
                self._by_keyword.get(term, _NOWHERE),
                *self._substring_postings(term),
            )
            for term in weights
        }
        # Per rule, how many terms each position matched (Counter.update counts in C).
        counts = [Counter() for _ in range(4)]
        for term, weight in weights.items():
            for rule, positions in enumerate(found[term]):
                for _ in range(weight):
                    counts[rule].update(positions)
        exact = self._by_exact.get(whole, _NOWHERE)
        tag_counts, keyword_counts, description_counts, body_counts = counts
        # A skill matching by exact, tag, keyword or description outranks every skill that
        # matches by body alone (the key is compared component by component), so the two
        # groups are ranked apart and the large body-only group with a cheap key.
        strong = set(exact).union(tag_counts, keyword_counts, description_counts)
        body_only = set(body_counts).difference(strong)
        allowed = self._tagged(tags)
        if allowed is not None:
            strong &= allowed
            body_only &= allowed
        size = len(self.skills)
        base = len(terms) + 1
        id_rank = self._id_rank
        by_rank = None
        if id_rank is not None:
            by_rank = [0] * size
            for position, rank in enumerate(id_rank):
                by_rank[rank] = position
        ranked = array("i")
        ranked.extend(self._ordered(strong, exact, counts, base, size, id_rank, by_rank))
        if len(weights) == 1 and id_rank is None:
            ranked.extend(sorted(body_only))  # every body-only count is the term's weight
        else:
            ranked.extend(self._ordered(body_only, _NOWHERE, counts, base, size, id_rank, by_rank))
        return SearchResults(self, ranked, whole, weights)

    @staticmethod
    def _ordered(
        positions: set[int],
        exact: Collection[int],
        counts: list[Counter[int]],
        base: int,
        size: int,
        id_rank: list[int] | None,
        by_rank: list[int] | None,
    ) -> list[int]:
        """`positions` best first: keys packed into one int (five counts in base `base`, no
        count exceeding the number of terms), negated for "higher first", then the id rank."""
        tag_get, keyword_get, description_get, body_get = (counter.get for counter in counts)
        keys = sorted(
            -(
                (
                    (((position in exact) * base + tag_get(position, 0)) * base + keyword_get(position, 0))
                    * base
                    + description_get(position, 0)
                )
                * base
                + body_get(position, 0)
            )
            * size
            + (position if id_rank is None else id_rank[position])
            for position in positions
        )
        if by_rank is None:
            return [key % size for key in keys]
        return [by_rank[key % size] for key in keys]

    def hit(self, position: int, whole: str, weights: Counter[str]) -> SearchHit:
        """The full account of why the skill at `position` matched (worked out for this one
        skill, so a remembered ranking need not keep every term's postings)."""
        skill = self.skills[position]
        exact = whole == skill.id.lower() or whole == skill.name.lower()
        description, body = self._descriptions[position], self._bodies[position]
        errors = _UTF8_ERRORS
        matched = [
            tuple(term for term in weights if position in self._by_tag.get(term, _NOWHERE)),
            tuple(term for term in weights if position in self._by_keyword.get(term, _NOWHERE)),
            tuple(term for term in weights if term in description),
            tuple(term for term in weights if term.encode("utf-8", errors) in body),
        ]
        return SearchHit(
            skill=skill,
            sort_key=(1 if exact else 0, *(sum(weights[term] for term in terms) for terms in matched)),
            exact_term=whole if exact else None,
            tag_terms=matched[0],
            keyword_terms=matched[1],
            description_terms=matched[2],
            body_terms=matched[3],
            lowered_description=description,
            lowered_body=body,
        )

    def _tagged(self, tags: Sequence[str]) -> set[int] | None:
        """Positions carrying every tag; None when there is no tag to filter by."""
        wanted = {tag.lower() for tag in tags}
        if not wanted:
            return None
        sets = sorted((self._by_tag.get(tag, _NOWHERE) for tag in wanted), key=len)
        return set(sets[0]).intersection(*sets[1:])

    def _substring_postings(self, term: str) -> tuple[frozenset[int], frozenset[int]]:
        """Positions whose description, and whose body, contain `term`."""
        with self._lock:
            cached = self._substrings.get(term)
            if cached is not None:
                self._substrings.move_to_end(term)
                return cached
        encoded = term.encode("utf-8", _UTF8_ERRORS)
        computed = (
            frozenset(position for position, text in enumerate(self._descriptions) if term in text),
            frozenset(position for position, text in enumerate(self._bodies) if encoded in text),
        )
        with self._lock:
            self._substrings[term] = computed
            while len(self._substrings) > TERM_CACHE_SIZE:
                self._substrings.popitem(last=False)
        return computed


class SearchResults(Sequence[SearchHit]):
    """Ranked hits; each SearchHit is built when it is read, so a page costs only its own."""

    def __init__(
        self, index: SearchIndex, positions: Sequence[int], whole: str, weights: Counter[str]
    ) -> None:
        self._index = index
        self._positions = positions
        self._hit_args = (whole, weights)

    def __len__(self) -> int:
        return len(self._positions)

    @overload
    def __getitem__(self, item: int) -> SearchHit: ...

    @overload
    def __getitem__(self, item: slice) -> list[SearchHit]: ...

    def __getitem__(self, item: int | slice) -> SearchHit | list[SearchHit]:
        if isinstance(item, slice):
            return [self._index.hit(position, *self._hit_args) for position in self._positions[item]]
        return self._index.hit(self._positions[item], *self._hit_args)


def _postings(values_per_skill: Iterable[Iterable[str]]) -> dict[str, Collection[int]]:
    """Positions per value: a sorted tuple when short (most ids, names and rare tags), else a
    frozenset."""
    postings: dict[str, set[int]] = {}
    for position, values in enumerate(values_per_skill):
        for value in values:
            postings.setdefault(value, set()).add(position)
    return {
        value: tuple(sorted(positions)) if len(positions) <= _SMALL_POSTINGS else frozenset(positions)
        for value, positions in postings.items()
    }


def search(skills: Iterable[SkillEntry], query: str, tags: Sequence[str] = ()) -> list[SearchHit]:
    """One-off search over `skills` (build a SearchIndex to search the same skills often)."""
    return list(SearchIndex(skills).search(query, tags))


def filter_by_tags(skills: Iterable[SkillEntry], tags: Sequence[str]) -> list[SkillEntry]:
    """The skills carrying every one of `tags`, compared case-insensitively; order kept."""
    return SearchIndex(skills).with_tags(tags)


def excerpt_around(text: str, terms: Sequence[str], excerpt_chars: int, lowered: str | None = None) -> str:
    """At most `excerpt_chars` characters of `text`, centred on the earliest hit of any term.

    Of hits starting at the same place, the longest term is the one centred. Positions
    are found case-insensitively but the excerpt is cut from the original text.
    `lowered`, if given, is `text.lower()` (an index keeps it).
    """
    if lowered is None:
        lowered = text.lower()
    best: tuple[int, int] | None = None  # (start, -length) in the lowered text
    for term in terms:
        found = lowered.find(term)
        if found >= 0 and (best is None or (found, -len(term)) < best):
            best = (found, -len(term))
    if best is None:
        return text[:excerpt_chars]
    if len(text) <= excerpt_chars:
        return text
    start, end = best[0], best[0] - best[1]
    if len(lowered) != len(text):
        start, end = _original_index(text, start), _original_index(text, end)
    centre = (start + end) // 2
    first = min(max(0, centre - excerpt_chars // 2), len(text) - excerpt_chars)
    return text[first : first + excerpt_chars]


def _original_index(text: str, lowered_index: int) -> int:
    """The index in `text` of position `lowered_index` of `text.lower()`.

    Lower-casing can change a string's length (e.g. 'İ' becomes two characters), so a
    position found in the lowered text is walked back to the original.
    """
    consumed = 0
    for index, char in enumerate(text):
        consumed += len(char.lower())
        if consumed > lowered_index:
            return index
    return len(text)
