"""End-to-end fixtures: a real registry (migrated database, published skills, gunicorn).

`registry_server` is module-scoped: one fixture repository, one database and one
gunicorn (2 workers) per test module. Modules that need another set-up build
their own with tests.e2e.harness (TempDatabase, GunicornServer) and the helpers
here (build_fixture_repo, RegistryServer).
"""

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.harness import GunicornServer, TempDatabase
from tests.skillrepo import SkillRepo

READ_TOKEN = "e2e-read-token-0123456789"
ZDR_TOKEN = "e2e-zdr-token-9876543210"

GUIDE = "# Guide\n\nRead me first: ünïcödé ✓ 🎉\n"
SCRIPT = "#!/bin/sh\necho 'hello from a script the registry never runs'\n"


def build_fixture_repo(root: Path) -> SkillRepo:
    """The standard end-to-end skills: alpha (a reference and a script), beta, gamma, and
    the ZDR-only secret-ops; committed on main."""
    repo = SkillRepo(root)
    repo.add_skill(
        "alpha",
        body="Alpha steps: review the diff.\n",
        files={"references/guide.md": GUIDE, "scripts/run.sh": SCRIPT},
        name="Alpha",
        description="Review pull requests carefully.",
        tags=["review", "docs"],
        keywords=["diff"],
    )
    repo.add_skill(
        "beta", body="Beta steps.\n", name="Beta", description="Write commit messages.", tags=["git"]
    )
    repo.add_skill(
        "gamma",
        body="Gamma steps mention review once.\n",
        name="Gamma",
        description="Plan releases.",
        tags=["git", "release"],
    )
    repo.add_skill(
        "secret-ops",
        body="Secret incident steps.\n",
        files={"references/runbook.md": "# Runbook\n"},
        name="Secret Ops",
        description="Respond to a security incident.",
        tags=["security"],
        required_zdr=True,
    )
    repo.commit("fixture skills")
    return repo


@dataclass
class RegistryServer:
    """A running registry: where it is, who may call it, and what it serves."""

    url: str
    mcp_url: str
    read_token: str
    zdr_token: str
    repo: SkillRepo
    sha: str
    database: TempDatabase
    env: dict[str, str]
    server: GunicornServer
    _ids: Any = field(default_factory=lambda: itertools.count(1))

    def headers(self, token: str | None = None, **extra: str) -> dict[str, str]:
        headers = {
            "Authorization": f"Bearer {token or self.read_token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        headers.update(extra)
        return headers

    def rpc(
        self, method: str, params: dict[str, Any] | None = None, token: str | None = None
    ) -> httpx.Response:
        """POST one JSON-RPC request to /mcp; the raw HTTP response."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if params is not None:
            message["params"] = params
        return httpx.post(self.mcp_url, json=message, headers=self.headers(token), timeout=30)

    def publish(self, rev: str, *extra: str) -> str:
        """`manage.py publish <rev> --repo <repo>` against this server's database."""
        return self.database.manage("publish", rev, "--repo", str(self.repo.root), *extra, env=self.env)


@pytest.fixture(scope="module")
def registry_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RegistryServer]:
    workdir = tmp_path_factory.mktemp("e2e")
    repo = build_fixture_repo(workdir / "repo")
    sha = repo.git("rev-parse", "HEAD")
    with TempDatabase(workdir / "db") as database:
        env = database.env(SKILLS_READ_TOKENS=READ_TOKEN, SKILLS_ZDR_TOKENS=ZDR_TOKEN, LOG_FORMAT="plain")
        database.manage("migrate", "--noinput", "-v", "0", env=env)
        database.manage("publish", sha, "--repo", str(repo.root), env=env)
        with GunicornServer(env, workers=2, log_path=workdir / "gunicorn.log") as server:
            yield RegistryServer(
                url=server.url,
                mcp_url=server.mcp_url,
                read_token=READ_TOKEN,
                zdr_token=ZDR_TOKEN,
                repo=repo,
                sha=sha,
                database=database,
                env=env,
                server=server,
            )
