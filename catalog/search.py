"""Search over one view's skills, best first (docs/reference.md#search).

No database, no HTTP, no callers: a SearchIndex is built from a fixed sequence of SkillEntry
(one snapshot as one caller may see it), and everything it knows comes from those skills.

Terms: the query's words (catalog.textwords: runs of letters and digits, case-folded), stop
words dropped, and a word whose stem an earlier word already has dropped as a repeat. A term
matches a word of a field when both have the same stem. Tags and keywords (labels) also match
whole: a label found in the case-folded query as a whole string, not cut inside a word
(`code-review` in "code-review checklist"), counts as one more matching term, unless it is
itself one of the query's words (then it is that word's match, counted once). A query left
with no term matches only the skills whose id or name it equals.

Order, higher first, each component deciding only ties of the ones before it:

    1. 1 if the whole query (trimmed, case-folded) equals the id or the name, else 0
    2. the number of terms matching a tag
    3. the number of terms matching a keyword
    4. the BM25F text score over name, description and body (catalog.textindex)

then id ascending. Every component is an integer, so the order is the same in every process.
A skill that matches nothing is not a result.

Speed: postings of stems, label postings and field lengths are built once per index; a query
costs work in proportion to the postings of its terms, and its ranking is remembered (a
bounded number per index), so the later pages of a query cost a look-up. A hit's reasons and
excerpt are worked out only for the page that is returned.
"""

import threading
from array import array
from collections import Counter, OrderedDict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import overload

from catalog.index import SkillEntry
from catalog.textindex import TextIndex
from catalog.textwords import earliest_with_stem, in_word, stem, words

RULES = ("exact", "tag", "keyword", "name", "description", "body")
# Rankings an index remembers per (query, tags): 4 bytes per result each.
RANKED_CACHE_SIZE = 128
# Hits a remembered ranking keeps, with their reasons and excerpts once worked out: the first
# two default pages, which repeated queries ask for again (about 1 KB a hit).
KEPT_HITS = 40
_NOWHERE: tuple[int, ...] = ()
# Postings this short are tuples (a one-skill tuple is 48 bytes, a frozenset 216).
_SMALL_POSTINGS = 8


def normalise(query: str) -> str:
    """The whole query as the exact rule compares it: trimmed and case-folded. Two queries
    with the same normal form get the same results."""
    return query.strip().casefold()


@dataclass(frozen=True, slots=True)
class Term:
    word: str  # as the query has it, case-folded
    stem: str


@dataclass(frozen=True, slots=True)
class Query:
    """A query as search reads it."""

    whole: str  # normalise(query): what the exact rule and whole labels are compared with
    terms: tuple[Term, ...]
    content_words: frozenset[str]  # every word of the query that is not a stop word
    all_words: tuple[str, ...]  # every distinct word, stop words included, in order


Held = list[tuple[Term, tuple[bool, bool, bool]]]  # each term; whether name, description, body hold it


def parse_query(query: str) -> Query:
    """The terms and words of `query`, read from its normal form (so that two queries with
    one normal form are one query)."""
    whole = normalise(query)
    found = words(whole)
    terms: dict[str, Term] = {}
    content = set()
    for word in found:
        word_stem = stem(word)
        if word_stem is None:
            continue
        content.add(word)
        if word_stem not in terms:
            terms[word_stem] = Term(word, word_stem)
    return Query(
        whole=whole,
        terms=tuple(terms.values()),
        content_words=frozenset(content),
        all_words=tuple(dict.fromkeys(found)),
    )


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


class _Labels:
    """Tags, or keywords: which skills have a label word of each stem, and the labels that
    could match whole on their own (several words, symbols, or a stop word), by first word."""

    def __init__(self, labels_per_skill: Iterable[Iterable[str]]) -> None:
        by_stem: dict[str, set[int]] = {}
        by_first_word: dict[str, dict[str, set[int]]] = {}
        for position, labels in enumerate(labels_per_skill):
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
        self._by_first_word = {
            word: tuple((label, _frozen(positions)) for label, positions in labels.items())
            for word, labels in by_first_word.items()
        }

    def matched(self, position: int, query: Query) -> list[str]:
        """What the labels of the skill at `position` match: the terms, in query order, then
        the labels matched whole, in query order."""
        found = [term.word for term in query.terms if position in self._by_stem.get(term.stem, _NOWHERE)]
        for word in query.all_words:
            for label, positions in self._by_first_word.get(word, ()):
                if position in positions and label not in query.content_words:
                    if found_whole(label, query.whole):
                        found.append(label)
        return found

    def counts(self, query: Query) -> Counter[int]:
        """How many terms (and labels matched whole) each skill's labels match."""
        counts: Counter[int] = Counter()
        for term in query.terms:
            counts.update(self._by_stem.get(term.stem, _NOWHERE))
        for word in query.all_words:
            for label, positions in self._by_first_word.get(word, ()):
                if label not in query.content_words and found_whole(label, query.whole):
                    counts.update(positions)
        return counts


