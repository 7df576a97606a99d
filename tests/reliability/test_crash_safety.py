"""Crash safety through gunicorn (docs/reference.md#commands): a publish killed with SIGKILL at
any point of its store phase leaves the previous snapshot active and serving, no partial
snapshot visible and no stray rows; the next publish succeeds. A gunicorn worker killed in the
middle of a request is replaced by the master, requests queued behind it are served, and
nothing is corrupted.

(tests/catalog/test_snapshot_commands.py checks the database side of a killed publish; here
the same crashes happen while a real server answers requests, before and after the kill.)
"""

import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.catalog.publish_support import sigkill, wait_for_pause
from tests.support.databases import SubprocessDatabase, TemplateDatabase, start_paused_publish
from tests.support.e2e import server_env
from tests.support.gunicorn import GunicornServer, running_gunicorn
from tests.support.integrity import active_sha, integrity_problems, snapshots
from tests.support.mcp import HttpMcp
from tests.support.repos import SkillRepo
from tests.support.tokens import READ_TOKEN

pytestmark = pytest.mark.reliability

CRASH_POINTS = ["blobs", "skills", "activate"]
CLIENTS = 4


@dataclass
class Served:
    database: SubprocessDatabase
    env: dict[str, str]
    repo: SkillRepo
    server: GunicornServer
    workdir: Path
    commits: int = 0

    def publish(self, sha: str, *extra: str) -> None:
        done = self.database.manage("publish", sha, "--repo", str(self.repo.root), *extra)
        assert done.returncode == 0, done.stderr

    def next_commit(self) -> tuple[str, str]:
        """A commit on top of HEAD that changes a skill (new version, new blob) and adds one;
        returns (sha, the changed skill's new version)."""
        self.commits += 1
        version = f"1.{self.commits}.0"
        self.repo.add_skill(
            "steady",
            body=f"Steady steps, revision {self.commits}.\n",
            files={"references/notes.md": f"Notes of revision {self.commits}.\n"},
            version=version,
        )
        self.repo.add_skill(f"added-{self.commits}", body="A new skill.\n")
        return self.repo.commit(f"revision {self.commits}"), version


