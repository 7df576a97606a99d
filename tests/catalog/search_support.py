"""Skills for the search tests, built in memory (no repository, no database)."""

from catalog.index import SkillEntry
from catalog.search import SearchIndex


def skill(
    skill_id: str,
    *,
    name: str | None = None,
    description: str = "",
    body: str = "",
    tags: tuple[str, ...] = (),
    keywords: tuple[str, ...] = (),
    required_zdr: bool = False,
) -> SkillEntry:
    """A skill whose default name is its id in title case and whose default description
    says nothing a test searches for ("Skill number N")."""
    return SkillEntry(
        id=skill_id,
        name=name or skill_id.title(),
        description=description or "Nothing to see.",
        version="1.0.0",
        tags=tags,
        keywords=keywords,
        requires=(),
        required_zdr=required_zdr,
        content_hash="0" * 64,
        instructions=body or "Nothing to see.\n",
        skill_md_sha256="1" * 64,
        skill_md_size=1,
        files=(),
    )


def ranked(skills: list[SkillEntry], query: str, tags: tuple[str, ...] = ()) -> list[str]:
    """The ids `query` finds, best first."""
    return [hit.skill.id for hit in SearchIndex(sorted(skills, key=lambda s: s.id)).search(query, tags)]


def reasons(target: SkillEntry, query: str) -> list[tuple[str, str]]:
    """What `query` matched of the one skill `target` (which must match)."""
    [hit] = SearchIndex([target]).search(query)
    return hit.match_reasons()
