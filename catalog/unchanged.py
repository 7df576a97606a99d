"""A value read from the database, kept per connection for as long as SQLite can tell, without
a query, that nothing was committed since it was read (docs/benchmarks.md, "The active
snapshot without a query, session 5").

    Unchanged[T]().get(connection, read) -> T
        `read(connection)` on PostgreSQL (or any other backend), inside a transaction, before
        the connection is open, and on SQLite whenever a commit may have landed since the
        last read on this connection; else the value that read returned.

The signal is SQLite's own: two invocations of `PRAGMA data_version` on one connection give
different values if any other connection committed in between, in this process or another,
shared cache included, in WAL mode (the project's, skillsite/settings.py) as with a rollback
journal. Commits made on the same connection leave it unchanged; those are what
`sqlite3.Connection.total_changes` counts (every row an INSERT, UPDATE or DELETE of this
connection changed, committed, rolled back or still open). So the pair, read before `read`
ran and equal again later on the same connection, means the database holds what `read` saw
(or newer, in which case the pair differs the next time).

Only in autocommit: inside a transaction the connection reads its own snapshot, and a value
kept from there (a test's transaction, later rolled back) could outlive what it saw, so a
transaction always reads and never keeps. The raw sqlite3.Connection is held, not its id: a
reconnect (CONN_MAX_AGE, Django's close_old_connections at each request's start and end, an
error) makes another object, which a kept value never matches. A thread keeps its own value:
Django gives each thread its own connection.
"""

import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from django.db.backends.base.base import BaseDatabaseWrapper

T = TypeVar("T")

_DATA_VERSION = "PRAGMA data_version"


@dataclass(frozen=True, slots=True)
class _Read(Generic[T]):
    """What one read returned, and the state of its connection just before it ran."""

    connection: sqlite3.Connection
    data_version: int
    total_changes: int
    value: T


class Unchanged(Generic[T]):
    """One value per thread, read again whenever the database may have changed."""

    def __init__(self) -> None:
        self._local = threading.local()

    def get(self, connection: BaseDatabaseWrapper, read: Callable[[BaseDatabaseWrapper], T]) -> T:
        raw = connection.connection
        in_autocommit = connection.autocommit and not connection.in_atomic_block
        if connection.vendor != "sqlite" or raw is None or not in_autocommit:
            return read(connection)
        try:
            # A transaction opened on the raw connection, outside Django's atomic blocks.
            in_transaction = raw.in_transaction
            # On the raw connection: Django's cursor wrappers cost more than the pragma itself.
            data_version = raw.execute(_DATA_VERSION).fetchone()[0]
        except sqlite3.Error:
            return read(connection)  # which raises Django's error, with its bookkeeping
        if in_transaction:
            return read(connection)
        total_changes = raw.total_changes
        last: _Read[T] | None = getattr(self._local, "last", None)
        if (
            last is not None
            and last.connection is raw
            and last.data_version == data_version
            and last.total_changes == total_changes
        ):
            return last.value
        value = read(connection)
        self._local.last = _Read(raw, data_version, total_changes, value)
        return value