@pytest.fixture(scope="module")
def served(template_db: TemplateDatabase, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A registry with one published commit, served by gunicorn (2 workers), for the module."""
    workdir = tmp_path_factory.mktemp("crash")
    with template_db.copy(workdir) as database:
        repo = SkillRepo(workdir / "repo")
        repo.add_skill(
            "steady",
            body="Steady steps, revision 0.\n",
            files={"references/notes.md": "Notes of revision 0.\n"},
        )
        first = repo.commit("revision 0")
        env = server_env(database)
        with running_gunicorn(env, workdir, workers=2) as server:
            registry = Served(database, env, repo, server, workdir)
            registry.publish(first)
            yield registry


def assert_serving(served: Served, sha: str, version: str) -> None:
    """gunicorn answers from snapshot `sha`, whose `steady` skill is at `version`."""
    assert served.server.registry_sha() == sha
    http = HttpMcp(served.server.mcp_url)
    try:
        for _ in range(4):  # both workers, most likely
            got = http.call("skills_get", id="steady")
            assert (got["registry_sha"], got["metadata"]["version"]) == (sha, version)
            page = http.call("skills_get_file", id="steady", path="references/notes.md")
            assert page["registry_sha"] == sha
            assert page["text"] == f"Notes of revision {version.split('.')[1]}.\n"
    finally:
        http.close()


def current_version(served: Served) -> str:
    http = HttpMcp(served.server.mcp_url)
    try:
        return http.call("skills_get", id="steady")["metadata"]["version"]
    finally:
        http.close()


@pytest.mark.parametrize("point", CRASH_POINTS)
def test_a_publish_killed_at_a_crash_point_leaves_the_previous_snapshot_serving(
    point: str, served: Served
) -> None:
    db = served.database
    before = active_sha(db.url)
    assert before is not None
    before_version = current_version(served)
    rows = db.row_counts()
    new, new_version = served.next_commit()

    process = start_paused_publish(db, served.env, new, served.repo.root, point)
    try:
        wait_for_pause(process, point)
        # The publish holds its transaction (and the publish lock) open: serving goes on.
        assert_serving(served, before, before_version)
    finally:
        sigkill(process)

    assert active_sha(db.url) == before
    assert new not in snapshots(db.url), "a partial snapshot of the killed publish is visible"
    assert db.row_counts() == rows, "the killed publish left rows behind"
    assert integrity_problems(db.url) == []
    assert_serving(served, before, before_version)

    served.publish(new)
    assert_serving(served, new, new_version)
    assert integrity_problems(db.url) == []


def test_a_rollback_killed_before_activation_leaves_the_newer_snapshot_serving(served: Served) -> None:
    db = served.database
    older, older_version = served.next_commit()
    served.publish(older)
    newer, newer_version = served.next_commit()
    served.publish(newer)
    rows = db.row_counts()

    process = start_paused_publish(db, served.env, older, served.repo.root, "activate", "--rollback")
    try:
        wait_for_pause(process, "activate")
        assert_serving(served, newer, newer_version)
    finally:
        sigkill(process)

    assert active_sha(db.url) == newer
    assert db.row_counts() == rows
    assert integrity_problems(db.url) == []
    assert_serving(served, newer, newer_version)
    served.publish(older, "--rollback")
    assert_serving(served, older, older_version)


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = fd.readlink().as_posix()
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    return inodes


def _wait_until_worker_holds(pid: int, client_port: int, timeout: float = 30) -> None:
    """Until worker `pid` has accepted the connection from local port `client_port`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            remote_port = int(fields[2].split(":")[1], 16)
            if remote_port == client_port and fields[9] in _socket_inodes(pid):
                return
        time.sleep(0.05)
    raise AssertionError(f"worker {pid} never took the connection from port {client_port}")


def test_a_worker_killed_mid_request_is_replaced_and_nothing_is_lost(served: Served) -> None:
    db = served.database
    sha = active_sha(db.url)
    assert sha is not None
    version = current_version(served)
    rows = db.row_counts()
    # One worker (of the production worker class), so the request held open below is
    # certainly in the worker that gets killed, with client load running beside it.
    with running_gunicorn(served.env, served.workdir, workers=1) as server:
        [worker] = server.workers()
        stuck = socket.create_connection(("127.0.0.1", server.port), timeout=30)
        stuck.sendall(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + f"Authorization: Bearer {READ_TOKEN}\r\n".encode()
            + b"Content-Type: application/json\r\nAccept: application/json\r\n"
            + b'Content-Length: 200\r\n\r\n{"jsonrpc": "2.0", '  # the rest of the body never comes
        )
        _wait_until_worker_holds(worker, stuck.getsockname()[1])

        stop = threading.Event()
        outcomes: list[tuple[float, object]] = []  # (start time, (sha, version) or the exception)
        lock = threading.Lock()

        def client() -> None:
            http = HttpMcp(server.mcp_url, timeout=60)
            try:
                while not stop.is_set():
                    started = time.monotonic()
                    try:
                        got = http.call("skills_get", id="steady")
                        outcome: object = (got["registry_sha"], got["metadata"]["version"])
                    except Exception as exc:
                        outcome = exc
                    with lock:
                        outcomes.append((started, outcome))
            finally:
                http.close()

        clients = [threading.Thread(target=client, daemon=True) for _ in range(CLIENTS)]
        for thread in clients:
            thread.start()
        try:
            time.sleep(1.0)  # requests are running (or queued) when the worker dies
            killed_at = time.monotonic()
            os.kill(worker, signal.SIGKILL)
            # The request it was in dies with it: the connection closes without an answer.
            try:
                answer = stuck.recv(1024)
            except ConnectionResetError:
                answer = b""
            finally:
                stuck.close()
            assert answer == b""

            [replacement] = _wait_for_replacement(server, worker)
            assert server.registry_sha() == sha
            replaced_at = time.monotonic()
            time.sleep(1.5)  # more requests, all served by the replacement
        finally:
            stop.set()
            for thread in clients:
                thread.join(timeout=90)

    served_ok = [outcome for _, outcome in outcomes if outcome == (sha, version)]
    failed = [(started, outcome) for started, outcome in outcomes if outcome != (sha, version)]
    assert len(served_ok) > CLIENTS, outcomes
    # Only requests in flight when the worker died may be lost (at most one per client),
    # lost as a dropped connection: never an error status, never other content.
    assert len(failed) <= CLIENTS, failed
    for started, outcome in failed:
        assert isinstance(outcome, httpx.TransportError), outcome
        assert started < replaced_at, (started - killed_at, outcome)
    assert any(started > replaced_at for started, outcome in outcomes if outcome == (sha, version))
    assert replacement != worker
    assert active_sha(db.url) == sha
    assert db.row_counts() == rows
    assert integrity_problems(db.url) == []


def _wait_for_replacement(server: GunicornServer, dead: int, timeout: float = 60) -> list[int]:
    """The workers once the master has reaped `dead` and started another."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = server.workers()
        if pids and dead not in pids:
            return pids
        time.sleep(0.05)
    raise AssertionError(f"gunicorn did not replace worker {dead}:\n{server.log_tail()}")
