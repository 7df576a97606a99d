from collections.abc import Callable, Iterator

import pytest
from django.core.cache import cache
from django.http import HttpRequest
from django.test import RequestFactory

from tests.support.github_standin import GitHubStandIn
from tests.support.tokens import ALICE_TOKEN, BOB_TOKEN, CAROL_TOKEN, READ_TOKEN, ZDR_TOKEN


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
def github(settings) -> Iterator[GitHubStandIn]:
    """A running GitHub stand-in that knows alice, bob and Carol; GITHUB_API_URL points at it."""
    with GitHubStandIn() as standin:
        standin.add_user(ALICE_TOKEN, "alice", 1001)
        standin.add_user(BOB_TOKEN, "bob", 1002)
        standin.add_user(CAROL_TOKEN, "Carol", 1003)
        settings.GITHUB_API_URL = standin.url
        yield standin


@pytest.fixture
def bearer() -> Callable[..., HttpRequest]:
    """A POST /mcp request carrying `Authorization: <scheme> <token>` (or no header for None)."""

    def make(token: str | None, scheme: str = "Bearer") -> HttpRequest:
        headers = {} if token is None else {"Authorization": f"{scheme} {token}".rstrip()}
        return RequestFactory().post("/mcp", data=b"{}", content_type="application/json", headers=headers)

    return make
