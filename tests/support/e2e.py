"""A registry served for real: a database of its own, published with `manage.py publish`,
served by gunicorn (the end-to-end tests and the conformance run).

    with serving_standard_registry(workdir, LOG_FORMAT="plain") as registry:
        registry.rpc("tools/list")

serving_registry(workdir, repo) does the same for the HEAD of any repository.
"""

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.support.databases import SubprocessDatabase, TempDatabase
from tests.support.gunicorn import GunicornServer
from tests.support.repos import SkillRepo
from tests.support.standard import build_standard_repo
from tests.support.tokens import READ_TOKEN, ZDR_TOKEN


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
        return self.database.manage_ok("publish", rev, "--repo", str(self.repo.root), *extra, env=self.env)


@contextmanager
def serving_standard_registry(workdir: Path, workers: int = 2, **env: str) -> Iterator[RegistryServer]:
    """The standard skills, migrated and published into a new database, served by gunicorn
    with the static READ_TOKEN and ZDR_TOKEN (and `env` on top)."""
    with serving_registry(workdir, build_standard_repo(workdir / "repo"), workers, **env) as server:
        yield server


@contextmanager
def serving_registry(
    workdir: Path, repo: SkillRepo, workers: int = 2, **env: str
) -> Iterator[RegistryServer]:
    """The HEAD of `repo`, migrated and published into a new database, served by gunicorn with
    the static READ_TOKEN and ZDR_TOKEN (and `env` on top)."""
    sha = repo.git("rev-parse", "HEAD")
    with TempDatabase(workdir / "db") as database:
        server_env = database.env(SKILLS_READ_TOKENS=READ_TOKEN, SKILLS_ZDR_TOKENS=ZDR_TOKEN, **env)
        database.migrate_and_publish(repo.root, sha, server_env)
        with GunicornServer(server_env, workers=workers, log_path=workdir / "gunicorn.log") as server:
            yield RegistryServer(
                url=server.url,
                mcp_url=server.mcp_url,
                read_token=READ_TOKEN,
                zdr_token=ZDR_TOKEN,
                repo=repo,
                sha=sha,
                database=database,
                env=server_env,
                server=server,
            )


def server_env(database: SubprocessDatabase, **extra: str) -> dict[str, str]:
    """A production-like server (and `publish`) on `database` with the static tokens only:
    no logins, no GitHub, no shared cache, no rate limit, unless `extra` says otherwise."""
    quiet = {
        "SKILLS_READ_TOKENS": READ_TOKEN,
        "SKILLS_ZDR_TOKENS": ZDR_TOKEN,
        "ALLOWED_GITHUB_LOGINS": "",
        "ZDR_GITHUB_LOGINS": "",
        "GITHUB_API_URL": "http://127.0.0.1:9",  # nothing may reach a real GitHub
        "CACHE_URL": "",
        "MCP_RATE_LIMIT_PER_MINUTE": "0",
    }
    return database.env(**{**quiet, **extra})
