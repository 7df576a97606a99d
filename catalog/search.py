"""Search over one view's skills, best first (docs/reference.md#search).

No database, no HTTP, no callers: a SearchIndex is built from a fixed sequence of SkillEntry
(one snapshot as one caller may see it), and everything it knows comes from those skills.

Terms (catalog.searchquery): the query's words (catalog.textwords: runs of letters and
digits, case-folded), stop words dropped, and a word whose stem an earlier word already has
dropped as a repeat. A term matches a word of a field when both have the same stem. Tags and
keywords also match as whole strings (catalog.searchlabels). A query left with no term
matches only the skills whose id or name it equals.

Order, higher first, each component deciding only ties of the ones before it:

    1. 1 if the whole query (trimmed, case-folded) equals the id or the name, else 0
    2. the number of terms matching a tag
    3. the number of terms matching a keyword
    4. the BM25F text score over name, description and body (catalog.textindex)

then id ascending. Every component is an integer, so the order is the same in every process.
A skill that matches nothing is not a result.

Speed: every (stem, skill) text score is worked out once, at build (catalog.textindex: a
slot per skill for a stem at least a quarter of the skills hold, pairs by position for a
rarer one), so a query never seen before costs no float arithmetic. Each match's place is
one integer key packing the whole order (SearchIndex._keys). A first ranking works out only
its first PREFIX ranks, one of two ways:

- by labels, when the query has at most LABEL_PASSES label postings by classes (nearly
  every query): the first three components come from the label postings alone (each class
  a bitmap, from the counts as bit slices, catalog.searchbits), the skills matching by text
  only the last class (all three 0), so only the members of the best classes (exact, tag
  count, keyword count) that together hold PREFIX skills get a text score, read by
  position from the prepared scores; the other matches are never scored. Of a large last
  class (BANDED_CLASS), only the members read in the terms' score bands, kept per index
  per stem (catalog.scoreheads), are listed and scored.
  The count of matches, which the pages' cursors need, is the size of a union of bitmaps
  (catalog.searchbits): the holders of each term's stem in the text, tags and keywords, the
  labels matched whole and the exact matches;
- else by every match: the keys of all of them (a sum of prepared integers), the PREFIX
  smallest picked without sorting them all, and kept (8 bytes a match) so a deeper page
  picks more the same way.

The whole order is worked out when a rank past the first ones is first read (a ranking made
by labels ranks every match then). A ranking is remembered (a bounded number per index), so
the later pages of a query cost a look-up. A hit's reasons and excerpt (catalog.searchhits)
are worked out only for the page that is returned (the instructions decoded only when the
description holds no term). Rankings and their order are the same either way:
tests/catalog/test_search_cold.py compares every page with a plain sort of the documented key.
"""

import threading
from array import array
from collections import Counter, OrderedDict
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import pairwise, repeat
from operator import add, mul, rshift, sub

from catalog.entries import SkillEntry
from catalog.scoreheads import BANDED_CLASS, ScoreHeads, best_members
from catalog.searchbits import bitmap, count_slices, counted_exactly
from catalog.searchbits import members as members_of
from catalog.searchhits import SearchHit, SearchResults, earliest_in
from catalog.searchlabels import Labels, freeze_lists
from catalog.searchquery import Held, Query, Term, normalise, parse_query
from catalog.searchranking import PREFIX, Ranking, smallest
from catalog.searchspans import EarliestSpans
from catalog.textindex import TextIndex

RULES = ("exact", "tag", "keyword", "name", "description", "body")
# Rankings an index remembers per (query, tags): 4 bytes per result each once wholly ordered,
# 8 bytes a match (its keys) while only its first pages are, and the hits of the pages read.
# 32, not 128: at 10,000 skills 128 held 5.8 MB per index (45 KB a ranking of the cold row's
# queries), and a repeated page is the answer cache's (mcpapi.answer_cache) since search pages
# are kept there; a ranking serves the deeper pages of the queries just asked
# (docs/benchmarks.md, "Every cache full, session 6").
RANKED_CACHE_SIZE = 32
# Tag postings times possible keyword counts a ranking by labels takes at most (it tests
# twice as many label classes, each a few big-integer operations, catalog.searchbits): a
# query of more labelled terms than that ranks every match.
LABEL_PASSES = 32
# The smallest key an array("q") holds; a ranking with a smaller one (a huge tag or keyword
# count) keeps no keys and ranks again when a deeper page is read.
KEPT_KEY_MIN = -(1 << 63)
_NOWHERE: tuple[int, ...] = ()
# The text fields' rules, each with its bit in a Held's fields (catalog.textindex).
_TEXT_RULES = ((1, "name"), (2, "description"), (4, "body"))
__all__ = ["RULES", "SearchHit", "SearchIndex", "SearchResults", "normalise", "parse_query"]


