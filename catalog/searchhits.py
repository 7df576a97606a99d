"""The page of a search: its hits, why each matched and its excerpt, worked out only for the
ranks that are read (docs/reference.md#search). The ranking itself is catalog.search's."""

from collections.abc import Callable, Collection, Sequence
from functools import partial
from typing import TYPE_CHECKING, overload

from catalog.entries import SkillEntry
from catalog.searchquery import Held, Query
from catalog.textwords import earliest_with_stem, earliest_with_stem_utf8

if TYPE_CHECKING:  # the index and its rankings make these; only their types are read here
    from catalog.search import Matchers, Ranking, SearchIndex

# Hits a remembered ranking keeps, with their reasons and excerpts once worked out: the first
# two default pages, which repeated queries ask for again (about 1 KB a hit).
KEPT_HITS = 40


class SearchHit:
    """A matching skill; why it matched and its excerpt are worked out when first asked for,
    then kept (a remembered ranking keeps the hits of the pages it served)."""

    __slots__ = ("_excerpts", "_held", "_index", "_matchers", "_position", "_query", "_reasons", "skill")

    def __init__(self, results: "SearchResults", position: int) -> None:
        index = results.source
        self.skill: SkillEntry = index.skills[position]
        self._index = index
        # Not the results themselves, which keep this hit: no cycle (see QueryMatchers).
        self._matchers = results.matchers
        self._position = position
        self._query = results.query
        self._held: Held | None = None
        self._reasons: list[tuple[str, str]] | None = None
        self._excerpts: dict[int, str] = {}

    def match_reasons(self) -> list[tuple[str, str]]:
        """Every (rule, term) that matched, in rule order, then query order."""
        if self._reasons is None:
            self._reasons = self._index.reasons(
                self._position, self._query, self._text_fields(), self._matchers()
            )
        return list(self._reasons)

    def excerpt(self, excerpt_chars: int) -> str:
        """At most `excerpt_chars` characters of the description around its earliest matched
        word, else of the body around its earliest matched word, else the description's start."""
        found = self._excerpts.get(excerpt_chars)
        if found is None:
            find = partial(self._index.spans.earliest, self._position)  # catalog.searchspans
            found = excerpt_of(self.skill, self._text_fields(), excerpt_chars, find)
            self._excerpts[excerpt_chars] = found
        return found

    def _text_fields(self) -> Held:
        """Each term, and whether the name, description and body hold it."""
        if self._held is None:
            position = self._position
            self._held = [(term, read(position)) for term, read in self._matchers().fields]
        return self._held


# The earliest word of a field holding one of some stems, as excerpt_of reads that field
# (catalog.textwords): character offsets, or byte offsets of a fold_stable body's UTF-8. The
# third argument is that field as excerpt_of holds it already (text, or the body's UTF-8), so
# that a finder searching it never unpacks the body again (docs/benchmarks.md, "The hits of a
# cold page, the body unpacked once, session 6").
Finder = Callable[[int, Collection[str], "str | bytes"], "tuple[int, int] | None"]


def earliest_in(
    skill: SkillEntry, field: int, stems: Collection[str], text: str | bytes | None = None
) -> tuple[int, int] | None:
    """The earliest word with one of `stems` in the description (field 2) or the body (4) of
    `skill`, in the offsets its excerpt is cut at; `text` is that field as excerpt_of reads it
    (the description, the body, or a fold_stable body's UTF-8), read from `skill` when None."""
    if text is None:
        if field == 2:
            text = skill.description
        elif skill.instructions_fold_stable:
            text = skill.instructions_utf8()
        else:  # a SkillEntry keeps its body as UTF-8: decoded here
            text = skill.instructions
    if isinstance(text, bytes):
        return earliest_with_stem_utf8(text, stems)
    return earliest_with_stem(text, stems)


def excerpt_of(skill: SkillEntry, held: Held, excerpt_chars: int, find: Finder | None = None) -> str:
    """The excerpt of a hit: around the earliest word of the description holding a term, else
    of the body, else the description's start. `find(field, stems, text)` gives that word, as
    earliest_in(skill, field, stems, text) does (the default)."""
    described, bodied = [], []
    for term, fields in held:
        if fields & 2:
            described.append(term.stem)
        if fields & 4:
            bodied.append(term.stem)
    if find is None:
        find = partial(earliest_in, skill)
    if described:
        text = skill.description
        if len(text) <= excerpt_chars:
            return text
        return excerpt_at(text, find(2, described, text), excerpt_chars)
    if bodied:
        if skill.instructions_fold_stable:
            data = skill.instructions_utf8()
            if len(data) <= excerpt_chars:  # no more characters than bytes
                return data.decode("utf-8", "surrogatepass")
            return excerpt_at_utf8(data, find(4, bodied, data), excerpt_chars)
        text = skill.instructions
        if len(text) <= excerpt_chars:
            return text
        return excerpt_at(text, find(4, bodied, text), excerpt_chars)
    return skill.description[:excerpt_chars]


