"""Databases of their own for `manage.py` and gunicorn subprocesses (pytest-django's test
database is invisible to them: in memory on SQLite, inside an open transaction otherwise).

    with TempDatabase(workdir) as database:       # a fresh SQLite file, or a fresh PostgreSQL
        database.manage_ok("migrate", "--noinput")  # database when TEST_DATABASE_URL names one
        with GunicornServer(database.env(SKILLS_READ_TOKENS=...)) as server: ...

    template = TemplateDatabase(workdir)           # migrated once per session
    with template.copy(tmp_path) as database: ...  # a cheap copy per test

    database.manage(...)     -> CompletedProcess (the test looks at the exit code and output)
    database.manage_ok(...)  -> stdout, or AssertionError with the whole output
    database.migrate_and_publish(repo_root, rev, env)
"""

import os
import shutil
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, Self
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

from tests.support.project import MANAGE

SECRET_KEY = "subprocess-test-key-not-for-production"
# Variables of the test run that must not leak into the processes it starts.
_DROPPED = (
    "TEST_DATABASE_URL",
    "TEST_CACHE_URL",
    "DJANGO_SETTINGS_MODULE",
    "DATABASE_URL",
    "PUBLIC_BASE_URL",
    "SKILLS_PUBLISH_PAUSE_AT",
    "SKILLS_PUBLISH_PAUSE_SECONDS",
)
_DROPPED_PREFIXES = ("GUNICORN_", "GITHUB_OAUTH_")


def postgres_url() -> str | None:
    """TEST_DATABASE_URL when it names a PostgreSQL server, else None (use SQLite)."""
    url = os.environ.get("TEST_DATABASE_URL", "")
    return url if url.startswith(("postgres://", "postgresql://")) else None


def database_url(server_url: str, name: str) -> str:
    """The URL of database `name` on the server of `server_url`."""
    return urlunsplit(urlsplit(server_url)._replace(path="/" + name))


def query(url: str, statement: str) -> list[tuple[Any, ...]]:
    """Rows of one SQL statement, read directly (no Django start-up)."""
    if url.startswith("sqlite:///"):
        with closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as conn:
            return conn.execute(statement).fetchall()
    with psycopg.connect(url) as conn:
        return conn.execute(statement.encode()).fetchall()


def _create(server_url: str, name: str, template: str | None = None) -> None:
    statement = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
    if template is not None:
        statement += sql.SQL(" TEMPLATE {}").format(sql.Identifier(template))
    with psycopg.connect(database_url(server_url, "postgres"), autocommit=True) as admin:
        admin.execute(statement)


def _drop(server_url: str, name: str) -> None:
    statement = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
    with psycopg.connect(database_url(server_url, "postgres"), autocommit=True) as admin:
        admin.execute(statement)


