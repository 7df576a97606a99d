"""Callers end to end: gunicorn, a real database, a GitHub stand-in on 127.0.0.1.

One gunicorn per module, with ONE worker and the default local-memory cache, so that
"a second request with the same PAT makes no GitHub call" is about the product's cache
and not about which worker answered. Its environment: static read and ZDR tokens,
ALLOWED_GITHUB_LOGINS / ZDR_GITHUB_LOGINS, GITHUB_API_URL at the stand-in,
GITHUB_TIMEOUT_SECONDS=2; plus service tokens made with `manage.py create_token`.

Every byte gunicorn writes (stdout and stderr, its own access log turned on, the app at
LOG_LEVEL=DEBUG) and every manage.py run's output is kept: the last test checks that no
token used anywhere in this module appears in it, and what the access lines say.
"""

import json
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support import github_standin as kinds
from tests.support.databases import TempDatabase
from tests.support.github_standin import GitHubStandIn
from tests.support.gunicorn import GunicornServer
from tests.support.standard import ZDR_ID, build_standard_repo

pytestmark = pytest.mark.e2e

# Short, but not so short that a loaded machine turns a stand-in's prompt answer into a timeout.
GITHUB_TIMEOUT_SECONDS = 2.0
TIMEOUT_MARGIN = 0.75  # seconds: a refused request is answered at most this long after the timeout
# Random per run: finding one in the logs can only mean it was logged.
READ_TOKEN = f"e2e-read-{secrets.token_hex(12)}"
ZDR_TOKEN = f"e2e-zdr-{secrets.token_hex(12)}"
PUBLIC_IDS = ["alpha", "beta", "gamma"]
CHALLENGE = 'Bearer realm="mcp"'
INVALID_TOKEN_CHALLENGE = 'Bearer realm="mcp", error="invalid_token"'


def pat(kind: str = "ghp") -> str:
    """A fresh GitHub-ish token; for the stand-in's special kinds, "<kind>_<random>"."""
    return kinds.special(kind) if kind != "ghp" else f"ghp_{secrets.token_hex(18)}"


@dataclass
class Callers:
    mcp_url: str
    standin: GitHubStandIn
    database: TempDatabase
    env: dict[str, str]
    server: GunicornServer
    log_path: Path
    http: httpx.Client
    sent: set[str] = field(default_factory=set)  # every credential any request carried
    _next_id: int = 0

    def post(
        self, token: str | None, method: str = "ping", params: dict[str, Any] | None = None, **headers: str
    ) -> httpx.Response:
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        all_headers = {"Accept": "application/json, text/event-stream", **headers}
        if token is not None:
            all_headers.setdefault("Authorization", f"Bearer {token}")
            self.sent.add(token)
        if "Authorization" in all_headers:
            self.sent.update(all_headers["Authorization"].split()[1:])
        return self.http.post(self.mcp_url, json=message, headers=all_headers)

    def call(self, token: str, tool: str, **arguments: Any) -> dict[str, Any]:
        """structuredContent of a tool call that was let in."""
        response = self.post(token, "tools/call", {"name": tool, "arguments": arguments})
        assert response.status_code == 200, (response.status_code, response.text)
        return response.json()["result"]["structuredContent"]

    def visible_ids(self, token: str) -> list[str]:
        return [skill["id"] for skill in self.call(token, "skills_list")["skills"]]

    def create_token(self, name: str, *flags: str) -> str:
        token = self.database.manage_ok("create_token", name, *flags, env=self.env).strip()
        self.sent.add(token)
        return token


