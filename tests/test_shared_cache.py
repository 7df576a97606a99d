"""skillsite.shared_cache: the errors of a cache that is down, named without importing redis
where the cache is local memory (a worker's RSS, docs/benchmarks.md "Every cache full,
session 5"), and redis-py's own once the Redis backend has loaded it."""

import os
import subprocess
import sys

import pytest

from skillsite import shared_cache
from tests.support.project import PROJECT_DIR

LOCAL_MEMORY_WORKER = """
import sys
import skillsite.wsgi, mcpapi.protocol, mcpapi.throttling, accounts.github
print(sorted(name for name in sys.modules if name == "redis" or name.startswith("redis.")))
"""


def test_a_worker_with_a_local_memory_cache_never_imports_redis() -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("DJANGO_", "CACHE_"))}
    env.update(DJANGO_SETTINGS_MODULE="skillsite.settings", DJANGO_SECRET_KEY="test-shared-cache-key")
    env.update(DATABASE_URL="sqlite:///:memory:", CACHE_URL="locmem://")
    done = subprocess.run(
        [sys.executable, "-c", LOCAL_MEMORY_WORKER],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


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
