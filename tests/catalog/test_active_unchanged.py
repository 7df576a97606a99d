"""The active snapshot without a query while SQLite says nothing was committed
(catalog.unchanged, docs/reference.md#commands): a publish, activation or rollback by another
process or connection, and this connection's own writes, are seen by the very next call; a
transaction always queries; a reconnect never reuses what the old connection saw.

Most tests run on a SQLite file of their own (whatever TEST_DATABASE_URL says: the signal is
SQLite's), which `manage.py` subprocesses publish to while this process reads it through a
Django connection of its own, as a worker does."""

import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.utils import ConnectionHandler
from django.test.utils import CaptureQueriesContext

from catalog import revisions
from catalog.index import SnapshotRef, active_snapshot
from catalog.models import Snapshot
from skillsite.settings import database_from_url
from tests.support.databases import SubprocessDatabase
from tests.support.repos import SkillRepo


@dataclass(frozen=True)
class Published:
    """A SQLite registry with two stored snapshots, `newer` active."""

    path: Path
    older: str
    newer: str


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Published:
    workdir = tmp_path_factory.mktemp("unchanged")
    database = SubprocessDatabase(f"sqlite:///{workdir / 'registry.sqlite3'}", workdir)
    database.manage_ok("migrate", "--noinput", "-v", "0")
    repo = SkillRepo(workdir / "repo")
    repo.add_skill("alpha", body="Alpha steps.\n")
    older = repo.commit("alpha")
    repo.add_skill("beta", body="Beta steps.\n")
    newer = repo.commit("beta")
    for sha in (older, newer):
        database.manage_ok("publish", sha, "--repo", str(repo.root))
    return Published(workdir / "registry.sqlite3", older, newer)


@dataclass
class Reader:
    """This process's Django connection to a copy of the registry, and `manage.py` on it."""

    database: SubprocessDatabase
    connection: BaseDatabaseWrapper
    repo_root: Path

    def read(self) -> tuple[str | None, int]:
        """The active snapshot's SHA as active_snapshot() answers, and the queries it ran."""
        with CaptureQueriesContext(self.connection) as captured:
            ref = active_snapshot()
        return (ref.sha if ref is not None else None), len(captured.captured_queries)

    def switch_by_hand(self, sha: str) -> None:
        """Activate `sha` from another connection (as the sqlite3 shell would), one commit."""
        with closing(sqlite3.connect(self.database.url.removeprefix("sqlite:///"))) as other:
            with other:
                other.execute("UPDATE catalog_snapshot SET is_active = 0 WHERE is_active = 1")
                other.execute(
                    "UPDATE catalog_snapshot SET is_active = 1, published_at = ? WHERE sha = ?",
                    (datetime.now(UTC).isoformat(), sha),
                )


@pytest.fixture
def reader(
    published: Published, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, django_db_blocker
) -> Iterator[Reader]:  # type: ignore[no-untyped-def]
    path = tmp_path / "registry.sqlite3"
    shutil.copyfile(published.path, path)  # the publishes' processes ended: no WAL left
    database = SubprocessDatabase(f"sqlite:///{path}", tmp_path)
    handler = ConnectionHandler({DEFAULT_DB_ALIAS: database_from_url(database.url)})
    # active_snapshot() and transaction.atomic() read the connection of this handler.
    monkeypatch.setattr(revisions, "connections", handler)
    monkeypatch.setattr(transaction, "connections", handler)
    with django_db_blocker.unblock():
        try:
            yield Reader(database, handler[DEFAULT_DB_ALIAS], published.path.parent / "repo")
        finally:
            handler.close_all()


def test_a_warm_call_runs_no_query(reader: Reader, published: Published) -> None:
    assert reader.read() == (published.newer, 1)
    assert reader.read() == (published.newer, 0)
    assert reader.read() == (published.newer, 0)


def test_a_publish_or_rollback_by_another_process_is_seen_by_the_very_next_call(
    reader: Reader, published: Published
) -> None:
    reader.read()
    assert reader.read() == (published.newer, 0)
    reader.database.manage_ok("publish", published.older, "--repo", str(reader.repo_root), "--rollback")
    assert reader.read() == (published.older, 1)
    assert reader.read() == (published.older, 0)
    reader.database.manage_ok("publish", published.newer, "--repo", str(reader.repo_root))
    assert reader.read() == (published.newer, 1)
    assert reader.read() == (published.newer, 0)


def test_a_commit_by_another_connection_is_seen_by_the_very_next_call(
    reader: Reader, published: Published
) -> None:
    reader.read()
    for sha in (published.older, published.newer, published.older):
        reader.switch_by_hand(sha)
        assert reader.read() == (sha, 1)
        assert reader.read() == (sha, 0)


