"""Two gunicorn instances on ONE PostgreSQL database and one Redis.

Both serve; a `manage.py publish` (a separate process on the same DATABASE_URL, as a
deploy runs it) is served by both, /healthz and tools/call alike, within one second;
a cursor issued by one instance is accepted by the other (one DJANGO_SECRET_KEY); a
GitHub answer cached by one is used by the other (one Redis).

This needs PostgreSQL and Redis on 127.0.0.1 whatever database the rest of the suite
runs on: TEST_DATABASE_URL when it names a PostgreSQL server, else
postgres://postgres@127.0.0.1:5432; TEST_CACHE_URL's Redis server, else
redis://127.0.0.1:6379. A fresh database is created and dropped on that server. When
one does not answer the test fails if TEST_DATABASE_URL or CI is set (CI provides
both), and is skipped, saying why, on a machine without them.
"""

import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import psycopg
import pytest
import redis

from tests.support.databases import TempDatabase, database_url, postgres_url
from tests.support.github_standin import GitHubStandIn
from tests.support.gunicorn import GunicornServer
from tests.support.repos import SkillRepo
from tests.support.standard import build_standard_repo
from tests.support.tokens import READ_TOKEN, ZDR_TOKEN

pytestmark = pytest.mark.e2e

DEFAULT_POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS = "redis://127.0.0.1:6379"
# A Redis database of its own (the suite's TEST_CACHE_URL runs use 15 and 14). Nothing
# is flushed: every key this module makes is a hash of a token made for this run.
REDIS_DB = 9
PROPAGATION_SECONDS = 1.0
IN_A_ROW = 3


def _unavailable(what: str, url: str, error: Exception) -> None:
    message = f"{what} at {url} does not answer ({type(error).__name__}: {error}); this test needs it"
    if os.environ.get("TEST_DATABASE_URL") or os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def postgres_server() -> str:
    url = postgres_url() or DEFAULT_POSTGRES
    try:
        psycopg.connect(database_url(url, "postgres"), connect_timeout=5).close()
    except psycopg.Error as error:
        _unavailable("PostgreSQL", url, error)
    return url


def redis_cache_url() -> str:
    base = re.sub(r"/\d*$", "", (os.environ.get("TEST_CACHE_URL") or DEFAULT_REDIS).rstrip("/"))
    url = f"{base}/{REDIS_DB}"
    try:
        redis.Redis.from_url(url, socket_connect_timeout=5).ping()
    except redis.RedisError as error:
        _unavailable("Redis", url, error)
    return url


@dataclass
class Pair:
    a: GunicornServer
    b: GunicornServer
    repo: SkillRepo
    first: str
    database: TempDatabase
    env: dict[str, str]
    standin: GitHubStandIn

    @property
    def both(self) -> tuple[GunicornServer, GunicornServer]:
        return self.a, self.b


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    postgres = postgres_server()
    cache_url = redis_cache_url()
    workdir = tmp_path_factory.mktemp("two-instances")
    repo = build_standard_repo(workdir / "repo")
    first = repo.git("rev-parse", "HEAD")
    with GitHubStandIn() as standin, TempDatabase(workdir / "db", postgres=postgres) as database:
        assert database.url.startswith(("postgres://", "postgresql://"))
        env = database.env(
            SKILLS_READ_TOKENS=READ_TOKEN,
            SKILLS_ZDR_TOKENS=ZDR_TOKEN,
            CACHE_URL=cache_url,
            ALLOWED_GITHUB_LOGINS="alice",
            GITHUB_API_URL=standin.url,
            LOG_FORMAT="plain",
        )
        env.pop("MCP_RATE_LIMIT_PER_MINUTE", None)
        database.migrate_and_publish(repo.root, first, env)
        with (
            GunicornServer(env, workers=2, log_path=workdir / "a.log") as a,
            GunicornServer(env, workers=2, log_path=workdir / "b.log") as b,
        ):
            yield Pair(a, b, repo, first, database, env, standin)


# One client for the module, without keep-alive: every request opens a new connection, so
# requests spread over an instance's workers (a kept-alive connection stays on one), and
# none pays for building a client (an SSL context each: ~0.1 s on a loaded machine).
HTTP = httpx.Client(timeout=10, limits=httpx.Limits(max_keepalive_connections=0))


def rpc(server: GunicornServer, method: str, params: dict[str, Any], token: str = READ_TOKEN) -> Any:
    response = HTTP.post(
        server.mcp_url,
        json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
        headers={"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"},
    )
    assert response.status_code == 200, (response.status_code, response.text)
    return response.json()["result"]


def call(server: GunicornServer, tool: str, **arguments: Any) -> dict[str, Any]:
    return rpc(server, "tools/call", {"name": tool, "arguments": arguments})["structuredContent"]


