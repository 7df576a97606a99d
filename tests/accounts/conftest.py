from collections.abc import Callable, Iterator

import pytest
from django.core.cache import cache
from django.http import HttpRequest
from django.test import RequestFactory

from tests.github_standin import GitHubStandIn, github_standin  # noqa: F401 - a fixture

# Named personas: alice is allowed in, carol is cleared for ZDR, bob is nobody's friend.
ALICE_TOKEN = "ghp_alice0000000000000000000000000000000"
BOB_TOKEN = "ghp_bob000000000000000000000000000000000"
CAROL_TOKEN = "github_pat_carol_0000000000000000000000000"
READ_TOKEN = "env-read-token-1234567890"
ZDR_TOKEN = "env-zdr-token-0987654321"


@pytest.fixture(autouse=True)
def callers_settings(settings) -> Iterator[None]:
    """A known configuration whatever the environment of the test run, and an empty cache."""
    settings.SKILLS_READ_TOKENS = [READ_TOKEN]
    settings.SKILLS_ZDR_TOKENS = [ZDR_TOKEN]
    settings.ALLOWED_GITHUB_LOGINS = ["Alice"]
    settings.ZDR_GITHUB_LOGINS = ["carol"]
    settings.GITHUB_TIMEOUT_SECONDS = 2.0
    settings.GITHUB_CACHE_SECONDS = 300
    settings.GITHUB_FAILURE_CACHE_SECONDS = 30
    # Nothing may reach the real GitHub from a test.
    settings.GITHUB_API_URL = "http://127.0.0.1:9"
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def github(github_standin: GitHubStandIn, settings) -> GitHubStandIn:  # noqa: F811 - the imported fixture
    github_standin.add_user(ALICE_TOKEN, "alice", 1001)
    github_standin.add_user(BOB_TOKEN, "bob", 1002)
    github_standin.add_user(CAROL_TOKEN, "Carol", 1003)
    settings.GITHUB_API_URL = github_standin.url
    return github_standin


@pytest.fixture
def bearer() -> Callable[..., HttpRequest]:
    """A POST /mcp request carrying `Authorization: <scheme> <token>` (or no header for None)."""

    def make(token: str | None, scheme: str = "Bearer") -> HttpRequest:
        headers = {} if token is None else {"Authorization": f"{scheme} {token}".rstrip()}
        return RequestFactory().post("/mcp", data=b"{}", content_type="application/json", headers=headers)

    return make
