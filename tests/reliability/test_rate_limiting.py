"""Per-caller rate limiting of /mcp (mcpapi/throttling.py, MCP_RATE_LIMIT_PER_MINUTE).

Off by default; when on, a caller over its budget gets 429 with Retry-After and a JSON body,
before its request is read or parsed. The budget belongs to the caller's identity (never the
token, which never reaches the cache), and lives in the Django cache, so with Redis it holds
across workers and hosts.
"""

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from django.core.cache import cache, caches
from django.core.cache.backends.locmem import LocMemCache

from accounts import tokens
from mcpapi import refusals, throttling, views
from tests.support import github_standin
from tests.support.databases import SubprocessDatabase
from tests.support.e2e import server_env
from tests.support.gunicorn import running_gunicorn
from tests.support.mcp import McpClient, Registry
from tests.support.repos import SkillRepo
from tests.support.tokens import READ_TOKEN, ZDR_TOKEN

pytestmark = pytest.mark.reliability

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(throttling.CallerRateThrottle, "timer", fake)
    return fake


def cache_dump() -> str:
    """Every key and value in the default cache, as text (local memory or Redis)."""
    backend = caches["default"]
    if isinstance(backend, LocMemCache):
        return repr(sorted(backend._cache.items()))  # type: ignore[attr-defined]
    client = backend._cache.get_client()  # type: ignore[attr-defined]
    keys = client.keys("*")
    return repr(sorted(zip(keys, client.mget(keys) if keys else [], strict=True)))


def statuses(client: McpClient, count: int) -> list[int]:
    return [client.post(PING).status_code for _ in range(count)]


def test_it_is_off_by_default(registry: Registry, mcp: McpClient) -> None:
    from skillsite import settings as production

    if "MCP_RATE_LIMIT_PER_MINUTE" not in os.environ:
        assert production.MCP_RATE_LIMIT_PER_MINUTE == 0
    assert set(statuses(mcp, 120)) == {200}


