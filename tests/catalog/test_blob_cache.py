"""The per-worker blob cache (catalog.blobs): its bound is the one docs/reference.md#limits states."""

from catalog import blobs
from tests.support.reference_md import limit


def test_the_blob_cache_bound_is_the_one_the_limits_table_states() -> None:
    mib = 1024 * 1024
    assert blobs.BLOB_CACHE_BYTES % (4 * mib) == 0
    assert limit("stored files kept per worker (read from the database once)") == (
        f"{blobs.BLOB_CACHE_BYTES // mib} MiB, none larger than {blobs.BLOB_CACHE_BYTES // 4 // mib} MiB "
        "(`catalog.blobs`)"
    )
