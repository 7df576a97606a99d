"""The Django cache when it is a shared service (Redis, CACHE_URL) that can be down.

Nothing the cache holds is needed to answer correctly: GitHub answers can be asked again,
and rate-limit counts are a bound on abuse, not a right. So a cache that cannot be reached
is a miss (and a write that cannot be made is skipped), logged at WARNING once per failed
operation, and never an error page (docs/reference.md#limits).
"""

import logging
import sys

# redis-py's module of errors; it is imported by the Redis backend on its first use, never here.
REDIS_ERRORS_MODULE = "redis.exceptions"


def cache_errors() -> tuple[type[Exception], ...]:
    """What a cache backend raises when its server is gone: redis-py's errors, or a socket error.

    Called in an `except` clause, so only once an exception is on its way. redis-py's errors
    are named only once redis is loaded: before that none can have been raised, and importing
    redis for its errors alone would cost every worker ~6 MB of RSS where the cache is local
    memory (docs/benchmarks.md, "Every cache full, session 5")."""
    errors = sys.modules.get(REDIS_ERRORS_MODULE)
    return (OSError,) if errors is None else (errors.RedisError, OSError)


def log_cache_down(logger: logging.Logger, doing: str, error: Exception) -> None:
    """One WARNING line: what was being done, and the class of the error (its text may name
    the server's address and is not needed to act)."""
    logger.warning(
        "The cache could not be reached while %s (%s); carrying on without it", doing, type(error).__name__
    )
