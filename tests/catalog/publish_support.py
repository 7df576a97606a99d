"""Helpers for the publishing tests: repositories with a few skills, and a database that
`manage.py` subprocesses can share (pytest-django's test database is invisible to them:
in-memory on SQLite, inside an open transaction otherwise)."""

import os
import queue
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

from catalog.checkpoints import PAUSE_MARKER
from tests.skillrepo import PROJECT_DIR, SkillRepo

MANAGE = str(PROJECT_DIR / "manage.py")


def two_skills(repo: SkillRepo) -> str:
    """Commit alpha (with a reference file) and beta; return the commit SHA."""
    repo.add_skill("alpha", files={"references/guide.md": "# Guide\nRead me.\n"}, tags=["docs"])
    repo.add_skill("beta", body="Beta steps.\n")
    return repo.commit("two skills")


def bump(repo: SkillRepo, skill_id: str, version: str, body: str, **fields: object) -> str:
    """Commit a new version of one skill; return the commit SHA."""
    repo.add_skill(skill_id, body=body, version=version, **fields)
    return repo.commit(f"{skill_id} {version}")


def _postgres_url() -> str | None:
    url = os.environ.get("TEST_DATABASE_URL", "")
    return url if url.startswith(("postgres://", "postgresql://")) else None


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


def _admin_connection(url: str) -> psycopg.Connection:
    return psycopg.connect(_with_database(url, "postgres"), autocommit=True)


class SubprocessDatabase:
    """A migrated database of its own, named by DATABASE_URL for `manage.py` subprocesses."""

    def __init__(self, url: str, workdir: Path) -> None:
        self.url = url
        self.workdir = workdir

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("TEST_DATABASE_URL", "SKILLS_PUBLISH_PAUSE_AT", "SKILLS_PUBLISH_PAUSE_SECONDS")
        }
        env.update(
            DJANGO_SETTINGS_MODULE="skillsite.settings",
            DJANGO_SECRET_KEY="subprocess-test-key",
            DATABASE_URL=self.url,
            LOG_FORMAT="plain",
            PYTHONUNBUFFERED="1",
        )
        env.update(extra)
        return env

    def manage(self, *args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, MANAGE, *args],
            env=self.env(**env),
            cwd=self.workdir,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def start(self, *args: str, **env: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, MANAGE, *args],
            env=self.env(**env),
            cwd=self.workdir,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def snapshot_lines(self) -> list[str]:
        done = self.manage("snapshots")
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    def row_counts(self) -> dict[str, int]:
        """Rows per catalog table, read directly (no Django start-up in a subprocess)."""
        tables = ("blob", "skillversion", "skillversionfile", "snapshot", "snapshotskill")
        selects = [f"SELECT '{name}', COUNT(*) FROM catalog_{name}" for name in tables]  # noqa: S608
        query = " UNION ALL ".join(selects)
        if self.url.startswith("sqlite:///"):
            with closing(sqlite3.connect(self.url.removeprefix("sqlite:///"))) as conn:
                return dict(conn.execute(query).fetchall())
        with psycopg.connect(self.url) as conn:
            return dict(conn.execute(query).fetchall())  # type: ignore[arg-type]


class TemplateDatabase:
    """Migrated once per test session; each test gets a fresh copy of it."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.postgres = _postgres_url()
        self.name = f"skills_tmpl_{uuid.uuid4().hex[:12]}"
        if self.postgres:
            with _admin_connection(self.postgres) as admin:
                admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(self.name)))
            url = _with_database(self.postgres, self.name)
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
        with _admin_connection(self.postgres) as admin:
            admin.execute(
                sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                    sql.Identifier(name), sql.Identifier(self.name)
                )
            )
        try:
            yield SubprocessDatabase(_with_database(self.postgres, name), tmp_path)
        finally:
            with _admin_connection(self.postgres) as admin:
                admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))

    def drop(self) -> None:
        if self.postgres:
            with _admin_connection(self.postgres) as admin:
                admin.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(self.name))
                )


def wait_for_pause(process: subprocess.Popen[str], point: str, timeout: float = 90) -> None:
    """Block until `process` says it stopped at crash point `point` (its stderr keeps being
    drained by a reader thread, which owns it from then on)."""
    lines: queue.Queue[str] = queue.Queue()
    assert process.stderr is not None
    stderr = process.stderr
    threading.Thread(target=lambda: [lines.put(line) for line in stderr], daemon=True).start()
    deadline = time.monotonic() + timeout
    seen: list[str] = []
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.2)
        except queue.Empty:
            if process.poll() is not None:
                break
            continue
        seen.append(line)
        if line.strip() == f"{PAUSE_MARKER}{point}":
            return
    raise AssertionError(f"publish never paused at {point}; stderr: {''.join(seen)}")


def sigkill(process: subprocess.Popen[str]) -> None:
    """SIGKILL: no handler, no cleanup, no rollback by the process itself."""
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    if process.stdout is not None:
        process.stdout.close()
    assert process.returncode == -signal.SIGKILL
