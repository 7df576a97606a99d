"""The publish lock, per database vendor: publishes and prunes run one at a time."""

from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import OperationalError, connection, transaction

from catalog.errors import PublishError

# Any constant shared by every process of this project; "skills" in ASCII.
_PG_LOCK_KEY = 0x736B696C6C73


@contextmanager
def publish_lock() -> Iterator[None]:
    """One transaction holding the publish lock.

    PostgreSQL: a transaction-scoped advisory lock. SQLite: the IMMEDIATE transaction
    (settings) takes the database write lock at BEGIN. Either way a second publisher
    waits up to PUBLISH_LOCK_TIMEOUT_SECONDS, then is refused with PublishError.
    """
    timeout = settings.PUBLISH_LOCK_TIMEOUT_SECONDS
    locked = False
    with _sqlite_busy_timeout(timeout):
        try:
            with transaction.atomic():
                if connection.vendor == "postgresql":
                    _pg_advisory_lock(timeout)
                locked = True
                yield
        except OperationalError as exc:
            if locked or not _is_lock_timeout(exc):
                raise
            raise PublishError(
                f"another publish held the publish lock for more than {timeout:g}s "
                "(PUBLISH_LOCK_TIMEOUT_SECONDS); nothing was changed"
            ) from None


@contextmanager
def _sqlite_busy_timeout(seconds: float) -> Iterator[None]:
    """On SQLite, wait up to `seconds` for the write lock on this connection only, so
    serving keeps its own (short) busy timeout."""
    if connection.vendor != "sqlite":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA busy_timeout")
        previous = int(cursor.fetchone()[0])
        cursor.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA busy_timeout = {previous}")


def _pg_advisory_lock(seconds: float) -> None:
    with connection.cursor() as cursor:
        # lock_timeout 0 would mean "wait forever"; the smallest real wait is 1 ms.
        cursor.execute("SELECT set_config('lock_timeout', %s, true)", [f"{max(1, int(seconds * 1000))}ms"])
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_PG_LOCK_KEY])
        cursor.execute("SET LOCAL lock_timeout TO DEFAULT")


def _is_lock_timeout(exc: OperationalError) -> bool:
    if connection.vendor == "sqlite":
        return "locked" in str(exc)
    return getattr(exc.__cause__, "sqlstate", None) == "55P03"  # lock_not_available