@pytest.fixture(scope="module")
def callers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callers]:
    workdir = tmp_path_factory.mktemp("callers")
    repo = build_standard_repo(workdir / "repo")
    with GitHubStandIn(hang_seconds=10) as standin, TempDatabase(workdir / "db") as database:
        env = database.env(
            SKILLS_READ_TOKENS=READ_TOKEN,
            SKILLS_ZDR_TOKENS=ZDR_TOKEN,
            ALLOWED_GITHUB_LOGINS="alice,bob",
            ZDR_GITHUB_LOGINS="zelda",
            GITHUB_API_URL=standin.url,
            GITHUB_TIMEOUT_SECONDS=str(GITHUB_TIMEOUT_SECONDS),
            GITHUB_CACHE_SECONDS="300",
            LOG_FORMAT="json",
            LOG_LEVEL="DEBUG",
            GUNICORN_ACCESSLOG="-",  # gunicorn's own access log too: it must not carry tokens either
        )
        # The default local-memory cache: one worker, one cache (see the module docstring).
        for name in ("CACHE_URL", "MCP_RATE_LIMIT_PER_MINUTE", "GITHUB_OAUTH_CLIENT_ID", "PUBLIC_BASE_URL"):
            env.pop(name, None)  # nothing of the test run's own environment changes the rules
        database.migrate_and_publish(repo.root, repo.git("rev-parse", "HEAD"), env)
        log_path = workdir / "gunicorn.log"
        with (
            GunicornServer(env, workers=1, log_path=log_path) as server,
            httpx.Client(timeout=20) as http,
        ):
            yield Callers(
                mcp_url=server.mcp_url,
                standin=standin,
                database=database,
                env=env,
                server=server,
                log_path=log_path,
                http=http,
                sent={READ_TOKEN, ZDR_TOKEN},
            )


def assert_refused_with_nothing_of_the_registry(response: httpx.Response, status: int) -> None:
    assert response.status_code == status, (response.status_code, response.text)
    body = response.text
    for word in [*PUBLIC_IDS, ZDR_ID, "registry_sha", "Secret Ops", "Alpha"]:
        assert word not in body, (word, body)


def test_an_allowed_github_login_is_let_in_and_sees_no_zdr_skill(callers: Callers) -> None:
    token = pat()
    callers.standin.add_user(token, "alice")
    assert callers.visible_ids(token) == PUBLIC_IDS
    assert callers.call(token, "skills_get", id=ZDR_ID)["error"]["code"] == "SKILL_NOT_FOUND"
    assert callers.call(token, "skills_search", query=ZDR_ID)["results"] == []
    assert callers.standin.calls[token] == 1


def test_a_zdr_login_sees_the_zdr_skills(callers: Callers) -> None:
    token = pat()
    callers.standin.add_user(token, "Zelda")  # logins compare case-insensitively
    assert callers.visible_ids(token) == sorted([*PUBLIC_IDS, ZDR_ID])
    assert callers.call(token, "skills_get", id=ZDR_ID)["metadata"]["required_zdr"] is True


def test_the_environment_tokens_are_let_in_without_github(callers: Callers) -> None:
    assert callers.visible_ids(READ_TOKEN) == PUBLIC_IDS
    assert callers.visible_ids(ZDR_TOKEN) == sorted([*PUBLIC_IDS, ZDR_ID])
    assert callers.standin.calls[READ_TOKEN] == callers.standin.calls[ZDR_TOKEN] == 0


def test_database_tokens_are_let_in_without_github(callers: Callers) -> None:
    plain = callers.create_token("e2e-plain")
    cleared = callers.create_token("e2e-cleared", "--zdr")
    assert plain.startswith("skr_") and cleared.startswith("skr_")
    assert callers.visible_ids(plain) == PUBLIC_IDS
    assert callers.visible_ids(cleared) == sorted([*PUBLIC_IDS, ZDR_ID])
    assert callers.standin.calls[plain] == callers.standin.calls[cleared] == 0


def test_an_unknown_login_is_403(callers: Callers) -> None:
    token = pat()
    callers.standin.add_user(token, "mallory")
    response = callers.post(token, "tools/call", {"name": "skills_list", "arguments": {}})
    assert_refused_with_nothing_of_the_registry(response, 403)
    assert "WWW-Authenticate" not in response.headers


