"""The /mcp lane (skillsite.fastlane): every answer it gives is the middleware chain's, status,
headers (in their order) and body, byte for byte; anything it does not take, the chain answers."""

import io
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.middleware.common import CommonMiddleware

from mcpapi import views
from oauth.conf import with_session_middleware
from skillsite.fastlane import McpLane
from tests.support.tokens import READ_TOKEN

pytestmark = pytest.mark.django_db

LANE = "skillsite.fastlane.McpLane"
PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
TOOLS = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).encode()


def environ(body: bytes = PING, method: str = "POST", path: str = "/mcp", **headers: str) -> dict[str, Any]:
    """A request as a WSGI server hands it over, with the headers an MCP client sends."""
    sent = {
        "HTTP_HOST": "testserver",
        "CONTENT_TYPE": "application/json",
        "HTTP_ACCEPT": "application/json, text/event-stream",
        "HTTP_AUTHORIZATION": f"Bearer {READ_TOKEN}",
        "HTTP_MCP_PROTOCOL_VERSION": "2025-11-25",
        "HTTP_X_REQUEST_ID": "lane-test-request",
        **{f"HTTP_{name.upper()}": value for name, value in headers.items()},
    }
    return {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http",
        "wsgi.errors": io.StringIO(),
        **{key: value for key, value in sent.items() if value is not None},
    }


def answer(handler: WSGIHandler, request: dict[str, Any]) -> tuple[str, list[tuple[str, str]], bytes]:
    started: list[Any] = []
    response = handler(request, lambda status, headers: started.extend((status, headers)))
    try:
        return started[0], started[1], b"".join(response)
    finally:
        response.close()


