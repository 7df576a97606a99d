"""Which stored snapshot a revision names, and which one is active (docs/reference.md#tools).

active_snapshot() -> SnapshotRef | None
    The active snapshot; None before the first publish. A publish, activation or rollback
    committed by any process or connection is seen by the very next call: one raw query,
    or on SQLite in autocommit no query when the database says nothing was committed since
    this connection last asked (catalog.unchanged).
find_snapshot(revision) -> SnapshotRef | None
    A stored snapshot by full SHA or unique prefix.
names(revision, sha) -> bool
    Whether `revision` names the stored snapshot `sha`, by the same rule.
"""

import re
from datetime import UTC, datetime

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils.dateparse import parse_datetime

from catalog.entries import SnapshotRef
from catalog.models import Snapshot
from catalog.unchanged import Unchanged

# Every /mcp request that reads skills runs this first; a raw query skips the ORM's per-call
# query compilation, which cost 20 times the query itself (py-spy under gunicorn). No
# parameters either: Django's SQLite cursor rewrites a query's placeholders with a regular
# expression on every call, a fifth of this one's cost (docs/benchmarks.md, "The floor,
# session 4"). TRUE is SQLite's 1 and PostgreSQL's boolean.
_ACTIVE_SQL = f"SELECT sha, published_at FROM {Snapshot._meta.db_table} WHERE is_active = TRUE"  # noqa: S608 - a constant table name


# The last answer per connection, kept while SQLite says nothing was committed since it was
# read (docs/benchmarks.md, "The active snapshot without a query, session 5").
_last_seen: Unchanged[SnapshotRef | None] = Unchanged()


def active_snapshot() -> SnapshotRef | None:
    # The connection itself rather than django.db.connection, whose every attribute look-up
    # fails on the proxy first (an AttributeError made and caught) before it forwards.
    return _last_seen.get(connections[DEFAULT_DB_ALIAS], _read_active)


def _read_active(connection: BaseDatabaseWrapper) -> SnapshotRef | None:
    with connection.cursor() as cursor:
        cursor.execute(_ACTIVE_SQL)
        row = cursor.fetchone()
    if row is None or row[1] is None:
        return None
    return SnapshotRef(sha=row[0], published_at=_as_aware_datetime(row[1]))


def _as_aware_datetime(value: datetime | str) -> datetime:
    """SQLite hands back text, PostgreSQL a datetime; both are stored in UTC."""
    if isinstance(value, str):
        parsed = parse_datetime(value)
        if parsed is None:
            raise ValueError(f"unreadable published_at {value!r}")
        value = parsed
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


# A revision names a snapshot by its full SHA or by a prefix of at least 7 hex characters,
# in either case (git prints lower case; people paste what they see).
MIN_REVISION_PREFIX = 7
_REVISION = re.compile(rf"[0-9a-f]{{{MIN_REVISION_PREFIX},40}}")


def _revision_key(revision: str) -> str | None:
    """`revision` in the form SHAs are stored in, or None when it cannot name one."""
    if not isinstance(revision, str):
        return None
    lowered = revision.lower()
    return lowered if _REVISION.fullmatch(lowered) else None


def find_snapshot(revision: str) -> SnapshotRef | None:
    """A stored, published snapshot by full SHA or by a prefix of >= 7 hex characters that no
    other stored snapshot shares, case-insensitive; None when malformed, unknown or ambiguous."""
    wanted = _revision_key(revision)
    if wanted is None:
        return None
    published = Snapshot.objects.filter(published_at__isnull=False)
    if len(wanted) == 40:
        matches = published.filter(sha=wanted)
    else:
        matches = published.filter(sha__startswith=wanted)
    rows = list(matches.values_list("sha", "published_at")[:2])
    if len(rows) != 1:
        return None
    [(sha, published_at)] = rows
    assert published_at is not None  # only published snapshots were asked for
    return SnapshotRef(sha=sha, published_at=published_at)


def names(revision: str, sha: str) -> bool:
    """Whether `revision` names the stored snapshot `sha` (the rule of find_snapshot), asking
    the database only for a prefix that might be ambiguous."""
    wanted = _revision_key(revision)
    if wanted is None or not sha.startswith(wanted):
        return False
    if wanted == sha:
        return True
    found = find_snapshot(wanted)  # None when the prefix names several snapshots
    return found is not None and found.sha == sha