def excerpt_at(text: str, found: tuple[int, int] | None, excerpt_chars: int) -> str:
    """At most `excerpt_chars` characters of `text`, longer than that, centred on the word at
    `found` (the start of `text` when None)."""
    if found is None:
        return text[:excerpt_chars]
    centre = (found[0] + found[1]) // 2
    first = min(max(0, centre - excerpt_chars // 2), len(text) - excerpt_chars)
    return text[first : first + excerpt_chars]


# Bytes decoded beyond an excerpt's length in characters on each side of its word, for the
# characters outside ASCII in it (3 bytes an em dash); when too few, that side is read again
# at 4 bytes a character.
UTF8_SLACK = 32


def excerpt_at_utf8(data: bytes, found: tuple[int, int] | None, excerpt_chars: int) -> str:
    """excerpt_at of the text whose UTF-8 is `data`, longer than `excerpt_chars` bytes, with
    `found` in bytes. Only about the excerpt's characters are decoded, not all that lies
    before the word (docs/benchmarks.md, "The hits of a cold page, session 6")."""
    start, end = found if found is not None else (0, 0)
    size = len(data)
    word_chars = len(data[start:end].decode("utf-8", "surrogatepass"))
    # From the word's start: the word and excerpt_chars characters more, or to the text's end.
    stop = _character_end(data, end + excerpt_chars + UTF8_SLACK)
    after = data[start:stop].decode("utf-8", "surrogatepass")
    if stop < size and len(after) < word_chars + excerpt_chars:
        stop = _character_end(data, end + 4 * excerpt_chars)
        after = data[start:stop].decode("utf-8", "surrogatepass")
    # Where excerpt_at starts the excerpt, relative to the word's start: centred on the word,
    # then moved back to hold excerpt_chars characters when `after` reaches the text's end
    # (else it holds more than enough), then forward to the text's start.
    centred = first = word_chars // 2 - excerpt_chars // 2
    at_end = stop == size
    if at_end and len(after) - excerpt_chars < first:
        first = len(after) - excerpt_chars
    wanted = -first if first < 0 else 0  # characters before the word
    low = _character_start(data, start - wanted - UTF8_SLACK)
    before = data[low:start].decode("utf-8", "surrogatepass")
    if low > 0 and len(before) < wanted:
        low = _character_start(data, start - 4 * wanted)
        before = data[low:start].decode("utf-8", "surrogatepass")
    if low == 0:  # `before` is all that precedes the word
        if at_end and len(before) + len(after) <= excerpt_chars:
            return before + after
        first = centred if centred > -len(before) else -len(before)
        if at_end and len(after) - excerpt_chars < first:
            first = len(after) - excerpt_chars
    # (else `before` holds more than `wanted` characters, and the text's start is further)
    if first >= 0:
        return after[first : first + excerpt_chars]
    return (before[len(before) + first :] + after)[:excerpt_chars]


def _character_start(data: bytes, at: int) -> int:
    """The start of the UTF-8 character holding byte `at` (0 before the text)."""
    if at <= 0:
        return 0
    while data[at] & 0xC0 == 0x80:  # a continuation byte (never the first)
        at -= 1
    return at


def _character_end(data: bytes, at: int) -> int:
    """The end of the UTF-8 character holding byte `at - 1` (the text's end past it)."""
    size = len(data)
    if at >= size:
        return size
    while at < size and data[at] & 0xC0 == 0x80:
        at += 1
    return at


class QueryMatchers:
    """What every hit of a query's reasons are tested against (SearchIndex.matchers), worked
    out once per query (a race makes it twice, the same) and shared by its hits. The hits hold
    this, not their SearchResults, which holds them: with that cycle every ranking an index
    forgot was freed only by a full collection, and the garbage meanwhile grew a worker's
    heap ~9 MB over 4,096 distinct searches (docs/benchmarks.md, "Every cache full, session
    6")."""

    __slots__ = ("_found", "_index", "_query")

    def __init__(self, index: "SearchIndex", query: Query) -> None:
        self._index = index
        self._query = query
        self._found: Matchers | None = None

    def __call__(self) -> "Matchers":
        found = self._found
        if found is None:
            found = self._found = self._index.matchers(self._query)
        return found


class SearchResults(Sequence[SearchHit]):
    """Ranked hits; each SearchHit is built when it is read, so a page costs only its own."""

    def __init__(self, index: "SearchIndex", ranking: "Ranking", query: Query) -> None:
        self.source = index
        self._ranking = ranking
        self.query = query
        self._hits: dict[int, SearchHit] = {}  # by rank, the first KEPT_HITS only
        self.matchers = QueryMatchers(index, query)

    def __len__(self) -> int:
        return self._ranking.count

    @overload
    def __getitem__(self, item: int) -> SearchHit: ...

    @overload
    def __getitem__(self, item: slice) -> list[SearchHit]: ...

    def __getitem__(self, item: int | slice) -> SearchHit | list[SearchHit]:
        if isinstance(item, slice):
            return [self._hit(rank) for rank in range(*item.indices(self._ranking.count))]
        if item < 0:
            item += self._ranking.count
        if not 0 <= item < self._ranking.count:
            raise IndexError(item)
        return self._hit(item)

    def _hit(self, rank: int) -> SearchHit:
        hit = self._hits.get(rank)
        if hit is None:
            hit = SearchHit(self, self._ranking.position(rank))
            if rank < KEPT_HITS:
                self._hits[rank] = hit
        return hit
