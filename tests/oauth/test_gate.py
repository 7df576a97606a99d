"""oauth.gate: the OAuth routes' views imported on their first request, and seen by Django
before that exactly as the views themselves would be (csrf_exempt, login_required)."""

import sys
from importlib import import_module

import pytest
from django.urls import URLPattern

from oauth import urls
from oauth.gate import on_first_request

# What Django's middleware reads off a view before calling it.
VIEW_ATTRIBUTES = ("csrf_exempt", "login_required")
TARGET = "tests.oauth.gate_target"


def _unwrapped(view: object) -> object:
    while hasattr(view, "__wrapped__"):
        view = view.__wrapped__
    return view


@pytest.mark.parametrize("pattern", urls.urlpatterns, ids=lambda pattern: pattern.name)
def test_a_route_shows_django_what_its_view_would(pattern: URLPattern) -> None:
    lazy = _unwrapped(pattern.callback)
    target = getattr(import_module(lazy.__module__), lazy.__name__)
    real = target.as_view() if isinstance(target, type) else target
    for attribute in VIEW_ATTRIBUTES:
        # csrf_exempt(...) around the route sets it on the route whatever the view says.
        expected = getattr(real, attribute, None)
        if attribute == "csrf_exempt" and getattr(pattern.callback, attribute, None) and not expected:
            expected = True
        assert getattr(pattern.callback, attribute, None) == expected, (pattern.name, attribute)


def test_a_view_is_imported_on_its_first_request_and_not_before(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, TARGET, raising=False)
    view = on_first_request(TARGET, "answer", csrf_exempt=True)
    assert view.csrf_exempt is True  # type: ignore[attr-defined]
    assert TARGET not in sys.modules
    calls: list[str] = []
    assert view(calls, "a") == "a"
    assert TARGET in sys.modules
    assert view(calls, "b") == "b"
    assert calls == ["a", "b"]