def test_the_activation_time_of_a_new_commit_is_seen_too(reader: Reader, published: Published) -> None:
    """The same SHA activated again (a rollback to the active one's time moves) is a new ref."""
    first = active_snapshot()
    reader.switch_by_hand(published.newer)
    again = active_snapshot()
    assert first is not None and again is not None
    assert (again.sha, again != first) == (published.newer, True)


def test_this_connections_own_writes_are_seen_by_the_very_next_call(
    reader: Reader, published: Published
) -> None:
    reader.read()
    raw = reader.connection.connection
    data_version = raw.execute("PRAGMA data_version").fetchone()[0]
    with reader.connection.cursor() as cursor:  # autocommit: each statement its own commit
        cursor.execute("UPDATE catalog_snapshot SET is_active = FALSE WHERE is_active = TRUE")
    assert reader.read() == (None, 1)
    with reader.connection.cursor() as cursor:
        cursor.execute("UPDATE catalog_snapshot SET is_active = TRUE WHERE sha = %s", [published.older])
    assert reader.read() == (published.older, 1)
    assert reader.read() == (published.older, 0)
    # What told them apart was the connection's own count of changes: SQLite's data_version
    # moves only for other connections' commits.
    assert raw.execute("PRAGMA data_version").fetchone()[0] == data_version


def test_inside_a_transaction_every_call_queries_and_nothing_it_saw_is_kept(
    reader: Reader, published: Published
) -> None:
    reader.read()
    with transaction.atomic():
        assert reader.read() == (published.newer, 1)
        assert reader.read() == (published.newer, 1)
        with reader.connection.cursor() as cursor:
            cursor.execute("UPDATE catalog_snapshot SET is_active = FALSE WHERE is_active = TRUE")
        assert reader.read() == (None, 1)
        transaction.set_rollback(True)
    assert reader.read() == (published.newer, 1)
    assert reader.read() == (published.newer, 0)


def test_a_transaction_opened_on_the_raw_connection_queries_too(reader: Reader, published: Published) -> None:
    reader.read()
    raw = reader.connection.connection
    raw.execute("BEGIN")
    try:
        assert reader.read() == (published.newer, 1)
        assert reader.read() == (published.newer, 1)
    finally:
        raw.execute("ROLLBACK")


def test_a_reconnect_never_reuses_what_the_old_connection_saw(reader: Reader, published: Published) -> None:
    reader.read()
    assert reader.read() == (published.newer, 0)
    old = reader.connection.connection
    marks = (old.execute("PRAGMA data_version").fetchone()[0], old.total_changes)
    reader.connection.close()  # as close_old_connections does past CONN_MAX_AGE
    reader.database.manage_ok("publish", published.older, "--repo", str(reader.repo_root), "--rollback")
    reader.connection.ensure_connection()
    new = reader.connection.connection
    # A fresh connection starts at the marks the old one had: only its identity tells them apart.
    assert (new.execute("PRAGMA data_version").fetchone()[0], new.total_changes) == marks
    assert reader.read() == (published.older, 1)
    assert reader.read() == (published.older, 0)


def test_a_broken_connection_fails_as_django_fails_it(reader: Reader) -> None:
    """The pragma's own error never escapes: the query path raises Django's, as before."""
    reader.read()
    reader.connection.connection.close()  # closed under Django's feet
    with pytest.raises(DatabaseError):
        active_snapshot()


@pytest.mark.django_db(transaction=True)
def test_on_the_test_database_a_warm_call_queries_only_on_sqlite() -> None:
    """The suite's own database (SQLite in memory, or PostgreSQL): PostgreSQL always queries."""
    Snapshot.objects.create(
        sha="a" * 40,
        published_at=datetime(2026, 1, 1, tzinfo=UTC),
        is_active=True,
        skill_count=0,
        file_count=0,
        total_bytes=0,
        config={},
    )
    expected = SnapshotRef("a" * 40, datetime(2026, 1, 1, tzinfo=UTC))
    assert active_snapshot() == expected
    with CaptureQueriesContext(connection) as captured:
        assert active_snapshot() == expected
    assert len(captured.captured_queries) == (0 if connection.vendor == "sqlite" else 1)


@pytest.mark.django_db
def test_inside_the_tests_transaction_every_call_queries() -> None:
    active_snapshot()
    with CaptureQueriesContext(connection) as captured:
        active_snapshot(), active_snapshot()
    assert len(captured.captured_queries) == 2