@dataclass(frozen=True, slots=True)
class Matchers:
    """What a query's reasons test each of its hits against, worked out once per query (the
    labels it matches whole are found by scanning the query): the skills it matches exactly,
    and each tag and keyword match (a term's word or a whole label) with its skills."""

    exact: Collection[int]
    tags: list[tuple[str, Collection[int]]]
    keywords: list[tuple[str, Collection[int]]]
    fields: list[tuple[Term, Callable[[int], int]]]  # each term, and the fields holding it by position


class SearchIndex:
    """Search over a fixed sequence of skills (kept in the order given: by id)."""

    def __init__(self, skills: Iterable[SkillEntry]) -> None:
        self.skills: tuple[SkillEntry, ...] = tuple(skills)
        # One body decoded at a time (a SkillEntry keeps its instructions as UTF-8).
        self.text = TextIndex(
            ((s.name, s.description, s.instructions) for s in self.skills), len(self.skills)
        )
        self._tags = Labels(skill.tags for skill in self.skills)
        self._keywords = Labels(skill.keywords for skill in self.skills)
        self._by_tag = freeze_lists((tag.casefold() for tag in skill.tags) for skill in self.skills)
        self._by_exact = freeze_lists((skill.id.casefold(), skill.name.casefold()) for skill in self.skills)
        self._ranked: OrderedDict[tuple[str, tuple[str, ...]], SearchResults] = OrderedDict()
        # The earliest word with each stem in a hit's fields, for the excerpts (catalog.searchspans).
        self.spans = EarliestSpans(self.skills, earliest_in)
        self._heads = ScoreHeads(self.text)  # what the first ranks of a large label class are read through
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

        The ranking of a (query, tags) pair is remembered (RANKED_CACHE_SIZE per index, a
        Ranking each), so the later pages of a query and repeats of it cost a look-up, or a
        pick from its kept keys."""
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

    def _rank(self, query: Query, tags: Sequence[str], whole: bool = False) -> "Ranking":
        """The ranking of `query` among the skills carrying `tags`: its first PREFIX ranks
        only, unless `whole` or the matches are few (the rest is worked out when a deeper
        page is read, see Ranking)."""
        exact = set(self._by_exact.get(query.whole, _NOWHERE))
        allowed = self._tagged(tags)
        if not query.terms:
            positions = array("i", self._ordered(exact if allowed is None else exact & allowed, {}))
            return Ranking(positions, len(positions))
        if not whole and self._id_rank is None:
            found = self._by_labels(query, tags, exact, allowed)
            if found is not None:
                return found
        tag_counts = self._tags.counts(query)
        keyword_counts = self._keywords.counts(query)
        keys = self._keys(query, exact, allowed, tag_counts, keyword_counts)
        if whole or len(keys) <= 4 * PREFIX:
            return Ranking(self._decoded(sorted(keys)), len(keys))
        # The first pages are what nearly every request reads: the PREFIX smallest keys cost
        # one pass over the matches, where sorting them all costs log(n) passes. The keys are
        # kept (8 bytes a match) so that a deeper page picks more of them the same way.
        prefix = self._decoded(smallest(keys, PREFIX))
        if KEPT_KEY_MIN <= min(keys):
            return Ranking(prefix, len(keys), self._decoded, array("q", keys))
        return Ranking(prefix, len(keys), lambda _: self._rank(query, tags, whole=True).positions)

    def _by_labels(
        self, query: Query, tags: Sequence[str], exact: set[int], allowed: set[int] | None
    ) -> "Ranking | None":
        """The first PREFIX ranks (None past LABEL_PASSES): the first three components are
        worked out from the label postings alone, the skills matching by text only are the
        last class (all three 0), so only the best classes, by (exact, tag count, keyword
        count), that hold PREFIX skills need a text score. The rest of the ranking is worked
        out whole when a deeper page is read; the count of matches is a union of bitmaps."""
        tag_bits = self._tags.bitmaps(query)
        keyword_bits = self._keywords.bitmaps(query)
        tag_radix = len(tag_bits) + 1  # more than any tag count
        keyword_radix = len(keyword_bits) + 1  # more than any keyword count
        if len(tag_bits) * keyword_radix > LABEL_PASSES:
            return None
        size = len(self.skills)
        exact_bits = bitmap(exact, size) if exact else 0
        labelled = exact_bits
        for bits in tag_bits + keyword_bits:
            labelled |= bits
        text = self.text
        matching = labelled
        for term in query.terms:
            matching |= text.holders(term.stem)
        if allowed is not None:
            allowed_bits = bitmap(allowed, size)
            labelled &= allowed_bits
            matching &= allowed_bits
        if labelled.bit_count() < PREFIX:
            # Too few labelled matches: the text-only ones are one more class, the last
            # (exact 0, tag count 0, keyword count 0), read like the others (docs/benchmarks.md,
            # "A cold query's fixed work, session 6").
            labelled = matching
            if not matching:
                return Ranking(array("i"), 0)
        # Each class, (exact, tag count, keyword count) packed in one integer as the keys pack
        # it, is a bitmap: the counts as bit slices, a class the skills with exactly its counts.
        # Best first, the classes that hold the first PREFIX members: their members and no others.
        tag_slices = count_slices(tag_bits)
        keyword_slices = count_slices(keyword_bits)
        by_keywords = [counted_exactly(keyword_slices, count, labelled) for count in range(keyword_radix)]
        members: list[int] = []
        known: list[int] = []  # the scores of the last members, when the bands read them
        labels: list[tuple[int, int]] = []  # each class taken, best first, and its member count
        for exactly in (1, 0):
            among = labelled & exact_bits if exactly else labelled & ~exact_bits
            for tag_count in range(tag_radix - 1, -1, -1):
                tagged = counted_exactly(tag_slices, tag_count, among) if among else 0
                for keyword_count in range(keyword_radix - 1, -1, -1) if tagged else ():
                    found, known = self._class_members(
                        query, tagged & by_keywords[keyword_count], PREFIX - len(members)
                    )
                    if found:
                        members.extend(found)
                        label = (exactly * tag_radix + tag_count) * keyword_radix + keyword_count
                        labels.append((label, len(found)))
                        if len(members) >= PREFIX:
                            break
                if len(members) >= PREFIX:
                    break
            if len(members) >= PREFIX:
                break
        scores = self._totals(query.terms, members[: len(members) - len(known)]) + known
        score_radix = (max(scores) + 1) * size
        # A member's key less its position: its class's part, one product per class, and its score's.
        offsets: list[int] = []
        for label, count in labels:
            offsets.extend(repeat(label * score_radix, count))
        keys = map(sub, members, map(add, offsets, map(mul, scores, repeat(size))))
        prefix = array("i", [key % size for key in smallest(keys, PREFIX)])
        return Ranking(prefix, matching.bit_count(), lambda _: self._rank(query, tags, whole=True).positions)

    def _class_members(self, query: Query, bits: int, wanted: int) -> tuple[list[int], list[int]]:
        """The members of a label class, or only its `wanted` best when it holds more than
        that and is large (BANDED_CLASS): picked through the terms' score heads when they
        settle them (catalog.scoreheads), the others are never listed; and the scores of
        those the bands read (else none: the class is the last, so only its can be known)."""
        count = bits.bit_count()
        if wanted < count and BANDED_CLASS <= count:
            heads = [self._heads.of(term.stem) for term in query.terms]
            size = len(self.skills)
            best = best_members(heads, bits, wanted, size, partial(self._totals, query.terms))
            if best is not None:
                return [key % size for key in best], [-(key // size) for key in best]
        return members_of(bits), []

    def _totals(self, terms: Sequence[Term], positions: list[int]) -> list[int]:
        """The text score of each of `positions`: the sum of each term's, read by position."""
        packed = self.text.packed
        first, *others = terms
        totals: Iterable[int] = map(rshift, packed(first.stem, positions), repeat(3))
        for term in others:
            totals = map(add, totals, map(rshift, packed(term.stem, positions), repeat(3)))
        return list(totals)

    def _keys(
        self,
        query: Query,
        exact: set[int],
        allowed: set[int] | None,
        tag_counts: Counter[int],
        keyword_counts: Counter[int],
    ) -> list[int]:
        """One integer per matching skill, smaller first in the order of docs/reference.md#search:
        the components (exact, tag count, keyword count, text score, id rank) packed in that
        order, each in a radix larger than any of its values, negated but for the id rank, so
        comparing two keys compares the tuples component by component."""
        scores = self._text_scores(query.terms)
        size = len(self.skills) or 1
        rank = self._id_rank
        strong = exact.union(tag_counts, keyword_counts)
        if allowed is not None:
            strong &= allowed
        # A set test per candidate, not a filtered copy of the scores.
        skipped = strong if allowed is None else strong.union(scores.keys() - allowed)
        items = scores.items()
        if rank is None:
            if skipped:
                keys = [position - score * size for position, score in items if position not in skipped]
            else:
                keys = [position - score * size for position, score in items]
        else:
            keys = [rank[position] - score * size for position, score in items if position not in skipped]
        if strong:
            tag_radix = max(tag_counts.values(), default=0) + 1
            keyword_radix = max(keyword_counts.values(), default=0) + 1
            score_radix = (max(scores.values(), default=0) + 1) * size
            get = scores.get
            for position in strong:
                label = ((position in exact) * tag_radix + tag_counts.get(position, 0)) * keyword_radix
                label += keyword_counts.get(position, 0)
                place = position if rank is None else rank[position]
                keys.append(place - label * score_radix - get(position, 0) * size)
        return keys

    def _decoded(self, keys: Iterable[int]) -> array:
        """The positions of ordered keys (a key's id rank is its remainder by the size)."""
        size = len(self.skills) or 1
        if self._id_rank is None:
            return array("i", [key % size for key in keys])
        by_rank = self._by_rank()
        return array("i", [by_rank[key % size] for key in keys])

    def _by_rank(self) -> list[int]:
        rank = self._id_rank
        assert rank is not None
        by_rank = [0] * len(rank)
        for position, place in enumerate(rank):
            by_rank[place] = position
        return by_rank

    def _text_scores(self, terms: Sequence[Term]) -> dict[int, int]:
        """The text score of every skill holding any term: integers, so the sum is the same
        whatever the order of addition."""
        found = [self.text.scores(term.stem) for term in terms]
        found.sort(key=len, reverse=True)
        if not found:
            return {}
        total = found[0]
        for more in found[1:]:
            # Only the skills holding both need an addition; the rest are copied whole.
            both = {position: total[position] + more[position] for position in total.keys() & more.keys()}
            total.update(more)
            total.update(both)
        return total

    def _ordered(self, positions: Collection[int], scores: dict[int, int]) -> list[int]:
        """`positions` by score (higher first), then id: one integer key each."""
        size = len(self.skills)
        rank = self._id_rank
        get = scores.get
        if rank is None:
            return [key % size for key in sorted(-get(p, 0) * size + p for p in positions)]
        by_rank = self._by_rank()
        return [by_rank[key % size] for key in sorted(-get(p, 0) * size + rank[p] for p in positions)]

    def matchers(self, query: Query) -> Matchers:
        """What the reasons and excerpt of every hit of `query` test it against (see reasons)."""
        return Matchers(
            self._by_exact.get(query.whole, _NOWHERE),
            self._tags.matchers(query) if query.terms else [],
            self._keywords.matchers(query) if query.terms else [],
            [(term, self.text.fields_reader(term.stem)) for term in query.terms],
        )

    def reasons(self, position: int, query: Query, held: Held, matchers: Matchers) -> list[tuple[str, str]]:
        """Every (rule, term) by which the skill at `position` matches `query`; `held` says
        which of its text fields hold each term, `matchers` is self.matchers(query)."""
        reasons = []
        if position in matchers.exact:
            reasons.append(("exact", query.whole))
        if not query.terms:
            return reasons
        for what, positions in matchers.tags:
            if position in positions:
                reasons.append(("tag", what))
        for what, positions in matchers.keywords:
            if position in positions:
                reasons.append(("keyword", what))
        for bit, rule in _TEXT_RULES:
            for term, fields in held:
                if fields & bit:
                    reasons.append((rule, term.word))
        return reasons

    def _tagged(self, tags: Sequence[str]) -> set[int] | None:
        """Positions carrying every tag; None when there is no tag to filter by."""
        wanted = {tag.casefold() for tag in tags}
        if not wanted:
            return None
        sets = sorted((self._by_tag.get(tag, _NOWHERE) for tag in wanted), key=len)
        return set(sets[0]).intersection(*sets[1:])
