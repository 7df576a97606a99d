"""Fixtures of the reliability suite (load, crashes, concurrency, hostile input, limits).

Two kinds of tests live here:
- in-process ones (django.test.Client, pytest-django's test database): fast enough for
  hundreds of hypothesis examples;
- real-process ones: `manage.py publish` subprocesses and gunicorn on a database of their
  own (a copy of one migrated template per session), killed with SIGKILL where it hurts.
Every module marks its tests `reliability` (deselect them with `-m "not reliability"`).
"""

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from catalog.publishing import publish
from tests.support.databases import SubprocessDatabase, TemplateDatabase
from tests.support.mcp import McpClient, Registry, only_static_callers
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


@pytest.fixture(scope="session")
def template_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TemplateDatabase]:
    """One migrated database per session; copies are cheap (a file copy, or CREATE ... TEMPLATE)."""
    template = TemplateDatabase(tmp_path_factory.mktemp("reliability-template"))
    yield template
    template.drop()


@pytest.fixture
def subprocess_db(template_db: TemplateDatabase, tmp_path: Path) -> Iterator[SubprocessDatabase]:
    """A fresh migrated database that `manage.py` and gunicorn subprocesses share."""
    with template_db.copy(tmp_path) as database:
        yield database


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
