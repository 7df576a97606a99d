"""The landing page's fixtures: known callers, and skills (one of them ZDR) published into
the test database through the real `publish` command (tests/support/landing.py)."""

from collections.abc import Callable, Iterator
from io import StringIO

import pytest
from django.core.management import call_command

from tests.support.landing import add_landing_skills
from tests.support.mcp import only_static_callers
from tests.support.repos import SkillRepo


@pytest.fixture(autouse=True)
def known_callers(settings) -> Iterator[None]:
    """READ_TOKEN and ZDR_TOKEN whatever the environment; nothing may reach a real GitHub."""
    with only_static_callers(settings):
        yield


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
    """The landing skills (one of them ZDR) published and active; the commit's SHA."""
    add_landing_skills(skill_repo)
    sha = skill_repo.commit("fixture skills")
    publish_repo(skill_repo, sha)
    return sha
