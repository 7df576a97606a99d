"""GET /healthz: whether this instance serves a snapshot, and which (docs/reference.md#http-surface).

For load balancers, monitoring and the deploy's smoke test; no authentication, nothing but
the active snapshot's SHA and time. Every answer is JSON: 200 "ok", 503 "empty" before the
first publish, 503 "unavailable" when the database cannot be read (an outage is the one
thing a health check is for: never Django's HTML 500), 405 for a method other than GET and
HEAD (never the CSRF failure page a POST would otherwise get). Every answer but a 200
writes an access-log line: a load balancer's polling of a healthy instance is not news.
"""

import logging
import time

from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from accounts.errors import UpstreamUnavailable
from catalog.index import SnapshotRef, active_snapshot
from mcpapi import access_log

logger = logging.getLogger(__name__)

ALLOWED = ("GET", "HEAD")


# csrf_exempt: nothing here changes state, so a POST is refused as a method (405), not as a forgery.
@csrf_exempt
def healthz(request: HttpRequest) -> HttpResponse:
    started = time.perf_counter()
    response = _answer(request)
    if request.method == "HEAD":
        # The length a GET would have, and no body: gunicorn would drop it with a warning.
        response["Content-Length"] = str(len(response.content))
        response.content = b""
    if response.status_code != 200:
        duration_ms = round((time.perf_counter() - started) * 1000, 2)
        access_log.write_page(access_log.request_id(request), request.path, response.status_code, duration_ms)
    return response


def _answer(request: HttpRequest) -> HttpResponse:
    if request.method not in ("GET", "HEAD"):
        # Answered in the one error shape by skillsite.errors.JsonErrorsMiddleware.
        return HttpResponseNotAllowed(ALLOWED)
    try:
        ref = active_snapshot()
    except DatabaseError as error:
        # The error's class only: its text may hold the database's address or user.
        logger.warning("/healthz: the database cannot be read (%s); answering 503", type(error).__name__)
        response = JsonResponse(_state("unavailable"), status=503)
        response["Retry-After"] = str(UpstreamUnavailable.retry_after)
        return response
    if ref is None:
        return JsonResponse(_state("empty"), status=503)
    return JsonResponse(_state("ok", ref))


def _state(status: str, ref: SnapshotRef | None = None) -> dict[str, str | None]:
    return {
        "status": status,
        "registry_sha": ref.sha if ref is not None else None,
        "published_at": ref.published_at.isoformat() if ref is not None else None,
    }