class SearchHit:
    """A matching skill; why it matched and its excerpt are worked out when first asked for,
    then kept (a remembered ranking keeps the hits of the pages it served)."""

    __slots__ = ("_excerpts", "_held", "_index", "_position", "_query", "_reasons", "skill")

    def __init__(self, index: "SearchIndex", position: int, query: Query) -> None:
        self.skill: SkillEntry = index.skills[position]
        self._index = index
        self._position = position
        self._query = query
        self._held: Held | None = None
        self._reasons: list[tuple[str, str]] | None = None
        self._excerpts: dict[int, str] = {}

    def match_reasons(self) -> list[tuple[str, str]]:
        """Every (rule, term) that matched, in rule order, then query order."""
        if self._reasons is None:
            self._reasons = self._index.reasons(self._position, self._query, self._text_fields())
        return list(self._reasons)

    def excerpt(self, excerpt_chars: int) -> str:
        """At most `excerpt_chars` characters of the description around its earliest matched
        word, else of the body around its earliest matched word, else the description's start."""
        found = self._excerpts.get(excerpt_chars)
        if found is None:
            found = self._excerpts[excerpt_chars] = excerpt_of(self.skill, self._text_fields(), excerpt_chars)
        return found

    def _text_fields(self) -> Held:
        """Each term, and whether the name, description and body hold it."""
        if self._held is None:
            holding = self._index.text.fields_holding
            self._held = [(term, holding(term.stem, self._position)) for term in self._query.terms]
        return self._held


def excerpt_of(skill: SkillEntry, held: Held, excerpt_chars: int) -> str:
    for field, text in ((1, skill.description), (2, skill.instructions)):
        stems = [term.stem for term, fields in held if fields[field]]
        if stems:
            return excerpt_around(text, stems, excerpt_chars)
    return skill.description[:excerpt_chars]


