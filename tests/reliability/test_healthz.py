"""/healthz answers JSON whatever happens (issue 15: "POST /healthz answers a CSRF HTML page";
"the database gone: /healthz is Django's HTML error page"; docs/reference.md#http-surface).

GET and HEAD answer; any other method is a JSON 405 with `Allow: GET, HEAD`, never the CSRF
failure page. With the database gone, a real gunicorn answers a JSON 503 "unavailable" with
Retry-After and one access-log line, never an HTML 500, and serves again once the database
is back: the SQLite file's directory is moved away under a running server, then back.
"""

import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from django.test import Client

from tests.support.databases import SubprocessDatabase
from tests.support.e2e import server_env
from tests.support.gunicorn import GunicornServer
from tests.support.processes import free_port
from tests.support.repos import SkillRepo

pytestmark = pytest.mark.reliability

OTHER_METHODS = ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def assert_json_405(status: int, headers: Mapping[str, str], body: bytes) -> None:
    assert status == 405, body[:200]
    assert headers.get("Content-Type") == "application/json", body[:200]
    assert headers.get("Allow") == "GET, HEAD"
    assert b"<" not in body  # no HTML of any kind


# --- in process (Django's CSRF check on, as in production) -------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("method", OTHER_METHODS)
def test_any_method_but_get_and_head_is_a_json_405_never_the_csrf_page(method: str) -> None:
    response = Client(enforce_csrf_checks=True).generic(method, "/healthz", b"{}", "application/json")
    assert_json_405(response.status_code, response.headers, response.content)


@pytest.mark.django_db
def test_get_and_head_answer_before_the_first_publish() -> None:
    for response in (Client().get("/healthz"), Client().head("/healthz")):
        assert response.status_code == 503
        assert response["Content-Type"] == "application/json"
    assert Client().get("/healthz").json() == {"status": "empty", "registry_sha": None, "published_at": None}


# --- through gunicorn, the database going away and coming back ---------------------------


@dataclass
class Live:
    server: GunicornServer
    database_dir: Path
    sha: str

    def get(self, method: str = "GET") -> tuple[httpx.Response, str]:
        request_id = uuid.uuid4().hex
        response = httpx.request(
            method, f"{self.server.url}/healthz", headers={"X-Request-ID": request_id}, timeout=10
        )
        return response, request_id

    def access_lines(self, request_id: str) -> list[str]:
        log = self.server.log_path.read_text(errors="replace")
        return [line for line in log.splitlines() if "mcpapi.access" in line and request_id in line]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    workdir = tmp_path_factory.mktemp("healthz")
    database_dir = workdir / "data"
    database_dir.mkdir()
    # SQLite whatever TEST_DATABASE_URL says: its file is what goes away. A new connection per
    # request (DATABASE_CONN_MAX_AGE=0), so each request finds the database gone or back.
    database = SubprocessDatabase(f"sqlite:///{database_dir / 'registry.sqlite3'}", workdir)
    env = server_env(database, DATABASE_CONN_MAX_AGE="0")
    database.manage_ok("migrate", "--noinput", "-v", "0", env=env)
    repo = SkillRepo(workdir / "repo")
    repo.add_skill("alpha", body="Alpha steps.\n")
    sha = repo.commit("skills")
    database.manage_ok("publish", sha, "--repo", str(repo.root), env=env)
    with GunicornServer(env, workers=1, log_path=workdir / "gunicorn.log") as server:
        yield Live(server, database_dir, sha)


def test_through_gunicorn_get_and_head_answer_and_post_is_a_json_405(live: Live) -> None:
    response, _ = live.get()
    assert response.status_code == 200
    assert response.json()["status"] == "ok" and response.json()["registry_sha"] == live.sha
    response, _ = live.get("HEAD")
    assert (response.status_code, response.content) == (200, b"")
    for method in OTHER_METHODS:
        response, request_id = live.get(method)
        assert_json_405(response.status_code, response.headers, response.content)
        assert len(live.access_lines(request_id)) == 1


def test_with_the_database_gone_it_is_a_json_503_with_an_access_line_and_serves_again_after(
    live: Live,
) -> None:
    away = live.database_dir.with_name("data-away")
    live.database_dir.rename(away)
    try:
        for method in ("GET", "HEAD"):
            response, request_id = live.get(method)
            assert response.status_code == 503, response.text[:300]
            assert response.headers["Content-Type"] == "application/json"
            assert response.headers["Retry-After"] == "5"
            assert len(live.access_lines(request_id)) == 1
        assert response.status_code == 503
        response, _ = live.get()
        assert response.json() == {"status": "unavailable", "registry_sha": None, "published_at": None}
    finally:
        away.rename(live.database_dir)
    response, request_id = live.get()
    assert response.status_code == 200
    assert response.json()["registry_sha"] == live.sha
    assert live.access_lines(request_id) == []  # a healthy answer is not logged


def test_with_postgresql_not_there_from_the_start_it_is_a_json_503(tmp_path: Path) -> None:
    """The other way a database is gone: DATABASE_URL names a PostgreSQL server that does not
    answer (a closed port on 127.0.0.1); gunicorn starts, and /healthz says so in JSON."""
    gone = SubprocessDatabase(f"postgresql://postgres@127.0.0.1:{free_port()}/gone", tmp_path)
    with GunicornServer(server_env(gone), workers=1, log_path=tmp_path / "gunicorn.log") as server:
        response = httpx.get(f"{server.url}/healthz", timeout=10)
    assert response.status_code == 503, response.text[:300]
    assert response.headers["Content-Type"] == "application/json"
    assert response.json()["status"] == "unavailable"
