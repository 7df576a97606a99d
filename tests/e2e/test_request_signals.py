"""Django's request_started / request_finished work in the serving process
(skillsite/request_signals.py): through gunicorn on PostgreSQL, a connection is closed at a
request's end under CONN_MAX_AGE=0, kept under CONN_MAX_AGE>0, and replaced after it broke;
in-process (django.test.Client) Django's own receivers stay."""

import time
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.e2e.test_two_instances import postgres_server
from tests.support.databases import TempDatabase, database_url
from tests.support.e2e import server_env
from tests.support.gunicorn import GunicornServer, running_gunicorn
from tests.support.repos import SkillRepo
from tests.support.serving_process import serving_process_json

REQUESTS = 12


def sessions(url: str) -> int:
    """Sessions PostgreSQL has established to the database of `url` (pg_stat_database)."""
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(database_url(url, "postgres"), autocommit=True) as admin:
        # The statistics collector is read as of the transaction's start: clear its snapshot.
        admin.execute("SELECT pg_stat_clear_snapshot()")
        row = admin.execute("SELECT sessions FROM pg_stat_database WHERE datname = %s", (name,)).fetchone()
    assert row is not None
    return int(row[0])


def backends(url: str) -> list[int]:
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(database_url(url, "postgres"), autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", (name,)
        ).fetchall()
    return [int(row[0]) for row in rows]


def healthz(server: GunicornServer) -> int:
    # No keep-alive: each request may go to either worker, as a new client's would.
    return httpx.get(f"{server.url}/healthz", timeout=30, headers={"Connection": "close"}).status_code


def settled_sessions(url: str) -> int:
    # pg_stat_database counts a session when the backend reports it, a moment after.
    time.sleep(0.7)
    return sessions(url)


def served(tmp_path: Path, max_age: str) -> tuple[TempDatabase, dict[str, str]]:
    database = TempDatabase(tmp_path / "db", postgres=postgres_server())
    return database, server_env(database, DATABASE_CONN_MAX_AGE=max_age)


def publish(database: TempDatabase, tmp_path: Path, env: dict[str, str]) -> None:
    database.manage_ok("migrate", "--noinput", "-v", "0", env=env)
    repo = SkillRepo(tmp_path / "repo")
    repo.add_skill("alpha", body="Alpha steps.\n")
    database.manage_ok("publish", repo.commit("skills"), "--repo", str(repo.root), env=env)


def test_conn_max_age_0_closes_the_connection_at_every_request_end(tmp_path: Path) -> None:
    database, env = served(tmp_path, "0")
    with database:
        publish(database, tmp_path, env)
        with running_gunicorn(env, tmp_path) as server:
            assert healthz(server) == 200
            before = settled_sessions(database.url)
            assert all(healthz(server) == 200 for _ in range(REQUESTS))
            # Each /healthz reads the active snapshot on a connection of its own.
            assert settled_sessions(database.url) - before == REQUESTS
            assert backends(database.url) == []


def test_conn_max_age_keeps_the_connection_and_replaces_a_broken_one(tmp_path: Path) -> None:
    database, env = served(tmp_path, "600")
    with database:
        publish(database, tmp_path, env)
        with running_gunicorn(env, tmp_path, workers=1) as server:
            assert healthz(server) == 200
            before = settled_sessions(database.url)
            assert all(healthz(server) == 200 for _ in range(REQUESTS))
            # One worker of 2 threads: at most one connection a thread, kept.
            assert settled_sessions(database.url) - before <= 1
            kept = backends(database.url)
            assert 1 <= len(kept) <= 2

            with psycopg.connect(database_url(database.url, "postgres"), autocommit=True) as admin:
                for pid in kept:
                    admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            # A request on a killed connection fails at most once per thread; the receiver
            # then closes it (errors_occurred, not usable), and the next gets a new one.
            statuses = [healthz(server) for _ in range(REQUESTS)]
            assert statuses[-4:] == [200] * 4, statuses
            fresh = backends(database.url)
            assert fresh and not set(fresh) & set(kept)


INSTALLED = """
import json
import skillsite.wsgi
from django.core import signals
names = lambda signal: [r.__qualname__ for r in signal._live_receivers(None)[0]]
print(json.dumps([names(signals.request_started), names(signals.request_finished)]))
"""


# Redis db 6 is only named, never reached: the backend connects on first use.
@pytest.mark.parametrize("cache_url", ["", "redis://127.0.0.1:6379/6"])
def test_the_serving_process_runs_the_registry_receivers_only(cache_url: str) -> None:
    started, finished = serving_process_json(INSTALLED, cache_url)
    assert started == ["install.<locals>.started"]
    # close_caches is gone: the local-memory and Redis caches' close() is BaseCache's no-op.
    assert finished == ["reset_urlconf", "install.<locals>.finished"]


def test_in_process_django_keeps_its_own_receivers() -> None:
    from django.core import signals
    from django.core.cache import close_caches
    from django.core.handlers.base import reset_urlconf
    from django.db import close_old_connections, reset_queries

    assert signals.request_started._live_receivers(None)[0] == [reset_queries, close_old_connections]
    assert set(signals.request_finished._live_receivers(None)[0]) == {
        close_old_connections,
        close_caches,
        reset_urlconf,
    }


@pytest.mark.django_db(transaction=False)
def test_the_test_client_keeps_its_transaction(client: object) -> None:
    from django.db import connection

    assert connection.in_atomic_block
    response = client.get("/healthz")  # type: ignore[attr-defined]
    assert response.status_code in (200, 503)
    # Django's close_old_connections was disconnected around the request: still in the test's
    # transaction, on the same connection.
    assert connection.in_atomic_block
    assert connection.connection is not None
