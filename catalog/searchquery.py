"""A search query as the ranking reads it (docs/reference.md#search): its normal form, its
terms and its words."""

from dataclasses import dataclass

from catalog.textwords import stem, words


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


# Each term, and the fields of a skill holding it: name 1, description 2, body 4 (catalog.textindex).
Held = list[tuple[Term, int]]


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
