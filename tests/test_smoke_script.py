"""scripts/smoke_test.py against a stand-in registry on 127.0.0.1."""

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support.http_answers import send
from tests.support.project import PROJECT_DIR

SCRIPT = PROJECT_DIR / "scripts" / "smoke_test.py"
SHA = "0123456789abcdef0123456789abcdef01234567"
OTHER_SHA = "fedcba9876543210fedcba9876543210fedcba98"
TOKEN = "smoke-token-for-tests"


def tool_result(sha: str, *, is_error: bool = False, error: dict | None = None) -> dict:
    structured = {"api_version": 1, "registry_sha": sha, "published_at": "2026-11-30T10:00:00+00:00"}
    if error:
        structured["error"] = error
    else:
        structured.update(skills=[], next_cursor=None)
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "content": [{"type": "text", "text": json.dumps(structured)}],
            "structuredContent": structured,
            "isError": is_error,
        },
    }


@dataclass
class StandIn:
    """What the stand-in registry answers, and what it was asked."""

    health: tuple[int, dict] = (
        200,
        {"status": "ok", "registry_sha": SHA, "published_at": "2026-11-30T10:00:00Z"},
    )
    mcp: tuple[int, dict | str] = (200, tool_result(SHA))
    mcp_headers: dict[str, str] = field(default_factory=dict)
    mcp_content_type: str = "application/json"
    health_answers: list[tuple[int, dict]] = field(default_factory=list)  # served first, one per request
    requests: list[dict] = field(default_factory=list)
    base_url: str = ""


