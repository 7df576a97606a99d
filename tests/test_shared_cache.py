"""skillsite.shared_cache: the errors of a cache that is down, named without importing redis
(a worker's RSS, docs/benchmarks.md "Every cache full, session 5"; tests/test_worker_imports.py),
and redis-py's own once the Redis backend has loaded it."""

import sys

import pytest

from skillsite import shared_cache


def test_before_redis_is_loaded_only_a_socket_error_is_a_cache_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, shared_cache.REDIS_ERRORS_MODULE, raising=False)
    assert shared_cache.cache_errors() == (OSError,)


def test_once_redis_is_loaded_its_errors_are_cache_errors() -> None:
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import RedisError

    assert shared_cache.cache_errors() == (RedisError, OSError)
    # What the Redis backend raises at a closed port is caught by `except cache_errors()`.
    caught: Exception | None = None
    try:
        raise RedisConnectionError("Connection refused")
    except shared_cache.cache_errors() as error:
        caught = error
    assert isinstance(caught, RedisConnectionError)