def excerpt_around(text: str, stems: Collection[str], excerpt_chars: int) -> str:
    """At most `excerpt_chars` characters of `text`, centred on its earliest word with one of
    `stems` (the start of `text` when none has)."""
    if len(text) <= excerpt_chars:
        return text
    found = earliest_with_stem(text, stems)
    if found is None:
        return text[:excerpt_chars]
    centre = (found[0] + found[1]) // 2
    first = min(max(0, centre - excerpt_chars // 2), len(text) - excerpt_chars)
    return text[first : first + excerpt_chars]


class SearchIndex:
    """Search over a fixed sequence of skills (kept in the order given: by id)."""

    def __init__(self, skills: Iterable[SkillEntry]) -> None:
        self.skills: tuple[SkillEntry, ...] = tuple(skills)
        self.text = TextIndex([(skill.name, skill.description, skill.instructions) for skill in self.skills])
        self._tags = _Labels(skill.tags for skill in self.skills)
        self._keywords = _Labels(skill.keywords for skill in self.skills)
        self._by_tag = _freeze_lists((tag.casefold() for tag in skill.tags) for skill in self.skills)
        self._by_exact = _freeze_lists((skill.id.casefold(), skill.name.casefold()) for skill in self.skills)
        self._ranked: OrderedDict[tuple[str, tuple[str, ...]], SearchResults] = OrderedDict()
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
        key = (normalise(query), tuple(sorted({tag.casefold() for tag in tags})))
        with self._lock:
            cached = self._ranked.get(key)
            if cached is not None:
                self._ranked.move_to_end(key)
                return cached
        parsed = parse_query(query)
        results = SearchResults(self, self._rank(parsed, tags), parsed)
        with self._lock:
            self._ranked[key] = results
            while len(self._ranked) > RANKED_CACHE_SIZE:
                self._ranked.popitem(last=False)
        return results

    def _rank(self, query: Query, tags: Sequence[str]) -> array:
        exact = set(self._by_exact.get(query.whole, _NOWHERE))
        allowed = self._tagged(tags)
        ranked = array("i")
        if not query.terms:
            ranked.extend(self._ordered(exact if allowed is None else exact & allowed, {}))
            return ranked
        tag_counts = self._tags.counts(query)
        keyword_counts = self._keywords.counts(query)
        scores = self._text_scores(query.terms)
        # A skill matching by exact, tag or keyword outranks every skill that matches by its
        # text alone (the key is compared component by component), so the two groups are
        # ranked apart, the usually large text-only group with a cheap integer key.
        strong = exact.union(tag_counts, keyword_counts)
        text_only = scores.keys() - strong
        if allowed is not None:
            strong &= allowed
            text_only &= allowed
        rank = self._id_rank
        keys = sorted(
            (
                -(position in exact),
                -tag_counts.get(position, 0),
                -keyword_counts.get(position, 0),
                -scores.get(position, 0),
                position if rank is None else rank[position],
                position,
            )
            for position in strong
        )
        ranked.extend(key[-1] for key in keys)
        ranked.extend(self._ordered(text_only, scores))
        return ranked

    def _text_scores(self, terms: Sequence[Term]) -> dict[int, int]:
        """The text score of every skill holding any term: integers, so the sum is the same
        whatever the order of addition."""
        total: dict[int, int] = {}
        for term in terms:
            scores = self.text.scores(term.stem)
            if len(scores) > len(total):
                total, scores = scores, total
            get = total.get
            for position, score in scores.items():
                total[position] = get(position, 0) + score
        return total

    def _ordered(self, positions: Collection[int], scores: dict[int, int]) -> list[int]:
        """`positions` by score (higher first), then id: one integer key each."""
        size = len(self.skills)
        rank = self._id_rank
        get = scores.get
        if rank is None:
            return [key % size for key in sorted(-get(p, 0) * size + p for p in positions)]
        by_rank = [0] * size
        for position, place in enumerate(rank):
            by_rank[place] = position
        return [by_rank[key % size] for key in sorted(-get(p, 0) * size + rank[p] for p in positions)]

    def reasons(self, position: int, query: Query, held: Held) -> list[tuple[str, str]]:
        """Every (rule, term) by which the skill at `position` matches `query`; `held` says
        which of its text fields hold each term."""
        reasons = []
        if position in self._by_exact.get(query.whole, _NOWHERE):
            reasons.append(("exact", query.whole))
        if not query.terms:
            return reasons
        reasons.extend(("tag", term) for term in self._tags.matched(position, query))
        reasons.extend(("keyword", term) for term in self._keywords.matched(position, query))
        for field, rule in enumerate(("name", "description", "body")):
            reasons.extend((rule, term.word) for term, fields in held if fields[field])
        return reasons

    def _tagged(self, tags: Sequence[str]) -> set[int] | None:
        """Positions carrying every tag; None when there is no tag to filter by."""
        wanted = {tag.casefold() for tag in tags}
        if not wanted:
            return None
        sets = sorted((self._by_tag.get(tag, _NOWHERE) for tag in wanted), key=len)
        return set(sets[0]).intersection(*sets[1:])


class SearchResults(Sequence[SearchHit]):
    """Ranked hits; each SearchHit is built when it is read, so a page costs only its own."""

    def __init__(self, index: SearchIndex, positions: Sequence[int], query: Query) -> None:
        self._index = index
        self._positions = positions
        self._query = query
        self._hits: dict[int, SearchHit] = {}  # by rank, the first KEPT_HITS only

    def __len__(self) -> int:
        return len(self._positions)

    @overload
    def __getitem__(self, item: int) -> SearchHit: ...

    @overload
    def __getitem__(self, item: slice) -> list[SearchHit]: ...

    def __getitem__(self, item: int | slice) -> SearchHit | list[SearchHit]:
        if isinstance(item, slice):
            return [self._hit(rank) for rank in range(*item.indices(len(self._positions)))]
        if item < 0:
            item += len(self._positions)
        if not 0 <= item < len(self._positions):
            raise IndexError(item)
        return self._hit(item)

    def _hit(self, rank: int) -> SearchHit:
        hit = self._hits.get(rank)
        if hit is None:
            hit = SearchHit(self._index, self._positions[rank], self._query)
            if rank < KEPT_HITS:
                self._hits[rank] = hit
        return hit


def _frozen(positions: set[int]) -> Collection[int]:
    """A sorted tuple when short (most ids, names and rare labels), else a frozenset."""
    return tuple(sorted(positions)) if len(positions) <= _SMALL_POSTINGS else frozenset(positions)


def _freeze(postings: dict[str, set[int]]) -> dict[str, Collection[int]]:
    return {value: _frozen(positions) for value, positions in postings.items()}


def _freeze_lists(values_per_skill: Iterable[Iterable[str]]) -> dict[str, Collection[int]]:
    """Positions per value."""
    postings: dict[str, set[int]] = {}
    for position, values in enumerate(values_per_skill):
        for value in values:
            postings.setdefault(value, set()).add(position)
    return _freeze(postings)