@pytest.mark.parametrize(
    "credentials",
    [
        pytest.param(lambda: pat(kinds.BAD), id="github-401"),
        pytest.param(lambda: "skr_" + secrets.token_urlsafe(32), id="unknown-service-token"),
        pytest.param(lambda: f"wrong*{secrets.token_hex(8)}", id="malformed"),
        pytest.param(lambda: f"{secrets.token_hex(8)} {secrets.token_hex(8)}", id="two-words"),
        pytest.param(lambda: "x" * 2000 + secrets.token_hex(8), id="over-long"),
    ],
)
def test_a_bad_token_is_401_invalid_token(callers: Callers, credentials: Any) -> None:
    token = credentials()
    response = callers.post(token, "tools/call", {"name": "skills_list", "arguments": {}})
    assert_refused_with_nothing_of_the_registry(response, 401)
    assert response.headers["WWW-Authenticate"] == INVALID_TOKEN_CHALLENGE
    if kinds.kind_of(token) != kinds.BAD:
        assert callers.standin.calls[token] == 0  # never sent to GitHub


@pytest.mark.parametrize("authorization", [None, "Basic dXNlcjpwYXNz", "Token abc"])
def test_no_bearer_credentials_is_401_with_the_bare_challenge(
    callers: Callers, authorization: str | None
) -> None:
    headers = {"Authorization": authorization} if authorization else {}
    response = callers.post(None, "tools/call", {"name": "skills_list", "arguments": {}}, **headers)
    assert_refused_with_nothing_of_the_registry(response, 401)
    assert response.headers["WWW-Authenticate"] == CHALLENGE


@pytest.mark.parametrize("kind", [kinds.BOOM, kinds.RATELIMIT, kinds.TOOMANY])
def test_a_github_error_is_503_and_is_asked_again_next_time(callers: Callers, kind: str) -> None:
    token = pat(kind)
    for attempt in (1, 2):
        response = callers.post(token, "tools/call", {"name": "skills_list", "arguments": {}})
        assert_refused_with_nothing_of_the_registry(response, 503)
        assert "WWW-Authenticate" not in response.headers
        assert response.json()["error"]  # a message saying why
        assert callers.standin.calls[token] == attempt  # a failure is never cached as a success


def test_a_hanging_github_is_refused_within_the_timeout(callers: Callers) -> None:
    token = pat(kinds.HANG)
    started = time.monotonic()
    response = callers.post(token)
    elapsed = time.monotonic() - started
    assert_refused_with_nothing_of_the_registry(response, 503)
    assert callers.standin.calls[token] == 1
    assert GITHUB_TIMEOUT_SECONDS - 0.05 <= elapsed <= GITHUB_TIMEOUT_SECONDS + TIMEOUT_MARGIN, elapsed
    # The (only) worker is free again at once.
    assert callers.post(READ_TOKEN).status_code == 200


def test_a_second_request_with_the_same_pat_makes_no_github_call(callers: Callers) -> None:
    token = pat()
    callers.standin.add_user(token, "bob")
    assert callers.post(token).status_code == 200
    assert callers.visible_ids(token) == PUBLIC_IDS
    assert callers.post(token, "tools/list").status_code == 200
    assert callers.standin.calls[token] == 1


def test_a_revoked_database_token_is_refused_on_the_next_request(callers: Callers) -> None:
    token = callers.create_token("e2e-revoked")
    assert callers.post(token).status_code == 200
    assert callers.post(token).status_code == 200
    callers.database.manage_ok("revoke_token", "e2e-revoked", env=callers.env)
    response = callers.post(token)
    assert_refused_with_nothing_of_the_registry(response, 401)
    assert response.headers["WWW-Authenticate"] == INVALID_TOKEN_CHALLENGE