def healthz(server: GunicornServer) -> dict[str, Any]:
    response = HTTP.get(f"{server.url}/healthz")
    assert response.status_code == 200, response.text
    return response.json()


def test_both_instances_serve_the_same_published_registry(pair: Pair) -> None:
    for server in pair.both:
        assert healthz(server)["registry_sha"] == pair.first
        listed = call(server, "skills_list")
        assert listed["registry_sha"] == pair.first
        assert [skill["id"] for skill in listed["skills"]] == ["alpha", "beta", "gamma"]
    a, b = (call(server, "skills_get", id="alpha") for server in pair.both)
    assert a == b


def test_a_cursor_issued_by_one_instance_is_accepted_by_the_other(pair: Pair) -> None:
    for issuer, other in (pair.both, pair.both[::-1]):
        first_page = call(issuer, "skills_list", limit=1)
        cursor = first_page["next_cursor"]
        assert cursor is not None
        assert call(other, "skills_list", limit=1, cursor=cursor) == call(
            issuer, "skills_list", limit=1, cursor=cursor
        )
        assert [s["id"] for s in call(other, "skills_list", limit=1, cursor=cursor)["skills"]] == ["beta"]

        searched = call(issuer, "skills_search", query="review", limit=1)
        follow = call(other, "skills_search", query="review", limit=1, cursor=searched["next_cursor"])
        assert "error" not in follow, follow
        assert follow["results"]

        resources = rpc(issuer, "resources/list", {})
        if "nextCursor" in resources:
            assert "resources" in rpc(other, "resources/list", {"cursor": resources["nextCursor"]})


def call_as(server: GunicornServer, token: str) -> dict[str, Any]:
    result = rpc(server, "tools/call", {"name": "skills_list", "arguments": {}}, token=token)
    return result["structuredContent"]


def test_a_github_answer_cached_by_one_instance_is_used_by_the_other(pair: Pair) -> None:
    token = "ghp_shared_" + os.urandom(12).hex()
    pair.standin.add_user(token, "alice")
    for server in [*pair.both, *pair.both, *pair.both]:  # every worker of both, most likely
        assert call_as(server, token)["registry_sha"]
    assert pair.standin.calls[token] == 1


# Last: it moves the registry on.
def test_a_publish_is_served_by_both_instances_within_a_second(pair: Pair) -> None:
    old_cursor = call(pair.a, "skills_list", limit=1)["next_cursor"]
    pair.repo.add_skill("delta", body="Delta steps.\n", name="Delta", description="Ship the fourth thing.")
    second = pair.repo.commit("add delta")

    pair.database.manage_ok("publish", second, "--repo", str(pair.repo.root), env=pair.env)
    published = time.monotonic()  # the publish has committed: from now on, both must serve it

    # Each instance, on each path, must have answered with the new revision within the
    # second, and from then on IN_A_ROW times in a row (they land on either of its workers).
    servers = {server.url: server for server in pair.both}
    keys = [(url, check) for url in servers for check in ("healthz", "tools/call")]
    fresh_since: dict[tuple[str, str], float | None] = dict.fromkeys(keys)
    streaks = dict.fromkeys(keys, 0)
    trace: list[str] = []
    while min(streaks.values()) < IN_A_ROW and time.monotonic() - published < PROPAGATION_SECONDS + 5:
        for url, check in keys:
            if streaks[(url, check)] >= IN_A_ROW:
                continue
            if check == "healthz":
                fresh = healthz(servers[url])["registry_sha"] == second
            else:
                listed = call(servers[url], "skills_list")
                fresh = listed["registry_sha"] == second and "delta" in [s["id"] for s in listed["skills"]]
            answered = time.monotonic() - published
            trace.append(f"{answered:.3f}s {url} {check}: {'new' if fresh else 'OLD'}")
            if not fresh:
                streaks[(url, check)], fresh_since[(url, check)] = 0, None
            else:
                streaks[(url, check)] += 1
                if fresh_since[(url, check)] is None:
                    fresh_since[(url, check)] = answered
    assert min(streaks.values()) >= IN_A_ROW, trace
    latest = max(since for since in fresh_since.values() if since is not None)
    assert latest < PROPAGATION_SECONDS, trace

    # And they stay on it; a cursor of the old revision is refused the same way by both.
    for server in pair.both:
        for _ in range(4):
            assert call(server, "skills_list")["registry_sha"] == second
            assert healthz(server)["registry_sha"] == second
        stale = call(server, "skills_list", limit=1, cursor=old_cursor)
        assert stale["error"]["code"] == "REVISION_UNAVAILABLE"
        assert stale["error"]["active_sha"] == second
