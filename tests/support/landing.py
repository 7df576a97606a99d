"""The landing page tests' skills: one public, one ZDR, each with words of its own that must
never reach the page (the page names the registry, not what it holds)."""

from tests.support.repos import SkillRepo

# Every word a skill brings that must never reach the page.
SKILL_WORDS = (
    "release-checklist",
    "Release Checklist Unique",
    "Cut a release without surprises.",
    "zdr-incident-runbook",
    "Incident Runbook Unique",
    "Handle a confidential incident.",
    "Confidential steps only for cleared callers.",
)


def add_landing_skills(repo: SkillRepo, *, with_zdr: bool = True) -> None:
    """release-checklist, and (unless `with_zdr` is false) the ZDR-only zdr-incident-runbook."""
    repo.add_skill(
        "release-checklist",
        body="Tag, changelog, publish.\n",
        name="Release Checklist Unique",
        description="Cut a release without surprises.",
    )
    if with_zdr:
        repo.add_skill(
            "zdr-incident-runbook",
            body="Confidential steps only for cleared callers.\n",
            name="Incident Runbook Unique",
            description="Handle a confidential incident.",
            required_zdr=True,
        )