@pytest.fixture
def chain_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The paths CommonMiddleware.process_request saw: every request the chain, not the lane, took."""
    seen: list[str] = []
    original = CommonMiddleware.process_request

    def counted(self: CommonMiddleware, request: Any) -> Any:
        seen.append(request.path_info)
        return original(self, request)

    monkeypatch.setattr(CommonMiddleware, "process_request", counted)
    yield seen


def both(settings: Any, request: dict[str, Any]) -> tuple[Any, Any]:
    """The answer with the lane (MIDDLEWARE as configured) and without it (the chain alone)."""
    middleware = list(settings.MIDDLEWARE)
    assert middleware[0] == LANE
    with_lane = answer(WSGIHandler(), request)
    settings.MIDDLEWARE = middleware[1:]
    request["wsgi.input"].seek(0)
    without = answer(WSGIHandler(), request)
    settings.MIDDLEWARE = middleware
    return with_lane, without


REQUESTS = {
    "ping": lambda: environ(),
    "tools/list": lambda: environ(TOOLS),
    "GET": lambda: environ(b"", method="GET"),
    "no token": lambda: environ(AUTHORIZATION=""),
    "foreign origin": lambda: environ(ORIGIN="https://evil.example.com"),
    "not json": lambda: environ(b"{"),
    "not acceptable": lambda: environ(ACCEPT="text/html"),
}


@pytest.mark.parametrize("kind", REQUESTS)
def test_the_lanes_answer_is_the_chains(settings: Any, chain_calls: list[str], kind: str) -> None:
    with_lane, without = both(settings, REQUESTS[kind]())
    assert with_lane == without
    assert chain_calls == ["/mcp"]  # the chain's own request only: the lane took its one
    if kind in ("ping", "tools/list"):
        assert with_lane[0] == "200 OK"
    names = [name for name, _ in with_lane[1]]
    assert {"X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy", "Content-Length"} <= set(names)


@pytest.mark.parametrize(
    "changed",
    [
        {"X_FRAME_OPTIONS": "SAMEORIGIN"},
        {"SECURE_REFERRER_POLICY": "no-referrer", "SECURE_CROSS_ORIGIN_OPENER_POLICY": None},
        {"SECURE_HSTS_SECONDS": 3600, "SECURE_PROXY_SSL_HEADER": ("HTTP_X_FORWARDED_PROTO", "https")},
    ],
)
def test_the_headers_follow_the_settings_as_the_chains_do(
    settings: Any, chain_calls: list[str], changed: dict[str, Any]
) -> None:
    for name, value in changed.items():
        setattr(settings, name, value)
    with_lane, without = both(settings, environ(X_FORWARDED_PROTO="https"))
    assert with_lane == without and chain_calls == ["/mcp"]
    if "SECURE_HSTS_SECONDS" in changed:
        assert ("Strict-Transport-Security", "max-age=3600") in with_lane[1]


def test_with_oauths_middleware_the_lane_still_answers_as_the_chain(
    settings: Any, chain_calls: list[str]
) -> None:
    settings.MIDDLEWARE = with_session_middleware(settings.MIDDLEWARE)
    with_lane, without = both(settings, environ())
    assert with_lane == without and chain_calls == ["/mcp"]


def test_an_error_in_the_view_is_the_chains_500(
    settings: Any, chain_calls: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("broken")

    monkeypatch.setattr(views.protocol, "answer", broken)
    with_lane, without = both(settings, environ())
    assert with_lane == without and with_lane[0].startswith("500")
    assert chain_calls == ["/mcp"]


@pytest.mark.parametrize(
    ("kind", "request_of"),
    [
        ("a refused Host", lambda: environ(HOST="evil.example.com")),
        ("a cookie (CSRF renews a malformed one)", lambda: environ(COOKIE="csrftoken=bad")),
        ("another path", lambda: environ(path="/healthz", method="GET")),
    ],
)
def test_what_the_lane_does_not_take_the_chain_answers(
    settings: Any, chain_calls: list[str], kind: str, request_of: Any
) -> None:
    with_lane, without = both(settings, request_of())
    assert unsalted(with_lane) == unsalted(without)
    assert len(chain_calls) == 2  # both through the chain
    if "cookie" in kind:
        assert any(name == "Set-Cookie" for name, _ in with_lane[1])


def unsalted(answer: tuple[str, list[tuple[str, str]], bytes]) -> tuple[Any, ...]:
    """An answer with the fresh CSRF secret a Set-Cookie carries (random each time) blanked."""
    status, headers, body = answer
    return status, [(name, re.sub("csrftoken=[^;]+", "csrftoken=*", value)) for name, value in headers], body


@pytest.mark.parametrize(
    "changed",
    [
        {"PREPEND_WWW": True},
        {"DISALLOWED_USER_AGENTS": ["nobody"]},
        {"CSRF_USE_SESSIONS": True},
        {"MIDDLEWARE": [LANE, "django.middleware.gzip.GZipMiddleware"]},
    ],
)
def test_a_setting_that_lets_the_chain_answer_mcp_itself_closes_the_lane(
    settings: Any, changed: dict[str, Any]
) -> None:
    for name, value in changed.items():
        setattr(settings, name, value)
    assert not McpLane(lambda request: None).open  # type: ignore[arg-type, return-value]


def test_the_registrys_settings_open_it(settings: Any) -> None:
    assert McpLane(lambda request: None).open  # type: ignore[arg-type, return-value]
    settings.MIDDLEWARE = with_session_middleware(settings.MIDDLEWARE)
    assert McpLane(lambda request: None).open  # type: ignore[arg-type, return-value]


def test_mcp_is_resolved_once_per_urlconf(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from django.urls.resolvers import URLResolver

    resolved: list[str] = []
    original = URLResolver.resolve

    def counted(self: URLResolver, path: str) -> Any:
        resolved.append(path)
        return original(self, path)

    monkeypatch.setattr(URLResolver, "resolve", counted)
    handler = WSGIHandler()
    assert [answer(handler, environ())[0] for _ in range(3)] == ["200 OK"] * 3
    assert resolved == ["/mcp"]
    settings.ROOT_URLCONF = "tests.mcpapi.urls_without_mcp"  # a new resolver: asked again
    assert answer(handler, environ())[0].startswith("404")
    # The lane's in the new resolver, then the chain's own (CommonMiddleware's, the handler's).
    assert resolved[1:3] == ["/mcp", "/mcp"]


def test_with_the_https_redirect_the_lane_takes_https_and_the_chain_redirects_the_rest(
    settings: Any, chain_calls: list[str]
) -> None:
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_HSTS_SECONDS = 3600
    with_lane, without = both(settings, environ(X_FORWARDED_PROTO="https"))
    assert with_lane == without and with_lane[0] == "200 OK" and chain_calls == ["/mcp"]
    with_lane, without = both(settings, environ())
    assert with_lane == without and with_lane[0].startswith("301") and len(chain_calls) == 1
