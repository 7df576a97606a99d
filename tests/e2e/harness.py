"""Run the registry for real: a database of its own, `manage.py` subprocesses, gunicorn.

Reusable by any end-to-end module:

    with TempDatabase(workdir) as database:            # SQLite file, or PostgreSQL
        database.manage("migrate", "--noinput")         # when TEST_DATABASE_URL names one
        database.manage("publish", sha, "--repo", repo)
        with GunicornServer(database.env(**tokens)) as server:
            httpx.post(server.mcp_url, ...)

Several servers may share one database (multi-instance tests): start more than one
GunicornServer with the same environment.
"""

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, Self
from urllib.parse import urlsplit, urlunsplit

import httpx

from tests.skillrepo import PROJECT_DIR

MANAGE = str(PROJECT_DIR / "manage.py")
GUNICORN = str(Path(sys.executable).parent / "gunicorn")
SECRET_KEY = "e2e-secret-key-not-for-production"
# Variables of the test run that must not leak into the servers it starts.
_DROPPED = (
    "TEST_DATABASE_URL",
    "DJANGO_SETTINGS_MODULE",
    "DATABASE_URL",
    "GUNICORN_BIND",
    "GUNICORN_WORKERS",
)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def postgres_url() -> str | None:
    """TEST_DATABASE_URL when it names a PostgreSQL server, else None (use SQLite)."""
    url = os.environ.get("TEST_DATABASE_URL", "")
    return url if url.startswith(("postgres://", "postgresql://")) else None


def _with_database(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


class TempDatabase:
    """A database for subprocesses only: a temporary SQLite file, or a fresh PostgreSQL
    database (created on enter, dropped with its connections on exit)."""

    def __init__(self, workdir: Path, *, postgres: str | None = None) -> None:
        """`postgres`: a PostgreSQL server URL to create the database on, whatever
        TEST_DATABASE_URL says (multi-instance tests need one); default: TEST_DATABASE_URL's."""
        self.workdir = workdir
        self.postgres = postgres or postgres_url()
        # Every `manage()` run: (args, stdout, stderr), for tests that inspect all output.
        self.runs: list[tuple[tuple[str, ...], str, str]] = []
        self.name = f"skills_e2e_{uuid.uuid4().hex[:12]}"
        if self.postgres:
            self.url = _with_database(self.postgres, self.name)
        else:
            self.url = f"sqlite:///{workdir / 'registry.sqlite3'}"

    def __enter__(self) -> Self:
        self.workdir.mkdir(parents=True, exist_ok=True)
        if self.postgres:
            self._admin(f'CREATE DATABASE "{self.name}"')
        return self

    def __exit__(self, *exc: object) -> None:
        if self.postgres:
            self._admin(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')

    def _admin(self, statement: str) -> None:
        import psycopg

        assert self.postgres is not None
        with psycopg.connect(_with_database(self.postgres, "postgres"), autocommit=True) as admin:
            admin.execute(statement.encode())

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a production process using this database."""
        env = {key: value for key, value in os.environ.items() if key not in _DROPPED}
        env.update(
            DJANGO_SETTINGS_MODULE="skillsite.settings",
            DJANGO_SECRET_KEY=SECRET_KEY,
            DJANGO_DEBUG="0",
            DATABASE_URL=self.url,
            PYTHONUNBUFFERED="1",
        )
        env.update(extra)
        return env

    def manage(self, *args: str, env: Mapping[str, str] | None = None, timeout: float = 120) -> str:
        """Run `manage.py <args>`; its stdout, or AssertionError with its output."""
        done = subprocess.run(
            [sys.executable, MANAGE, *args],
            env=dict(env) if env is not None else self.env(),
            cwd=self.workdir,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        self.runs.append((args, done.stdout, done.stderr))
        assert done.returncode == 0, f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
        return done.stdout


class GunicornServer:
    """One gunicorn (gunicorn.conf.py, `workers` sync workers) on a free loopback port,
    ready once /healthz answers; terminated on exit."""

    def __init__(self, env: Mapping[str, str], *, workers: int = 2, log_path: Path | None = None) -> None:
        self.env = dict(env)
        self.workers = workers
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.mcp_url = f"{self.url}/mcp"
        self.log_path = log_path or Path(self.env.get("TMPDIR", "/tmp")) / f"gunicorn-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None
        self._log: BinaryIO | None = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self, timeout: float = 30) -> None:
        self._log = open(self.log_path, "ab")  # closed in stop()
        self.process = subprocess.Popen(
            [
                GUNICORN,
                "-c",
                "gunicorn.conf.py",
                "--bind",
                f"127.0.0.1:{self.port}",
                "--workers",
                str(self.workers),
                # Servers started side by side (parallel tests, several instances) would
                # otherwise all claim the one default control socket path.
                "--no-control-socket",
                "skillsite.wsgi",
            ],
            cwd=PROJECT_DIR,
            env=self.env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self.stop()
                raise RuntimeError(f"gunicorn exited early:\n{self.log_tail()}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code in (200, 503):
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"gunicorn did not answer /healthz within {timeout}s:\n{self.log_tail()}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self.process = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"
