"""Hostile JSON-RPC bodies through gunicorn (docs/reference.md#mcp-methods, #errors, #limits):
one server for the module; no hostile body gets a server error, an oversized body is 413 and
a body of exactly the limit is served."""

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import example, given

from tests.reliability.requests_support import SURROGATE_ID, bodies, check_reply
from tests.support.databases import TemplateDatabase
from tests.support.e2e import server_env
from tests.support.gunicorn import GunicornServer, running_gunicorn
from tests.support.hostile import examples
from tests.support.repos import SkillRepo
from tests.support.tokens import READ_TOKEN

pytestmark = pytest.mark.reliability


OVER_HTTP = examples(40, function_scoped_fixtures=True)


# --- through gunicorn ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def live(template_db: TemplateDatabase, tmp_path_factory: pytest.TempPathFactory) -> Iterator[GunicornServer]:
    workdir = tmp_path_factory.mktemp("hostile")
    with template_db.copy(workdir) as database:
        repo = SkillRepo(workdir / "repo")
        repo.add_skill("alpha", body="Alpha steps.\n", files={"references/guide.md": "# Guide\n"})
        repo.add_skill("secret-ops", body="Secret.\n", required_zdr=True)
        done = database.manage("publish", repo.commit("skills"), "--repo", str(repo.root))
        assert done.returncode == 0, done.stderr
        with running_gunicorn(server_env(database), Path(workdir)) as server:
            yield server


@pytest.fixture(scope="module")
def live_http(live: GunicornServer) -> Iterator[httpx.Client]:
    # No keep-alive: a hostile body may leave a connection unusable, and that must not
    # decide the next example.
    with httpx.Client(
        headers={"Authorization": f"Bearer {READ_TOKEN}", "Content-Type": "application/json"},
        timeout=30,
        limits=httpx.Limits(max_keepalive_connections=0),
    ) as client:
        yield client


@given(body=bodies())
@example(body=SURROGATE_ID)
@example(body=b"[" * 100_000)
@OVER_HTTP
def test_no_hostile_body_gets_a_server_error_through_gunicorn(
    live: GunicornServer, live_http: httpx.Client, body: bytes
) -> None:
    response = live_http.post(live.mcp_url, content=body)
    check_reply(response.status_code, response.content, response.headers.get("Content-Type"))


def test_oversized_bodies_are_413_through_gunicorn(live: GunicornServer, live_http: httpx.Client) -> None:
    limit = 1024 * 1024  # docs/reference.md#limits
    for body in (b"{" + b" " * limit, b"\xff" * (limit + 1)):
        response = live_http.post(live.mcp_url, content=body)
        assert response.status_code == 413, response.text[:200]

    # Chunked, with no Content-Length: refused once the limit is crossed.
    def chunks() -> Iterator[bytes]:
        for _ in range(20):
            yield b" " * (128 * 1024)

    response = live_http.post(live.mcp_url, content=chunks())
    assert response.status_code == 413

    # A declared length over the limit is refused before authentication or any read.
    with socket.create_connection(("127.0.0.1", live.port), timeout=30) as raw:
        raw.sendall(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {limit * 50}\r\n\r\n".encode()
        )
        head = raw.recv(4096)
    assert head.startswith(b"HTTP/1.1 413"), head[:200]


def test_a_body_of_exactly_one_mebibyte_is_served_through_gunicorn(
    live: GunicornServer, live_http: httpx.Client
) -> None:
    def call(pad: str) -> dict[str, Any]:
        params = {"name": "skills_search", "arguments": {"query": "alpha"}, "_meta": {"pad": pad}}
        return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}

    body = json.dumps(call(" " * (1024 * 1024 - len(json.dumps(call("")))))).encode()
    assert len(body) == 1024 * 1024
    response = live_http.post(live.mcp_url, content=body)
    assert response.status_code == 200, response.text[:200]
    assert [hit["id"] for hit in response.json()["result"]["structuredContent"]["results"]] == ["alpha"]
