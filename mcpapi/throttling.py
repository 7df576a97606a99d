"""Per-caller rate limiting for /mcp (off unless MCP_RATE_LIMIT_PER_MINUTE is set).

Asked right after authentication (mcpapi.admission): a caller over its budget gets
HTTP 429 with `Retry-After` (whole seconds) and a JSON-RPC error body; nothing of the
request is read or parsed.

The budget is keyed by the caller's identity (`token:<name>`, a GitHub login...,
hashed), never by the token: two tokens of one GitHub login (PATs or OAuth) share
one budget, and no token reaches the cache. The history of each caller lives in the Django cache:
with CACHE_URL pointing at Redis every worker and host counts against one budget;
with the default local-memory cache each worker process counts on its own (a
caller then gets up to workers x the rate). Like DRF's throttles it is a sliding
window read and written without a lock, so a burst racing across workers may pass
a request or two over the limit: it bounds abuse, it is not an exact quota.
"""

import hashlib
import logging
import math
from typing import TYPE_CHECKING, cast

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

from accounts.callers import Caller, CallerKind
from skillsite.shared_cache import cache_errors, log_cache_down

if TYPE_CHECKING:
    from rest_framework.request import Request
    from rest_framework.views import APIView

logger = logging.getLogger(__name__)


class CallerRateThrottle(SimpleRateThrottle):
    """DRF's sliding-window throttle, one window per caller identity."""

    scope = "mcp_caller"
    # Set by SimpleRateThrottle.__init__ from get_rate() (None when rate limiting is off).
    num_requests: int | None
    duration: int | None

    def __init__(self, caller: Caller) -> None:
        self.caller = caller
        super().__init__()

    def get_rate(self) -> str | None:
        per_minute = settings.MCP_RATE_LIMIT_PER_MINUTE
        return f"{per_minute}/min" if per_minute > 0 else None

    def get_cache_key(self, request: "Request | None", view: "APIView | None") -> str:
        # Hashed: identities may hold characters a cache key must not (memcached, warnings).
        ident = hashlib.sha256(budget_key(self.caller).encode()).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": ident}


def budget_key(caller: Caller) -> str:
    """Whose budget a request spends: the caller's identity, except that a GitHub login
    has one budget whether it comes with a PAT or an OAuth token."""
    if caller.kind in (CallerKind.GITHUB, CallerKind.OAUTH):
        return f"login:{caller.name.lower()}"
    return f"{caller.kind}:{caller.name}"


def retry_after(caller: Caller) -> int | None:
    """None when `caller` may go on (or rate limiting is off, or its cache is down); else
    the whole seconds until it may try again."""
    if settings.MCP_RATE_LIMIT_PER_MINUTE <= 0:
        # Off (get_rate's None): the answer DRF's throttle would give, without building one
        # on every request.
        return None
    throttle = CallerRateThrottle(caller)
    # DRF hands allow_request's request and view only to get_cache_key, which reads neither
    # (the budget is the caller's): /mcp has no DRF request or view to give it.
    try:
        allowed = throttle.allow_request(cast("Request", None), cast("APIView", None))
    except cache_errors() as error:
        # Fails open, for every caller: the limit bounds abuse, and an outage of its counter
        # must not become an outage of the registry (docs/reference.md#limits).
        log_cache_down(logger, "counting a caller's requests", error)
        return None
    if allowed:
        return None
    wait = throttle.wait()
    return max(1, math.ceil(wait if wait is not None else throttle.duration or 60))
