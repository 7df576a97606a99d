"""The OAuth routes' two wrappers (oauth/urls.py): a 404 while OAuth is off, and a view
imported on its first request.

django-oauth-toolkit's views load its token validator, and with it `requests` and urllib3:
5.7 MB of RSS in every worker (docs/benchmarks.md, "Every cache full, session 5") that serves
/mcp and no OAuth route, and in every worker while OAuth is off, when each of these routes is
a 404 without calling its view.
"""

from collections.abc import Callable
from functools import wraps
from importlib import import_module
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponseBase
from django.views import View as DjangoView

View = Callable[..., HttpResponseBase]


def require_oauth(view: View) -> View:
    """404 (Django's own page, not JSON) while OAuth is off: the route does not exist."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not settings.OAUTH_ENABLED:
            raise Http404()
        return view(request, *args, **kwargs)

    return wrapped


def on_first_request(module: str, name: str, **attributes: bool) -> View:
    """The view `name` of `module` (a class-based view's as_view()), imported when a request
    first reaches it. `attributes` are those Django reads off a view before calling it, which
    as_view() would have copied from the class (csrf_exempt, login_required): given here, since
    the class is not loaded yet (tests/oauth/test_gate.py compares them with the class's)."""
    found: list[View] = []

    def view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not found:
            target = getattr(import_module(module), name)
            found.append(
                target.as_view() if isinstance(target, type) and issubclass(target, DjangoView) else target
            )
        return found[0](request, *args, **kwargs)

    view.__name__ = view.__qualname__ = name
    view.__module__ = module
    view.__dict__.update(attributes)
    return view
