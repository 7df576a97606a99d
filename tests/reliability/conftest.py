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

from catalog import index as catalog_index
from catalog.publishing import publish
from tests.catalog.publish_support import SubprocessDatabase, TemplateDatabase
from tests.reliability.support import GUIDE, READ_TOKEN, ZDR_TOKEN, McpClient, Registry
from tests.skillrepo import SkillRepo


@pytest.fixture(autouse=True)
def reliability_settings(settings) -> Iterator[None]:  # type: ignore[no-untyped-def]
    """Known callers, no rate limit unless a test turns it on, nothing reaching GitHub."""
    settings.SKILLS_READ_TOKENS = [READ_TOKEN]
    settings.SKILLS_ZDR_TOKENS = [ZDR_TOKEN]
    settings.ALLOWED_GITHUB_LOGINS = []
    settings.ZDR_GITHUB_LOGINS = []
    settings.GITHUB_API_URL = "http://127.0.0.1:9"
    settings.MCP_ALLOWED_ORIGINS = []
    settings.MCP_RATE_LIMIT_PER_MINUTE = 0
    catalog_index.clear_index_cache()
    yield
    catalog_index.clear_index_cache()


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
    """alpha (nested references, a script), beta, and the ZDR-only secret-ops, published."""
    repo = make_repo()
    repo.add_skill(
        "alpha",
        body="Alpha steps: review the diff.\n",
        files={
            "references/guide.md": GUIDE,
            "references/api/auth.md": "Auth notes.\n",
            "scripts/run.sh": "#!/bin/sh\necho hello\n",
        },
        tags=["review"],
    )
    repo.add_skill("beta", body="Beta steps.\n", files={"templates/note.txt": "A note.\n"})
    repo.add_skill(
        "secret-ops",
        body="Secret incident steps.\n",
        files={"references/runbook.md": "# Runbook\n"},
        required_zdr=True,
    )
    # Files outside any skill's allowlist, to aim at: the config, and a stray top-level file.
    repo.write("README.md", "not a skill file\n")
    sha = repo.commit("registry")
    publish(repo.root, sha)
    files: dict[str, dict[str, bytes]] = {}
    for skill_dir in sorted((repo.root / "skills").iterdir()):
        files[skill_dir.name] = {
            path.relative_to(skill_dir).as_posix(): path.read_bytes()
            for path in sorted(skill_dir.rglob("*"))
            if path.is_file()
        }
    return Registry(repo, sha, files, frozenset({"secret-ops"}))