# Keep this test LAST in the module: it stops the server, so that the log it reads is complete.
def test_no_token_appears_in_any_output_and_access_lines_name_the_caller(callers: Callers) -> None:
    # Every path once more, with fresh credentials (so the test stands alone too).
    alice = pat()
    callers.standin.add_user(alice, "alice")
    zelda = pat()
    callers.standin.add_user(zelda, "zelda")
    mallory = pat()
    callers.standin.add_user(mallory, "mallory")
    service = callers.create_token("log-check")
    expected = {  # (caller, method, tool, status) the access log must show
        ("token:env", "tools/call", "skills_list", 200): callers.post(READ_TOKEN, "tools/call", list_args()),
        ("token:env-zdr", "tools/call", "skills_get", 200): callers.post(
            ZDR_TOKEN, "tools/call", {"name": "skills_get", "arguments": {"id": ZDR_ID}}
        ),
        ("github:alice", "tools/call", "skills_search", 200): callers.post(
            alice, "tools/call", {"name": "skills_search", "arguments": {"query": "review"}}
        ),
        ("github:zelda", "resources/list", None, 200): callers.post(zelda, "resources/list"),
        ("token:log-check", "tools/list", None, 200): callers.post(service, "tools/list"),
        (None, None, None, 403): callers.post(mallory, "tools/call", list_args()),
        (None, None, None, 401): callers.post(pat(kinds.BAD), "tools/call", list_args()),
        (None, None, None, 503): callers.post(pat(kinds.BOOM), "tools/call", list_args()),
    }
    for (_, _, _, status), response in expected.items():
        assert response.status_code == status
    callers.post(pat(kinds.HANG))
    callers.post(pat(kinds.GARBAGE))
    callers.post(f"bad*{secrets.token_hex(8)}")
    callers.database.manage_ok("revoke_token", "log-check", env=callers.env)
    assert callers.post(service).status_code == 401
    assert callers.post(alice).status_code == 200  # a cache hit: logs nothing new of GitHub

    callers.server.stop()  # flushes and ends every process writing to the log
    output = callers.log_path.read_text(errors="replace")
    runs = callers.database.runs
    for args, stdout, stderr in runs:
        if args[0] == "create_token":
            assert stdout.strip() in callers.sent  # the one place a token is shown, by design
            output += stderr
        else:
            output += stdout + stderr
    assert len(runs) >= 4  # migrate, publish, create_token, revoke_token at least

    assert len(callers.sent) >= 10
    for token in callers.sent:
        for piece in secret_pieces(token):
            assert piece not in output, f"a token ({piece[:6]}...) appears in the server's output"

    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    access = [line for line in lines if line.get("logger") == "mcpapi.access"]
    assert len(access) >= len(expected) + 5
    for line in access:
        assert isinstance(line["duration_ms"], float | int) and line["duration_ms"] >= 0
        assert isinstance(line["status"], int)
        # The message alone (LOG_FORMAT=plain prints only it) names them too.
        message = line["message"]
        assert str(line["status"]) in message and "ms" in message
        assert (line["caller"] or "-") in message and (line["tool"] or "-") in message
    seen = {(line["caller"], line["rpc_method"], line["tool"], line["status"]) for line in access}
    assert set(expected) <= seen, set(expected) - seen
    for caller, _method, _tool, status in seen:
        assert (caller is not None) == (status == 200), (caller, status)
    # gunicorn's own access log ran too (and is covered by the search above).
    assert '"POST /mcp HTTP/1.1" 200' in output


def list_args() -> dict[str, Any]:
    return {"name": "skills_list", "arguments": {}}


def secret_pieces(token: str) -> list[str]:
    """The token, and its random part on its own (a service token's lookup prefix too);
    nothing shorter than 12 characters (such as the "abc" of "Token abc"), which could
    turn up by chance."""
    pieces = [token]
    if token.startswith("skr_"):
        pieces += [token[4:], token[:12]]
    _, dash, random_part = token.partition("-")
    if dash and len(random_part) >= 16:
        pieces.append(random_part)
    return [piece for piece in pieces if len(piece) >= 12]