def make_handler(stand_in: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def answer(
            self,
            status: int,
            payload: dict | str,
            headers: dict[str, str] | None = None,
            content_type: str = "application/json",
        ) -> None:
            body = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
            send(self, status, body, content_type, headers)

        def do_GET(self) -> None:
            stand_in.requests.append({"method": "GET", "path": self.path, "headers": dict(self.headers)})
            if self.path != "/healthz":
                self.answer(404, {"detail": "not found"})
            elif stand_in.health_answers:
                self.answer(*stand_in.health_answers.pop(0))
            else:
                self.answer(*stand_in.health)

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            stand_in.requests.append(
                {"method": "POST", "path": self.path, "headers": dict(self.headers), "body": json.loads(body)}
            )
            if self.path != "/mcp":
                self.answer(404, {"detail": "not found"})
                return
            status, payload = stand_in.mcp
            self.answer(status, payload, stand_in.mcp_headers, stand_in.mcp_content_type)

    return Handler


@pytest.fixture
def stand_in() -> Iterator[StandIn]:
    state = StandIn()
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def run_smoke(*args: str, token: str | None = TOKEN) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin"}
    if token is not None:
        env["SKILLS_SMOKE_TOKEN"] = token
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def smoke(stand_in: StandIn, *extra: str, sha: str = SHA, **kwargs: object) -> subprocess.CompletedProcess:
    return run_smoke(
        "--url",
        stand_in.base_url,
        "--expect-sha",
        sha,
        "--attempts",
        "2",
        "--interval",
        "0",
        *extra,
        **kwargs,
    )


def test_it_passes_when_healthz_and_skills_list_serve_the_expected_sha(stand_in: StandIn) -> None:
    result = smoke(stand_in)

    assert result.returncode == 0, result.stderr
    assert f"/healthz serves {SHA}" in result.stdout
    assert "skills_list answered" in result.stdout
    assert TOKEN not in result.stdout + result.stderr


def test_it_sends_one_mcp_tools_call_with_the_streamable_http_headers(stand_in: StandIn) -> None:
    smoke(stand_in)

    posts = [r for r in stand_in.requests if r["method"] == "POST"]
    assert len(posts) == 1
    headers = {k.lower(): v for k, v in posts[0]["headers"].items()}
    assert headers["authorization"] == f"Bearer {TOKEN}"
    assert headers["content-type"] == "application/json"
    assert headers["accept"] == "application/json, text/event-stream"
    assert headers["mcp-protocol-version"] == "2025-11-25"
    body = posts[0]["body"]
    assert body["jsonrpc"] == "2.0"
    assert body["method"] == "tools/call"
    assert body["params"]["name"] == "skills_list"


def test_it_accepts_a_url_with_a_trailing_slash_or_mcp_path(stand_in: StandIn) -> None:
    for url in (stand_in.base_url + "/", stand_in.base_url + "/mcp"):
        result = run_smoke("--url", url, "--expect-sha", SHA, "--attempts", "1")
        assert result.returncode == 0, result.stderr


def test_it_reads_a_reply_sent_as_an_event_stream(stand_in: StandIn) -> None:
    stand_in.mcp = (200, f"event: message\ndata: {json.dumps(tool_result(SHA))}\n\n")
    stand_in.mcp_content_type = "text/event-stream"

    result = smoke(stand_in)

    assert result.returncode == 0, result.stderr


def test_it_waits_for_healthz_to_reach_the_new_sha(stand_in: StandIn) -> None:
    stand_in.health_answers = [
        (503, {"status": "empty", "registry_sha": None, "published_at": None}),
        (200, {"status": "ok", "registry_sha": OTHER_SHA, "published_at": "2026-11-30T09:00:00Z"}),
    ]

    result = smoke(stand_in, "--attempts", "3")

    assert result.returncode == 0, result.stderr
    assert "not yet" in result.stderr


def test_it_fails_when_healthz_serves_another_sha(stand_in: StandIn) -> None:
    stand_in.health = (
        200,
        {"status": "ok", "registry_sha": OTHER_SHA, "published_at": "2026-11-30T10:00:00Z"},
    )

    result = smoke(stand_in)

    assert result.returncode == 1
    assert f"registry_sha is '{OTHER_SHA}', expected '{SHA}'" in result.stderr
    assert "after 2 attempts" in result.stderr
    assert not [r for r in stand_in.requests if r["method"] == "POST"]


def test_it_fails_when_healthz_says_empty(stand_in: StandIn) -> None:
    stand_in.health = (503, {"status": "empty", "registry_sha": None, "published_at": None})

    result = smoke(stand_in)

    assert result.returncode == 1
    assert "GET /healthz: HTTP 503" in result.stderr


def test_it_fails_when_skills_list_answers_from_another_sha(stand_in: StandIn) -> None:
    stand_in.mcp = (200, tool_result(OTHER_SHA))

    result = smoke(stand_in)

    assert result.returncode == 1
    assert f"skills_list registry_sha is '{OTHER_SHA}', expected '{SHA}'" in result.stderr


def test_it_fails_on_an_error_result(stand_in: StandIn) -> None:
    stand_in.mcp = (
        200,
        tool_result(
            SHA, is_error=True, error={"code": "REGISTRY_EMPTY", "message": "Nothing is published yet."}
        ),
    )

    result = smoke(stand_in)

    assert result.returncode == 1
    assert "error result REGISTRY_EMPTY: Nothing is published yet." in result.stderr


def test_it_fails_on_a_json_rpc_error(stand_in: StandIn) -> None:
    stand_in.mcp = (200, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Unknown tool"}})

    result = smoke(stand_in)

    assert result.returncode == 1
    assert "JSON-RPC error -32602: Unknown tool" in result.stderr


def test_it_fails_at_once_on_a_401_naming_the_token_variable(stand_in: StandIn) -> None:
    stand_in.mcp = (401, {"detail": "invalid token"})
    stand_in.mcp_headers = {"WWW-Authenticate": 'Bearer realm="mcp", error="invalid_token"'}

    result = smoke(stand_in, "--attempts", "5")

    assert result.returncode == 1
    assert "HTTP 401" in result.stderr
    assert "SKILLS_SMOKE_TOKEN" in result.stderr
    assert 'error="invalid_token"' in result.stderr
    assert len([r for r in stand_in.requests if r["method"] == "POST"]) == 1
    assert TOKEN not in result.stdout + result.stderr


def test_it_fails_on_a_reply_that_is_not_json(stand_in: StandIn) -> None:
    stand_in.mcp = (200, "<html>bad gateway</html>")

    result = smoke(stand_in)

    assert result.returncode == 1
    assert "POST /mcp: the reply is not JSON" in result.stderr


def test_it_fails_when_the_registry_cannot_be_reached() -> None:
    with ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler) as server:
        port = server.server_address[1]  # bound, then closed: nothing listens there any more

    result = run_smoke("--url", f"http://127.0.0.1:{port}", "--expect-sha", SHA, "--attempts", "1")

    assert result.returncode == 1
    assert "cannot connect" in result.stderr


def test_it_refuses_to_run_without_a_token(stand_in: StandIn) -> None:
    result = smoke(stand_in, token=None)

    assert result.returncode == 2
    assert "set SKILLS_SMOKE_TOKEN" in result.stderr
    assert stand_in.requests == []


def test_it_refuses_a_url_that_is_not_http(stand_in: StandIn) -> None:
    result = run_smoke("--url", "file:///etc/passwd", "--expect-sha", SHA)

    assert result.returncode == 2
    assert "--url must be an http(s) URL" in result.stderr
