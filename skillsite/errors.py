"""Every error page the service answers outside /mcp's own refusals (docs/reference.md#http-surface):
Django's handler400/403/404/500 and its CSRF failure view, registered in skillsite/urls.py and
settings.CSRF_FAILURE_VIEW, and the 405 of Django's method decorators (require_GET...),
rewritten by JsonErrorsMiddleware.

The body is /mcp's refusal envelope (mcpapi.refusals: `{"jsonrpc": "2.0", "id": null,
"error": {"code", "message"}}`), so a client reads any error the one way; nothing of the
exception or the request is echoed. The OAuth pages a person's browser shows (the consent
page and the GitHub sign-in, while OAuth is on) answer a plain page in their own style
instead. With DJANGO_DEBUG on, Django's debug pages still win: they are for a developer.
"""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import render

from mcpapi.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST
from mcpapi.refusals import Refusal

# The paths a browser shows to a person (oauth/urls.py); every other path is read by programs.
_BROWSER_PAGES = ("/oauth/authorize/", "/oauth/github/")


def _answer(
    request: HttpRequest, status: int, title: str, message: str, code: int = INVALID_REQUEST
) -> HttpResponse:
    if settings.OAUTH_ENABLED and request.path.startswith(_BROWSER_PAGES):
        return render(request, "oauth/message.html", {"title": title, "message": message}, status=status)
    return Refusal(status, code, f"{title}: {message}").outcome().response()


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    # A Host off DJANGO_ALLOWED_HOSTS lands here too (DisallowedHost).
    return _answer(request, 400, "Bad request", "the request cannot be served.")


def forbidden(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _answer(request, 403, "Forbidden", "this request is not allowed.")


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _answer(request, 404, "Not found", "no such path.")


def server_error(request: HttpRequest) -> HttpResponse:
    # Django has logged the traceback (django.request, ERROR); none of it reaches the answer.
    return _answer(request, 500, "Internal error", "the request failed; try again later.", INTERNAL_ERROR)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A POST (or other unsafe method) without a valid CSRF token, on any path but /mcp (which
    is exempt: it takes no cookie). `reason` is Django's, and stays in the server."""
    return _answer(
        request, 403, "Forbidden", "a form sent without a valid CSRF token; reload the page and try again."
    )


class JsonErrorsMiddleware:
    """Django's method decorators answer 405 with an empty text/html body: the same answer in
    the one error shape, its Allow header kept. Nothing else is touched."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return rewrite_not_allowed(request, self.get_response(request))


def rewrite_not_allowed(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """JsonErrorsMiddleware's work on an answer (skillsite.fastlane applies it in its place)."""
    if not isinstance(response, HttpResponseNotAllowed):
        return response
    allowed = response["Allow"]
    answer = _answer(request, 405, "Method not allowed", f"use {allowed}.")
    answer["Allow"] = allowed
    return answer
