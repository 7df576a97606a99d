"""Outages answer JSON, never Django's HTML 500 (issue 15, finding 10).

- The database gone: a gunicorn whose DATABASE_URL names a PostgreSQL server that is not
  there (a closed port on 127.0.0.1). Every /mcp auth path that needs the database is a JSON
  503 with Retry-After and exactly one access-log line; a static token still works.
- The cache (Redis) gone, with rate limiting on: CACHE_URL at a closed port. The limiter
  fails open for every caller, logging one WARNING per failed count, and a PAT is still
  checked (the GitHub cache is a miss, never an error).
"""

import logging
import secrets
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from django.test import Client

from tests.support import github_standin
from tests.support.databases import SubprocessDatabase
from tests.support.e2e import server_env
from tests.support.gunicorn import GunicornServer
from tests.support.processes import free_port
from tests.support.tokens import ALICE_TOKEN, READ_TOKEN

pytestmark = pytest.mark.reliability

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def mcp_answers(url: str) -> bool:
    """Ready once /mcp answers anything at all (/healthz needs the database that is gone)."""
    try:
        httpx.post(f"{url}/mcp", json=PING, timeout=1)
    except httpx.TransportError:
        return False
    return True


@pytest.fixture(scope="module")
def without_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GunicornServer]:
    workdir = tmp_path_factory.mktemp("no-database")
    gone = SubprocessDatabase(f"postgresql://postgres@127.0.0.1:{free_port()}/gone", workdir)
    env = server_env(gone, DATABASE_CONN_MAX_AGE="0", LOG_FORMAT="plain", TMPDIR=str(workdir))
    server = GunicornServer(env, workers=1, log_path=workdir / "gunicorn.log")
    server.launch()
    try:
        server.wait_ready(mcp_answers)
        yield server
    finally:
        server.stop()


def post(server: GunicornServer, token: str, body: object = PING) -> tuple[httpx.Response, str]:
    request_id = uuid.uuid4().hex
    response = httpx.post(
        server.mcp_url,
        json=body,
        headers={"Authorization": f"Bearer {token}", "X-Request-ID": request_id},
        timeout=10,
    )
    return response, request_id


def access_lines(server: GunicornServer, request_id: str) -> list[str]:
    log = Path(server.log_path).read_text(errors="replace")
    return [line for line in log.splitlines() if "mcpapi.access" in line and request_id in line]


@pytest.mark.parametrize(
    "token",
    [
        pytest.param("skr_" + "A" * 43, id="service-token"),
        pytest.param("ghp_" + secrets.token_hex(18), id="github-pat"),  # is any login listed there?
        pytest.param("sko_" + secrets.token_hex(20), id="oauth-token-while-oauth-is-off"),
    ],
)
def test_with_the_database_gone_a_token_it_must_check_is_a_json_503_with_retry_after(
    without_database: GunicornServer, token: str
) -> None:
    response, request_id = post(without_database, token)
    if token.startswith("sko_"):
        assert response.status_code == 401  # OAuth off: refused without the database
    else:
        assert response.status_code == 503, response.text
        assert response.headers["Retry-After"] == "5"
    assert response.headers["Content-Type"] == "application/json"
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["error"]["message"]
    assert len(access_lines(without_database, request_id)) == 1


def test_with_the_database_gone_a_static_token_is_still_let_in(without_database: GunicornServer) -> None:
    response, request_id = post(without_database, READ_TOKEN)
    assert response.status_code == 200
    assert response.json()["result"] == {}
    response, _ = post(
        without_database, READ_TOKEN, {**PING, "method": "tools/call", "params": {"name": "skills_list"}}
    )
    assert response.headers["Content-Type"] == "application/json"  # whatever it says, JSON
    assert response.status_code != 500
    assert len(access_lines(without_database, request_id)) == 1


# --- the cache gone ------------------------------------------------------------------------


@pytest.fixture
def cache_gone(settings) -> None:
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/11",
        }
    }
    settings.MCP_RATE_LIMIT_PER_MINUTE = 2
    settings.SKILLS_READ_TOKENS = [READ_TOKEN]
    settings.ALLOWED_GITHUB_LOGINS = ["alice"]


def mcp_post(token: str):
    return Client().post(
        "/mcp", data=PING, content_type="application/json", headers={"Authorization": f"Bearer {token}"}
    )


@pytest.mark.django_db
def test_with_the_cache_gone_the_rate_limiter_fails_open_for_every_caller_and_says_so(
    cache_gone, settings, caplog
) -> None:
    caplog.set_level(logging.WARNING)
    with github_standin.GitHubStandIn() as github:
        github.add_user(ALICE_TOKEN, "alice", 1001)
        settings.GITHUB_API_URL = github.url
        for token in (READ_TOKEN, ALICE_TOKEN):
            statuses = [mcp_post(token).status_code for _ in range(4)]  # twice the limit
            assert statuses == [200] * 4, token
        assert github.calls[ALICE_TOKEN] == 4  # no cache to remember the answer in: asked each time
    counting = [r for r in caplog.records if "counting a caller's requests" in r.getMessage()]
    assert len(counting) == 8  # one WARNING per request whose count failed
    assert all(record.levelno == logging.WARNING for record in counting)
    assert all(str(settings.CACHES["default"]["LOCATION"]) not in r.getMessage() for r in caplog.records)
