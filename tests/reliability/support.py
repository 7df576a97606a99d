"""Helpers of the reliability tests: MCP clients (in-process and over HTTP), gunicorn on a
database that `manage.py` subprocesses share, crash points, and a database integrity check.
"""

import hashlib
import itertools
import json
import sqlite3
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psycopg
from django.test import Client

from catalog.hashing import content_hash
from tests.catalog.publish_support import MANAGE, SubprocessDatabase
from tests.e2e.harness import GunicornServer
from tests.skillrepo import SkillRepo

READ_TOKEN = "rel-read-token-0123456789"
ZDR_TOKEN = "rel-zdr-token-9876543210"
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@dataclass(frozen=True)
class Registry:
    """A published registry in the test database, and exactly what it holds."""

    repo: SkillRepo
    sha: str
    # skill id -> {path relative to the skill directory -> bytes}; SKILL.md included
    files: dict[str, dict[str, bytes]]
    zdr_ids: frozenset[str]

    def visible(self, zdr_cleared: bool) -> dict[str, dict[str, bytes]]:
        return {sid: f for sid, f in self.files.items() if zdr_cleared or sid not in self.zdr_ids}


GUIDE = "# Guide\n\nRead me first: ünïcödé ✓ 🎉\n"


# --- clients -----------------------------------------------------------------------------