class SubprocessDatabase:
    """A migrated (or about to be) database, named by DATABASE_URL for subprocesses."""

    def __init__(self, url: str, workdir: Path) -> None:
        self.url = url
        self.workdir = workdir
        # Every manage_ok() run: (args, stdout, stderr), for tests that inspect all output.
        self.runs: list[tuple[tuple[str, ...], str, str]] = []

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a production process (DEBUG off) using this database."""
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in _DROPPED and not key.startswith(_DROPPED_PREFIXES)
        }
        env.update(
            DJANGO_SETTINGS_MODULE="skillsite.settings",
            DJANGO_SECRET_KEY=SECRET_KEY,
            DJANGO_DEBUG="0",
            DATABASE_URL=self.url,
            LOG_FORMAT="plain",
            PYTHONUNBUFFERED="1",
        )
        env.update(extra)
        return env

    def manage(self, *args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
        """`manage.py <args>` with this database's environment plus `env`."""
        return subprocess.run(
            [sys.executable, MANAGE, *args],
            env=self.env(**env),
            cwd=self.workdir,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def manage_ok(self, *args: str, env: Mapping[str, str] | None = None, timeout: float = 120) -> str:
        """`manage.py <args>` in `env` (default: this database's); its stdout, or AssertionError."""
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

    def migrate_and_publish(self, repo_root: Path, rev: str, env: Mapping[str, str]) -> None:
        """Migrated, then `rev` of the repository at `repo_root` published, in `env`: where
        every served registry of the end-to-end tests starts."""
        self.manage_ok("migrate", "--noinput", "-v", "0", env=env)
        self.manage_ok("publish", rev, "--repo", str(repo_root), env=env)

    def start(self, *args: str, **env: str) -> subprocess.Popen[str]:
        """`manage.py <args>` started in the background, its output piped."""
        return start_manage(self.env(**env), self.workdir, *args)

    def snapshot_lines(self) -> list[str]:
        done = self.manage("snapshots")
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    def row_counts(self) -> dict[str, int]:
        """Rows per catalog table."""
        tables = ("blob", "skillversion", "skillversionfile", "snapshot", "snapshotskill")
        selects = [f"SELECT '{name}', COUNT(*) FROM catalog_{name}" for name in tables]  # noqa: S608
        return dict(query(self.url, " UNION ALL ".join(selects)))


def start_manage(env: Mapping[str, str], workdir: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, MANAGE, *args],
        env=dict(env),
        cwd=workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


class TempDatabase(SubprocessDatabase):
    """An empty database: a temporary SQLite file, or a fresh PostgreSQL database (created
    on enter, dropped with its connections on exit)."""

    def __init__(self, workdir: Path, *, postgres: str | None = None) -> None:
        """`postgres`: a PostgreSQL server URL to create the database on, whatever
        TEST_DATABASE_URL says (multi-instance tests need one); default: TEST_DATABASE_URL's."""
        self.postgres = postgres or postgres_url()
        self.name = f"skills_e2e_{uuid.uuid4().hex[:12]}"
        if self.postgres:
            url = database_url(self.postgres, self.name)
        else:
            url = f"sqlite:///{workdir / 'registry.sqlite3'}"
        super().__init__(url, workdir)

    def __enter__(self) -> Self:
        self.workdir.mkdir(parents=True, exist_ok=True)
        if self.postgres:
            _create(self.postgres, self.name)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.postgres:
            _drop(self.postgres, self.name)


class TemplateDatabase:
    """Migrated once (per test session); each test gets a fresh copy of it."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.postgres = postgres_url()
        self.name = f"skills_tmpl_{uuid.uuid4().hex[:12]}"
        if self.postgres:
            _create(self.postgres, self.name)
            url = database_url(self.postgres, self.name)
        else:
            url = f"sqlite:///{workdir / 'template.sqlite3'}"
        migrated = SubprocessDatabase(url, workdir).manage("migrate", "--noinput", "-v", "0")
        assert migrated.returncode == 0, migrated.stderr

    @contextmanager
    def copy(self, tmp_path: Path) -> Iterator[SubprocessDatabase]:
        if not self.postgres:
            target = tmp_path / "db.sqlite3"
            # The migrate process has exited, so its WAL is checkpointed into the main file.
            shutil.copyfile(self.workdir / "template.sqlite3", target)
            yield SubprocessDatabase(f"sqlite:///{target}", tmp_path)
            return
        name = f"skills_sub_{uuid.uuid4().hex[:12]}"
        _create(self.postgres, name, template=self.name)
        try:
            yield SubprocessDatabase(database_url(self.postgres, name), tmp_path)
        finally:
            _drop(self.postgres, name)

    def drop(self) -> None:
        if self.postgres:
            _drop(self.postgres, self.name)


def start_paused_publish(
    database: SubprocessDatabase, env: Mapping[str, str], rev: str, repo: Path, point: str, *extra: str
) -> subprocess.Popen[str]:
    """`manage.py publish` in `env` that stops at the named crash point (catalog.checkpoints)."""
    paused = {**env, "SKILLS_PUBLISH_PAUSE_AT": point, "SKILLS_PUBLISH_PAUSE_SECONDS": "120"}
    return start_manage(paused, database.workdir, "publish", rev, "--repo", str(repo), *extra)
