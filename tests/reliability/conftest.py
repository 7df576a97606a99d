"""Fixtures of the reliability suite (load, crashes, concurrency, hostile input, limits).

Two kinds of tests live here:
- in-process ones (django.test.Client, pytest-django's test database): fast enough for
  hundreds of hypothesis examples;
- real-process ones: `manage.py publish` subprocesses and gunicorn on a database of their
  own (a copy of one migrated template per session), killed with SIGKILL where it hurts.
Every module marks its tests `reliability` (deselect them with `-m "not reliability"`).
"""

from collections.abc import Callable, Iterator

import pytest

from catalog.publishing import publish
from tests.support.mcp import McpClient, Registry, only_static_callers
from tests.support.open_repos import EVERYTHING
from tests.support.repos import SkillRepo
from tests.support.standard import ZDR_ID, add_standard_skills
from tests.support.tokens import READ_TOKEN, ZDR_TOKEN


@pytest.fixture(autouse=True)
def reliability_settings(settings) -> Iterator[None]:
    """Known callers, no rate limit unless a test turns it on, nothing reaching GitHub."""
    settings.MCP_RATE_LIMIT_PER_MINUTE = 0
    with only_static_callers(settings):
        yield


@pytest.fixture
def mcp() -> McpClient:
    return McpClient(READ_TOKEN)


@pytest.fixture
def mcp_zdr() -> McpClient:
    return McpClient(ZDR_TOKEN)


@pytest.fixture
def registry(db: None, make_repo: Callable[..., SkillRepo]) -> Registry:
    """The standard skills with nested folders and a template to aim at, published."""
    repo = make_repo()
    add_standard_skills(
        repo,
        extra_files={
            "alpha": {"references/api/auth.md": "Auth notes.\n"},
            "beta": {"templates/note.txt": "A note.\n"},
        },
    )
    # Files outside any skill's allowlist, to aim at: the config, and a stray top-level file.
    repo.write("README.md", "not a skill file\n")
    sha = repo.commit("registry")
    publish(repo.root, sha)
    return Registry.of(repo, sha, frozenset({ZDR_ID}))


@pytest.fixture
def open_registry(db: None, make_repo: Callable[..., SkillRepo]) -> Registry:
    """Repositories shaped like the public open-dialect ones, published together: what each
    skill serves (SKILL.md and the files it does not omit) is all that may ever be read."""
    repo = make_repo()
    sha = EVERYTHING.build(repo)
    publish(repo.root, sha)
    files = {
        skill.id: {"SKILL.md": EVERYTHING.raw(skill, "SKILL.md"), **EVERYTHING.served(skill)}
        for skill in EVERYTHING.skills
    }
    zdr = frozenset(skill.id for skill in EVERYTHING.skills if skill.required_zdr)
    return Registry(repo, sha, files, zdr)