class McpClient:
    """JSON-RPC over django.test.Client: fast, for many hypothesis examples."""

    def __init__(self, token: str | None = READ_TOKEN) -> None:
        # A handler that raised would be re-raised here: a 500 can never slip by unnoticed.
        self.http = Client(raise_request_exception=True)
        self.token = token
        self._ids = itertools.count(1)

    def headers(self, **extra: str) -> dict[str, str]:
        headers = {"Accept": HEADERS["Accept"]}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        headers.update(extra)
        return headers

    def post(self, body: bytes | Any, **headers: str):
        data = body if isinstance(body, bytes) else json.dumps(body)
        return self.http.post(
            "/mcp", data=data, content_type="application/json", headers=self.headers(**headers)
        )

    def rpc(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if params is not None:
            message["params"] = params
        response = self.post(message)
        assert response.status_code == 200, (response.status_code, response.content)
        return response.json()

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """The CallToolResult of one tool call (a JSON-RPC error fails the test)."""
        reply = self.rpc("tools/call", {"name": tool, "arguments": arguments})
        assert "result" in reply, reply
        return reply["result"]


class HttpMcp:
    """JSON-RPC over real HTTP (gunicorn); one keep-alive connection per instance."""

    def __init__(self, mcp_url: str, token: str = READ_TOKEN, timeout: float = 30) -> None:
        self.mcp_url = mcp_url
        self.http = httpx.Client(headers={**HEADERS, "Authorization": f"Bearer {token}"}, timeout=timeout)
        self._ids = itertools.count(1)

    def close(self) -> None:
        self.http.close()

    def post(self, content: bytes, **headers: str) -> httpx.Response:
        return self.http.post(self.mcp_url, content=content, headers=headers)

    def rpc(self, method: str, params: dict[str, Any] | None = None) -> httpx.Response:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if params is not None:
            message["params"] = params
        return self.post(json.dumps(message).encode())

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """structuredContent of a successful tool call; AssertionError on anything else."""
        response = self.rpc("tools/call", {"name": tool, "arguments": arguments})
        assert response.status_code == 200, (response.status_code, response.text[:500])
        result = response.json()["result"]
        assert result["isError"] is False, result
        return result["structuredContent"]


# --- a registry served by gunicorn over a subprocess database ------------------------------


def server_env(database: SubprocessDatabase, **extra: str) -> dict[str, str]:
    """The environment of a production-like server (and of `publish`) on `database`."""
    env = database.env(
        DJANGO_DEBUG="0",
        SKILLS_READ_TOKENS=READ_TOKEN,
        SKILLS_ZDR_TOKENS=ZDR_TOKEN,
        ALLOWED_GITHUB_LOGINS="",
        ZDR_GITHUB_LOGINS="",
        GITHUB_API_URL="http://127.0.0.1:9",  # nothing may reach a real GitHub
        CACHE_URL="",
        MCP_RATE_LIMIT_PER_MINUTE="0",
    )
    for key in list(env):
        if key.startswith(("GUNICORN_", "GITHUB_OAUTH_")) or key in ("PUBLIC_BASE_URL", "TEST_CACHE_URL"):
            del env[key]
    env.update(extra)
    return env


@contextmanager
def gunicorn(env: dict[str, str], log_dir: Path, workers: int = 2) -> Iterator[GunicornServer]:
    log = log_dir / f"gunicorn-{time.monotonic_ns()}.log"
    server = GunicornServer(env, workers=workers, log_path=log)
    server.start(timeout=60)
    try:
        yield server
    finally:
        server.stop()


def healthz_sha(server: GunicornServer) -> str | None:
    return httpx.get(f"{server.url}/healthz", timeout=30).json()["registry_sha"]


def worker_pids(server: GunicornServer) -> list[int]:
    """The gunicorn master's children (its workers)."""
    assert server.process is not None
    master = server.process.pid
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return sorted(int(pid) for pid in children)


# --- crash points --------------------------------------------------------------------------


def start_paused_publish(
    database: SubprocessDatabase, env: dict[str, str], rev: str, repo: Path, point: str, *extra: str
) -> subprocess.Popen[str]:
    """`manage.py publish` that stops at the named crash point (catalog.publishing)."""
    return subprocess.Popen(
        [sys.executable, MANAGE, "publish", rev, "--repo", str(repo), *extra],
        env={**env, "SKILLS_PUBLISH_PAUSE_AT": point, "SKILLS_PUBLISH_PAUSE_SECONDS": "120"},
        cwd=database.workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


# --- the database, read directly -----------------------------------------------------------


def query(url: str, sql: str) -> list[tuple]:
    if url.startswith("sqlite:///"):
        with closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as conn:
            return conn.execute(sql).fetchall()
    with psycopg.connect(url) as conn:
        return conn.execute(sql.encode()).fetchall()  # type: ignore[arg-type]


def snapshots(url: str) -> dict[str, bool]:
    """sha -> is_active of every stored snapshot."""
    return {sha: bool(active) for sha, active in query(url, "SELECT sha, is_active FROM catalog_snapshot")}


def active_sha(url: str) -> str | None:
    rows = [sha for sha, active in snapshots(url).items() if active]
    assert len(rows) <= 1, f"several active snapshots: {rows}"
    return rows[0] if rows else None


def integrity_problems(url: str) -> list[str]:
    """Everything wrong with the catalog tables; [] for a consistent database.

    At most one active snapshot; every snapshot's skill rows point at stored versions of
    the same id; every version's SKILL.md and files point at stored blobs of the same
    size; every blob's bytes have its SHA-256 and size; every version's content hash is
    its content's; every snapshot's counters are its rows'.
    """
    problems: list[str] = []
    active = query(url, "SELECT sha FROM catalog_snapshot WHERE is_active")
    if len(active) > 1:
        problems.append(f"{len(active)} active snapshots")

    blobs: dict[str, int] = {}
    for sha256, size, data in query(url, "SELECT sha256, size, data FROM catalog_blob"):
        data = bytes(data)
        blobs[sha256] = size
        if len(data) != size or hashlib.sha256(data).hexdigest() != sha256:
            problems.append(f"blob {sha256}: its bytes do not match its size or SHA-256")

    versions = {
        vid: (skill_id, skill_md, chash)
        for vid, skill_id, skill_md, chash in query(
            url, "SELECT id, skill_id, skill_md_id, content_hash FROM catalog_skillversion"
        )
    }
    files: dict[int, list[tuple[str, str, int]]] = defaultdict(list)
    for vid, path, size, blob in query(
        url, "SELECT skill_version_id, path, size, blob_id FROM catalog_skillversionfile"
    ):
        files[vid].append((path, blob, size))
        if vid not in versions:
            problems.append(f"file {path} of a missing skill version {vid}")
        if blobs.get(blob) != size:
            problems.append(f"file {path} of version {vid}: blob {blob} missing or of another size")
    skill_md_bytes = dict(
        query(
            url,
            "SELECT v.id, b.data FROM catalog_skillversion v JOIN catalog_blob b ON b.sha256 = v.skill_md_id",
        )
    )
    for vid, (skill_id, skill_md, chash) in versions.items():
        if skill_md not in blobs:
            problems.append(f"{skill_id} version {vid}: SKILL.md blob {skill_md} missing")
            continue
        listed = [(path, blob) for path, blob, _size in files[vid]]
        if content_hash(bytes(skill_md_bytes[vid]), listed) != chash:
            problems.append(f"{skill_id} version {vid}: content hash does not match its content")

    counts: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])  # skills, files, bytes
    for snap_id, vid, skill_id in query(
        url, "SELECT snapshot_id, skill_version_id, skill_id FROM catalog_snapshotskill"
    ):
        version = versions.get(vid)
        if version is None:
            problems.append(f"snapshot {snap_id}: {skill_id} points at a missing skill version {vid}")
            continue
        if version[0] != skill_id:
            problems.append(f"snapshot {snap_id}: {skill_id} points at a version of {version[0]}")
        counts[snap_id][0] += 1
        counts[snap_id][1] += 1 + len(files[vid])
        counts[snap_id][2] += blobs.get(version[1], 0) + sum(size for _p, _b, size in files[vid])
    snapshot_ids = set()
    for snap_id, sha, skill_count, file_count, total_bytes in query(
        url, "SELECT id, sha, skill_count, file_count, total_bytes FROM catalog_snapshot"
    ):
        snapshot_ids.add(snap_id)
        if counts[snap_id] != [skill_count, file_count, total_bytes]:
            problems.append(
                f"snapshot {sha}: rows {counts[snap_id]} != counters {[skill_count, file_count, total_bytes]}"
            )
    orphans = set(counts) - snapshot_ids
    if orphans:
        problems.append(f"skill rows of missing snapshots {sorted(orphans)}")
    return problems
