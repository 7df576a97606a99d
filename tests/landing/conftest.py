"""The landing page's fixtures: a skills repository with a ZDR skill, published into the
test database through the real `publish` command."""

from collections.abc import Callable
from io import StringIO

import pytest
from django.core.management import call_command

from tests.skillrepo import SkillRepo

READ_TOKEN = "landing-read-token-0123456789"
ZDR_TOKEN = "landing-zdr-token-9876543210"
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


@pytest.fixture(autouse=True)
def known_callers(settings) -> None:
    settings.SKILLS_READ_TOKENS = [READ_TOKEN]
    settings.SKILLS_ZDR_TOKENS = [ZDR_TOKEN]


def add_fixture_skills(repo: SkillRepo, *, with_zdr: bool = True) -> None:
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


@pytest.fixture
def publish_repo() -> Callable[[SkillRepo, str], str]:
    """Publish a commit of a repository with `manage.py publish`; its output."""

    def publish(repo: SkillRepo, sha: str) -> str:
        out = StringIO()
        call_command("publish", sha, "--repo", str(repo.root), stdout=out, stderr=StringIO())
        return out.getvalue()

    return publish


@pytest.fixture
def published(skill_repo: SkillRepo, publish_repo: Callable[[SkillRepo, str], str]) -> str:
    """The fixture skills (one of them ZDR) published and active; the commit's SHA."""
    add_fixture_skills(skill_repo)
    sha = skill_repo.commit("fixture skills")
    publish_repo(skill_repo, sha)
    return sha
