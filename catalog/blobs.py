"""read_blob(sha256) -> bytes: a stored file's bytes by content hash.

One raw query, then kept in a per-process LRU bounded in bytes (BLOB_CACHE_BYTES);
content-addressed, so an entry never goes stale. BlobNotFound if no such blob is stored.
"""

import threading
from collections import OrderedDict

from django.db import connection

from catalog.models import Blob

# Bounded by the bytes held (hot SKILL.md and supporting files are a few KB each); a blob
# larger than a quarter of the bound is served but not kept. 2 MiB, not 8 (nor 32): the kept
# answers of skills_get_file and resources/read (mcpapi.answer_cache) already hold the hot
# files' text, and at 10,000 skills 8 MiB grew a worker with every cache full 6-8 MB more
# (docs/reference.md#limits; docs/benchmarks.md, "Every cache full, session 6": a read that
# misses costs ~132,000 instructions more, one indexed SELECT).
BLOB_CACHE_BYTES = 2 * 1024 * 1024
_blob_cache: OrderedDict[str, bytes] = OrderedDict()
_blob_cache_bytes = 0
_blob_lock = threading.Lock()
# A raw query, like catalog.revisions' for the active snapshot: the ORM's query building
# was most of read_blob's cost.
_BLOB_SQL = f"SELECT data FROM {Blob._meta.db_table} WHERE sha256 = %s"  # noqa: S608 - a constant table name


class BlobNotFound(LookupError):
    """No blob with that SHA-256 is stored."""


def read_blob(sha256: str) -> bytes:
    global _blob_cache_bytes
    with _blob_lock:
        data = _blob_cache.get(sha256)
        if data is not None:
            _blob_cache.move_to_end(sha256)
            return data
    with connection.cursor() as cursor:
        cursor.execute(_BLOB_SQL, [sha256])
        row = cursor.fetchone()
    if row is None or row[0] is None:
        raise BlobNotFound(sha256)
    data = bytes(row[0])  # PostgreSQL hands back a memoryview
    if len(data) <= BLOB_CACHE_BYTES // 4:
        with _blob_lock:
            if sha256 not in _blob_cache:
                _blob_cache[sha256] = data
                _blob_cache_bytes += len(data)
                while _blob_cache_bytes > BLOB_CACHE_BYTES:
                    _, dropped = _blob_cache.popitem(last=False)
                    _blob_cache_bytes -= len(dropped)
    return data


def clear_blob_cache() -> None:
    """Forget every cached blob (tests; serving never needs it)."""
    global _blob_cache_bytes
    with _blob_lock:
        _blob_cache.clear()
        _blob_cache_bytes = 0
