"""A publish, reactivation or rollback is seen by the very next request in every worker
(docs/reference.md#commands): gunicorn with two workers, their threads each holding the last
active snapshot they read (catalog.unchanged, on SQLite), and `manage.py publish` run as a
deploy runs it, in another process. Once it has returned, every request on every keep-alive
connection answers from the new snapshot, /mcp and /healthz alike."""

from pathlib import Path

import httpx
import pytest

from tests.support.databases import SubprocessDatabase
from tests.support.e2e import server_env
from tests.support.gunicorn import running_gunicorn
from tests.support.mcp import HttpMcp
from tests.support.repos import SkillRepo

pytestmark = pytest.mark.reliability

CONNECTIONS = 8  # kept alive, spread over both workers and their threads
WARM_ROUNDS = 5


def test_every_request_after_a_publish_returns_sees_it(
    subprocess_db: SubprocessDatabase, tmp_path: Path
) -> None:
    repo = SkillRepo(tmp_path / "repo")
    repo.add_skill("alpha", body="Alpha steps.\n")
    older = repo.commit("alpha")
    repo.add_skill("beta", body="Beta steps.\n")
    newer = repo.commit("beta")
    subprocess_db.manage_ok("publish", older, "--repo", str(repo.root))
    env = server_env(subprocess_db)
    with running_gunicorn(env, tmp_path, workers=2) as server:
        clients = [HttpMcp(server.mcp_url) for _ in range(CONNECTIONS)]
        try:

            def served() -> list[str]:
                answers = [client.call("skills_list")["registry_sha"] for client in clients]
                health = httpx.get(f"{server.url}/healthz", timeout=10).json()["registry_sha"]
                return [*answers, health]

            for _ in range(WARM_ROUNDS):  # every thread that serves has read the active snapshot
                assert set(served()) == {older}
            switches = [
                (newer, (), "Published "),
                (older, ("--rollback",), "Rolled back to "),
                (newer, (), "Reactivated "),
                (older, ("--rollback",), "Rolled back to "),
            ]
            for sha, options, said in switches:
                output = subprocess_db.manage_ok("publish", sha, "--repo", str(repo.root), *options, env=env)
                assert output.startswith(said + sha), output
                for _ in range(WARM_ROUNDS):
                    assert served() == [sha] * (CONNECTIONS + 1)
        finally:
            for client in clients:
                client.close()
