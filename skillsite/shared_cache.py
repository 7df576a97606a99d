"""The Django cache when it is a shared service (Redis, CACHE_URL) that can be down.

Nothing the cache holds is needed to answer correctly: GitHub answers can be asked again,
and rate-limit counts are a bound on abuse, not a right. So a cache that cannot be reached
is a miss (and a write that cannot be made is skipped), logged at WARNING once per failed
operation, and never an error page (docs/reference.md#limits).
"""

import logging

from redis.exceptions import RedisError

# What a cache backend raises when its server is gone: redis-py's errors, or a socket error.
CACHE_ERRORS: tuple[type[Exception], ...] = (RedisError, OSError)


def log_cache_down(logger: logging.Logger, doing: str, error: Exception) -> None:
    """One WARNING line: what was being done, and the class of the error (its text may name
    the server's address and is not needed to act)."""
    logger.warning(
        "The cache could not be reached while %s (%s); carrying on without it", doing, type(error).__name__
    )
