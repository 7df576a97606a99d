"""Deterministic keyword search over one view's skills (SPEC §6, §9).

Pure functions over SkillEntry: no database, no HTTP, no callers. The ranking is
the sort key of SPEC §9, component by component:

    1. 1 if the whole query (trimmed) equals the id or the name, else 0
    2. the number of terms equal to a tag
    3. the number of terms equal to a keyword
    4. the number of terms that are substrings of the description
    5. the number of terms that are substrings of the instructions body

higher first, then id ascending. Terms are the lower-cased query split on white
space (as split, so a repeated word counts each time it is repeated); every
comparison is case-insensitive. A skill that matches nothing is not a result.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from catalog.index import SkillEntry

RULES = ("exact", "tag", "keyword", "description", "body")


@dataclass(frozen=True, slots=True)
class SearchHit:
    skill: SkillEntry
    sort_key: tuple[int, int, int, int, int]
    match_reasons: tuple[tuple[str, str], ...]  # (rule, term), every pair that matched
    excerpt: str

    def reasons(self) -> list[dict[str, str]]:
        return [{"rule": rule, "term": term} for rule, term in self.match_reasons]


def query_terms(query: str) -> list[str]:
    """The lower-cased query split on white space (empty for a blank query)."""
    return query.lower().split()


def filter_by_tags(skills: Iterable[SkillEntry], tags: Sequence[str]) -> list[SkillEntry]:
    """The skills that carry every one of `tags`, compared case-insensitively; order kept."""
    wanted = {tag.lower() for tag in tags}
    if not wanted:
        return list(skills)
    return [skill for skill in skills if wanted <= _lower_set(skill.tags)]


def search(skills: Iterable[SkillEntry], query: str, excerpt_chars: int) -> list[SearchHit]:
    """Every skill matching `query`, best first (sort key descending, then id ascending)."""
    terms = query_terms(query)
    if not terms:
        return []
    whole = query.strip().lower()
    hits = [hit for skill in skills if (hit := _score(skill, whole, terms, excerpt_chars)) is not None]
    hits.sort(key=lambda hit: (tuple(-part for part in hit.sort_key), hit.skill.id))
    return hits


def _score(skill: SkillEntry, whole: str, terms: list[str], excerpt_chars: int) -> SearchHit | None:
    tags = _lower_set(skill.tags)
    keywords = _lower_set(skill.keywords)
    description = _lower(skill.description)
    body = _lower(skill.instructions)

    exact = 1 if whole in (skill.id.lower(), _lower(skill.name)) else 0
    tag_terms = [term for term in terms if term in tags]
    keyword_terms = [term for term in terms if term in keywords]
    description_terms = [term for term in terms if term in description]
    body_terms = [term for term in terms if term in body]
    sort_key = (exact, len(tag_terms), len(keyword_terms), len(description_terms), len(body_terms))
    if not any(sort_key):
        return None

    reasons: list[tuple[str, str]] = [("exact", whole)] if exact else []
    for rule, matched in (
        ("tag", tag_terms),
        ("keyword", keyword_terms),
        ("description", description_terms),
        ("body", body_terms),
    ):
        for term in dict.fromkeys(matched):  # a repeated term is one (rule, term) pair
            reasons.append((rule, term))

    if description_terms:
        text = excerpt_around(skill.description, description_terms, excerpt_chars)
    elif body_terms:
        text = excerpt_around(skill.instructions, body_terms, excerpt_chars)
    else:
        text = skill.description[:excerpt_chars]
    return SearchHit(skill=skill, sort_key=sort_key, match_reasons=tuple(reasons), excerpt=text)


def excerpt_around(text: str, terms: Sequence[str], excerpt_chars: int) -> str:
    """At most `excerpt_chars` characters of `text`, centred on the earliest hit of any term.

    Of hits starting at the same place, the longest term is the one centred. Positions
    are found case-insensitively but the excerpt is cut from the original text.
    """
    lowered = _lower(text)
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


@lru_cache(maxsize=16384)
def _lower(text: str) -> str:
    # Descriptions and bodies repeat across requests (the index is cached per process),
    # so each is lower-cased once rather than on every search.
    return text.lower()


@lru_cache(maxsize=16384)
def _lower_set(values: tuple[str, ...]) -> frozenset[str]:
    return frozenset(value.lower() for value in values)
