"""A registry under gunicorn with OAuth on, beside a GitHub stand-in (the OAuth end-to-end tests).

Personas: alice is in ALLOWED_GITHUB_LOGINS, zed in ZDR_GITHUB_LOGINS, dora in the
database list, mallory in no list.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from tests.support.databases import TempDatabase
from tests.support.github_standin import GitHubStandIn
from tests.support.gunicorn import GunicornServer
from tests.support.oauth_flow import Browser, OAuthEndpoints
from tests.support.standard import build_standard_repo
from tests.support.tokens import READ_TOKEN

GITHUB_CLIENT_ID = "Iv1.standin0123456789"
GITHUB_CLIENT_SECRET = "standin-secret-0123456789abcdef"


@dataclass
class OAuthRegistry:
    url: str
    mcp_url: str
    github: GitHubStandIn
    database: TempDatabase
    env: dict[str, str]
    server: GunicornServer
    sha: str
    workdir: Path

    @property
    def endpoints(self) -> OAuthEndpoints:
        return OAuthEndpoints(self.url)

    def browser(self, stop_at: str, *, as_login: str | None = "alice", **options: bool) -> Browser:
        """A fresh browser (no session) whose GitHub sign-in will be `as_login`."""
        self.github.sign_in_as(as_login)
        return Browser(stop_at, **options)

    def manage(self, *args: str) -> str:
        return self.database.manage_ok(*args, env=self.env)

    def rpc(self, token: str, method: str, params: dict[str, Any] | None = None) -> httpx.Response:
        """POST one JSON-RPC request to /mcp with `token`; the raw HTTP response."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
        if params is not None:
            message["params"] = params
        return httpx.post(
            self.mcp_url,
            json=message,
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=30,
        )

    def ping(self, token: str) -> httpx.Response:
        return self.rpc(token, "ping")


def oauth_env(database: TempDatabase, server: GunicornServer, github: GitHubStandIn) -> dict[str, str]:
    return database.env(
        SKILLS_READ_TOKENS=READ_TOKEN,
        ALLOWED_GITHUB_LOGINS="alice",
        ZDR_GITHUB_LOGINS="zed",
        GITHUB_OAUTH_CLIENT_ID=GITHUB_CLIENT_ID,
        GITHUB_OAUTH_CLIENT_SECRET=GITHUB_CLIENT_SECRET,
        PUBLIC_BASE_URL=server.url,
        GITHUB_OAUTH_URL=github.url,
        GITHUB_API_URL=github.url,
        # Plain http on loopback: the session and CSRF cookies must travel without TLS.
        DJANGO_SECURE_COOKIES="0",
        LOG_FORMAT="plain",
    )


@contextmanager
def serving_oauth_registry(workdir: Path) -> Iterator[OAuthRegistry]:
    """The standard skills published and served with OAuth on; dora added to the database list."""
    repo = build_standard_repo(workdir / "repo")
    sha = repo.git("rev-parse", "HEAD")
    with GitHubStandIn() as github, TempDatabase(workdir / "db") as database:
        # The server's port is known before it starts: PUBLIC_BASE_URL names it.
        server = GunicornServer({}, workers=2, log_path=workdir / "gunicorn.log")
        env = oauth_env(database, server, github)
        server.env = env
        github.add_oauth_app(GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET, f"{server.url}/oauth/github/callback/")
        database.migrate_and_publish(repo.root, sha, env)
        database.manage_ok("allow_login", "dora", env=env)
        with server:
            yield OAuthRegistry(
                url=server.url,
                mcp_url=server.mcp_url,
                github=github,
                database=database,
                env=env,
                server=server,
                sha=sha,
                workdir=workdir,
            )