def test_over_the_limit_is_429_with_retry_after_and_a_json_body(
    registry: Registry, mcp: McpClient, settings, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    settings.MCP_RATE_LIMIT_PER_MINUTE = 3
    for _ in range(3):  # at t = 0, 10 and 20 s
        assert mcp.post(PING).status_code == 200
        clock.now += 10

    parsed: list[bytes] = []
    real_parse = views.parse_jsonrpc
    monkeypatch.setattr(views, "parse_jsonrpc", lambda body: parsed.append(body) or real_parse(body))
    refused = mcp.post(PING)  # at t = 30 s
    assert refused.status_code == 429
    assert refused["Retry-After"] == "30"  # the request of t = 0 leaves the window at t = 60
    body = json.loads(refused.content)
    assert refused["Content-Type"] == "application/json"
    assert body["error"]["code"] == refusals.TRY_LATER
    assert body["error"]["data"] == {"retry_after": 30}
    assert "3 per minute" in body["error"]["message"]
    assert parsed == []  # refused before its body was read or parsed

    clock.now += 29.5
    assert mcp.post(PING).status_code == 429
    clock.now += 1  # t = 60.5: one slot is free again
    assert statuses(mcp, 2) == [200, 429]


def test_the_budget_is_per_caller(registry: Registry, mcp: McpClient, mcp_zdr: McpClient, settings) -> None:  # type: ignore[no-untyped-def]
    settings.MCP_RATE_LIMIT_PER_MINUTE = 2
    assert statuses(mcp, 3) == [200, 200, 429]
    assert statuses(mcp_zdr, 3) == [200, 200, 429]  # another identity, another budget
    first = McpClient(tokens.issue("laptop")[1])
    second = McpClient(tokens.issue("ci-bot")[1])
    assert statuses(first, 3) == [200, 200, 429]
    assert statuses(second, 3) == [200, 200, 429]


def test_two_tokens_of_one_github_login_share_one_budget(registry: Registry, settings) -> None:  # type: ignore[no-untyped-def]
    settings.MCP_RATE_LIMIT_PER_MINUTE = 3
    one, two = f"ghp_{uuid.uuid4().hex}", f"ghp_{uuid.uuid4().hex}"
    with github_standin.GitHubStandIn() as github:
        github.add_user(one, "Octo")
        github.add_user(two, "octo")
        settings.GITHUB_API_URL = github.url
        settings.ALLOWED_GITHUB_LOGINS = ["octo"]
        assert statuses(McpClient(one), 2) == [200, 200]
        assert statuses(McpClient(two), 2) == [200, 429]
    # The cache holds the budget under the identity: neither token appears in it.
    stored = cache_dump()
    assert one not in stored and two not in stored
    for token in (READ_TOKEN, ZDR_TOKEN):
        assert token not in stored


def test_unauthenticated_requests_are_answered_401_and_never_counted(
    registry: Registry, mcp: McpClient, settings
) -> None:  # type: ignore[no-untyped-def]
    settings.MCP_RATE_LIMIT_PER_MINUTE = 1
    anonymous = McpClient(token=None)
    wrong = McpClient(token=f"{tokens.TOKEN_PREFIX}not-a-real-token")  # ours: never sent to GitHub
    for _ in range(5):
        assert anonymous.post(PING).status_code == 401
        assert wrong.post(PING).status_code == 401
    assert statuses(mcp, 2) == [200, 429]


def test_the_cache_key_never_holds_the_token(settings) -> None:  # type: ignore[no-untyped-def]
    from accounts.callers import Caller, CallerKind

    def key_of(caller: Caller) -> str:
        return throttling.CallerRateThrottle(caller).get_cache_key(None, None)  # type: ignore[arg-type]

    settings.MCP_RATE_LIMIT_PER_MINUTE = 5
    key = key_of(Caller(CallerKind.GITHUB, "Octo", False))
    same = key_of(Caller(CallerKind.OAUTH, "octo", False))
    other = key_of(Caller(CallerKind.TOKEN, "octo", False))
    assert key == same != other
    assert "octo" not in key.lower()


# --- across hosts, through gunicorn and Redis ---------------------------------------------


def redis_url() -> str | None:
    """A Redis to share between two servers: TEST_CACHE_URL's server, else a local one."""
    base = os.environ.get("TEST_CACHE_URL") or "redis://127.0.0.1:6379/0"
    base = base.rstrip("/").rsplit("/", 1)[0] if base.count("/") > 2 else base
    url = f"{base}/13"  # not a database the in-process tests flush
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except Exception:
        return None
    return url


def test_the_budget_holds_across_hosts_sharing_redis(
    subprocess_db: SubprocessDatabase, tmp_path: Path
) -> None:
    url = redis_url()
    if url is None:
        pytest.skip("no Redis reachable (set TEST_CACHE_URL)")
    import redis

    store = redis.Redis.from_url(url)
    store.flushdb()
    repo = SkillRepo(tmp_path / "repo")
    repo.add_skill("alpha")
    assert subprocess_db.manage("publish", repo.commit("one"), "--repo", str(repo.root)).returncode == 0
    env = server_env(subprocess_db, CACHE_URL=url, MCP_RATE_LIMIT_PER_MINUTE="4")
    headers = {"Authorization": f"Bearer {READ_TOKEN}", "Content-Type": "application/json"}
    try:
        with (
            running_gunicorn(env, tmp_path, workers=1) as host_a,
            running_gunicorn(env, tmp_path, workers=1) as host_b,
        ):
            codes = []
            for host in (host_a, host_b, host_a, host_b, host_a, host_b):
                response = httpx.post(host.mcp_url, json=PING, headers=headers, timeout=30)
                codes.append(response.status_code)
                if response.status_code == 429:
                    assert int(response.headers["Retry-After"]) >= 1
        # Four requests in all, whichever host took them; with a cache per host it would be six.
        assert codes == [200, 200, 200, 200, 429, 429]
        assert not any(READ_TOKEN.encode() in key for key in store.keys("*"))
    finally:
        store.flushdb()
