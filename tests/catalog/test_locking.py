"""catalog.locking: the publish lock is one transaction and leaves the connection as it was.

(Waiting for another holder and giving up after PUBLISH_LOCK_TIMEOUT_SECONDS needs a second
process: tests/catalog/test_snapshot_commands.py.)"""

import pytest
from django.db import connection

from catalog.locking import publish_lock
from catalog.models import Snapshot

pytestmark = pytest.mark.django_db


def lock_wait_setting() -> str:
    """How long this connection waits for a lock: SQLite's busy timeout, PostgreSQL's lock_timeout."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("PRAGMA busy_timeout")
        else:
            cursor.execute("SHOW lock_timeout")
        return str(cursor.fetchone()[0])


def test_a_failure_under_the_lock_rolls_everything_back() -> None:
    with pytest.raises(RuntimeError, match="disk full"), publish_lock():
        Snapshot.objects.create(sha="a" * 40, skill_count=0, file_count=0, total_bytes=0, config={})
        raise RuntimeError("disk full")
    assert not Snapshot.objects.exists()


def test_the_lock_holds_a_transaction() -> None:
    with publish_lock():
        assert connection.in_atomic_block


def test_the_connection_waits_as_before_once_the_lock_is_released(settings) -> None:
    settings.PUBLISH_LOCK_TIMEOUT_SECONDS = 7
    before = lock_wait_setting()
    with publish_lock():
        if connection.vendor == "sqlite":
            assert lock_wait_setting() == "7000"  # the publisher's own wait, this connection only
    assert lock_wait_setting() == before
