"""The substring ranking that search used before words, stems and BM25, kept only to give the
evaluation's "before" figures (never imported by the product).

Terms were the lower-cased query split on white space, each counted as often as repeated;
the sort key, higher first: whole trimmed query equals the id or name; terms equal to a tag;
terms equal to a keyword; terms that are substrings of the description; terms that are
substrings of the body; then id ascending.
"""

from dataclasses import dataclass

from catalog.index import SkillEntry


@dataclass(frozen=True)
class BaselineHit:
    skill: SkillEntry
    reasons: list[tuple[str, str]]


class BaselineIndex:
    def __init__(self, skills: list[SkillEntry]) -> None:
        self.skills = sorted(skills, key=lambda skill: skill.id)

    @staticmethod
    def terms(query: str) -> list[str]:
        return query.lower().split()

    def search(self, query: str) -> list[BaselineHit]:
        terms = self.terms(query)
        whole = query.strip().lower()
        keyed = []
        for skill in self.skills:
            exact = whole in (skill.id.lower(), skill.name.lower())
            tags = {tag.lower() for tag in skill.tags}
            keywords = {keyword.lower() for keyword in skill.keywords}
            description, body = skill.description.lower(), skill.instructions.lower()
            matched = [
                [term for term in terms if term in tags],
                [term for term in terms if term in keywords],
                [term for term in terms if term in description],
                [term for term in terms if term in body],
            ]
            if not (exact or any(matched)):
                continue
            key = (int(exact), *(len(found) for found in matched))
            reasons = [("exact", whole)] if exact else []
            for rule, found in zip(("tag", "keyword", "description", "body"), matched, strict=True):
                reasons += [(rule, term) for term in dict.fromkeys(found)]
            keyed.append((tuple(-part for part in key), skill.id, BaselineHit(skill, reasons)))
        keyed.sort(key=lambda item: item[:2])
        return [hit for _, _, hit in keyed]
