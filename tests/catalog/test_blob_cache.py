"""The per-worker blob cache (catalog.blobs): its bound is the one docs/reference.md#limits states."""

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from catalog import blobs
from tests.support.reference_md import limit


def test_the_blob_cache_bound_is_the_one_the_limits_table_states() -> None:
    mib, kib = 1024 * 1024, 1024
    assert blobs.BLOB_CACHE_BYTES % mib == 0
    assert limit("stored files kept per worker (read from the database once)") == (
        f"{blobs.BLOB_CACHE_BYTES // mib} MiB, none larger than {blobs.BLOB_CACHE_BYTES // 4 // kib} KiB "
        "(`catalog.blobs`)"
    )


class _Database:
    """The one query read_blob makes, answered from a dict, counting the reads."""

    def __init__(self, blobs_by_sha: dict[str, bytes]) -> None:
        self.blobs = blobs_by_sha
        self.reads: list[str] = []

    @contextmanager
    def cursor(self) -> Iterator["_Database"]:
        yield self

    def execute(self, sql: str, params: list[str]) -> None:
        self.reads.append(params[0])
        self._row = (self.blobs[params[0]],) if params[0] in self.blobs else None

    def fetchone(self) -> tuple[bytes] | None:
        return self._row


@pytest.fixture
def database(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Database]:
    quarter = blobs.BLOB_CACHE_BYTES // 4
    fake = _Database({"a": b"a" * quarter, "b": b"b" * quarter, "c": b"c" * quarter, "d": b"d" * quarter})
    fake.blobs["e"] = b"e"
    fake.blobs["big"] = b"x" * (quarter + 1)
    monkeypatch.setattr(blobs, "connection", fake)
    blobs.clear_blob_cache()
    yield fake
    blobs.clear_blob_cache()


def test_a_blob_of_a_quarter_of_the_bound_is_kept_and_one_byte_more_is_not(database: _Database) -> None:
    for sha in ("a", "a", "big", "big"):
        blobs.read_blob(sha)
    assert database.reads == ["a", "big", "big"]


def test_the_byte_bound_evicts_the_least_recently_used_at_its_edge(database: _Database) -> None:
    for sha in "abcd":  # exactly the bound: all four kept
        blobs.read_blob(sha)
    for sha in "abcd":
        blobs.read_blob(sha)
    assert database.reads == list("abcd")
    blobs.read_blob("e")  # one byte past the bound: "a", the least recently used, goes
    blobs.read_blob("b")
    blobs.read_blob("a")
    assert database.reads == [*"abcd", "e", "a"]
