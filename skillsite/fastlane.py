"""The /mcp lane: first in MIDDLEWARE, it takes a request to /mcp past the middleware chain
to its view and back through the process_response of every middleware after it, so that
the answer is the one the chain gives, header for header and in the same order, without
what the chain spends on a request the registry answers most (docs/benchmarks.md, "The floor
against the ceiling, session 5": each middleware's call and exception wrapper, CommonMiddleware
resolving the path a second time to decide on a slash, CSRF reading cookies for a view that
is exempt).

It takes a request only where what it skips changes nothing, and gives anything else to the
chain before doing any work of the view's:

- the middleware after it is only the registry's (MIDDLEWARE, with the sessions and
  authentication OAuth adds), and no setting makes one of them answer /mcp itself: no www.
  redirect (PREPEND_WWW), no refused user agents, no CSRF secret in the session, no view in
  a transaction (ATOMIC_REQUESTS);
- the request is to /mcp and carries no cookie (CSRF would renew a malformed one, sessions
  would read one), and came over HTTPS if SECURE_SSL_REDIRECT asks for it (else
  SecurityMiddleware redirects it);
- /mcp resolves, to a CSRF-exempt view (then CommonMiddleware's slash redirect cannot be;
  what it resolves to is kept per resolver);
- its Host is allowed (request.get_host(), what CommonMiddleware asks; a refused Host goes to
  the chain, which refuses it as before).

Then, as the chain would: the sessions' and authentication's process_request, the view (an
exception answered by Django's response_for_exception, as the chain's innermost wrapper
does), and each middleware's process_response, innermost first (JsonErrorsMiddleware's
rewrite among them, in its place).
"""

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.handlers.exception import response_for_exception
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, ResolverMatch, URLResolver, get_resolver
from django.utils.module_loading import import_string

from skillsite.errors import JsonErrorsMiddleware, rewrite_not_allowed

# The middleware the lane stands in for: those whose process_request is a no-op on /mcp under
# the settings `_lane_open` checks (CommonMiddleware's is the Host check the lane makes), and
# those whose process_request it calls.
_SKIPPED_REQUEST = frozenset(
    {
        "django.middleware.security.SecurityMiddleware",
        "skillsite.errors.JsonErrorsMiddleware",
        "django.middleware.common.CommonMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.middleware.clickjacking.XFrameOptionsMiddleware",
    }
)
_CALLED_REQUEST = frozenset(
    {
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
    }
)
PATH = "/mcp"


def _never(request: HttpRequest) -> HttpResponse:
    raise AssertionError("the lane's own middleware instances never call on")


def _lane_open(after: list[str]) -> bool:
    return (
        bool(after)
        and all(path in _SKIPPED_REQUEST | _CALLED_REQUEST for path in after)
        and not settings.PREPEND_WWW
        and not settings.DISALLOWED_USER_AGENTS
        and not settings.CSRF_USE_SESSIONS
        and not any(db.get("ATOMIC_REQUESTS") for db in settings.DATABASES.values())
    )


class McpLane:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        after = list(settings.MIDDLEWARE)
        after = after[after.index(f"{__name__}.{type(self).__name__}") + 1 :]
        self.open = _lane_open(after)
        self.redirect = settings.SECURE_SSL_REDIRECT
        # The resolver last asked and what /mcp resolved to in it, replaced together.
        self._resolved: tuple[URLResolver | None, ResolverMatch | None] = (None, None)
        # Instances of their own, made from the same settings as the chain's: the registry's
        # middleware keep nothing between requests but what their settings say.
        made = [(path, import_string(path)(_never)) for path in after] if self.open else []
        self.requests: list[Callable[[HttpRequest], Any]] = [
            middleware.process_request for path, middleware in made if path in _CALLED_REQUEST
        ]
        responders = (_respond(middleware) for _, middleware in reversed(made))
        self.responses: list[Callable[[HttpRequest, HttpResponse], HttpResponse]] = [
            respond for respond in responders if respond is not None
        ]

    def _match(self) -> ResolverMatch | None:
        """What /mcp resolves to, None if nothing: resolved once per resolver (a URLconf's
        patterns never change; a new ROOT_URLCONF is a new resolver), as resolving costs
        about as much as the view's admission and parsing together (docs/benchmarks.md)."""
        resolver = get_resolver()
        kept_resolver, kept = self._resolved
        if kept_resolver is not resolver:
            try:
                kept = resolver.resolve(PATH)
            except Resolver404:
                kept = None
            self._resolved = (resolver, kept)
        return kept

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not self.open or request.path_info != PATH or "HTTP_COOKIE" in request.META:
            return self.get_response(request)
        match = self._match()
        if match is None:
            return self.get_response(request)
        if not getattr(match.func, "csrf_exempt", False):
            return self.get_response(request)
        if self.redirect and not request.is_secure():
            return self.get_response(request)  # SecurityMiddleware's redirect to HTTPS
        try:
            request.get_host()
        except DisallowedHost:
            return self.get_response(request)
        for process_request in self.requests:
            process_request(request)
        request.resolver_match = match
        try:
            response = match.func(request, *match.args, **match.kwargs)
        except Exception as exc:  # noqa: BLE001 - what the chain's innermost wrapper does
            response = response_for_exception(request, exc)
        for process_response in self.responses:
            response = process_response(request, response)
        return response


def _respond(middleware: object) -> Callable[[HttpRequest, HttpResponse], HttpResponse] | None:
    """What `middleware` does to an answer on its way out, or None if nothing."""
    if isinstance(middleware, JsonErrorsMiddleware):
        return rewrite_not_allowed
    return getattr(middleware, "process_response", None)
