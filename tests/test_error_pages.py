"""Every error the service answers is JSON, never Django's HTML error or CSRF page (issue 15:
`POST /healthz` answered Django's CSRF page, an outage its HTML 500), or a plain page for the
OAuth browser pages (skillsite/errors.py, registered in skillsite/urls.py and settings)."""

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import path

from mcpapi.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST
from skillsite.urls import handler400, handler403, handler404, handler500  # noqa: F401 - the real ones
from skillsite.urls import urlpatterns as site_urlpatterns

pytestmark = pytest.mark.django_db


def explode(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("secret detail that must not reach the wire")


def protected(request: HttpRequest) -> HttpResponse:
    # Not exempt from CSRF, as every page of the site's own is: the CSRF failure view answers.
    return HttpResponse("reached")


# This module is also a URLconf (pytest.mark.urls below): the site's routes and error handlers,
# plus one view that fails and one that CSRF protects.
urlpatterns = [*site_urlpatterns, path("test-explode", explode), path("test-protected", protected)]


def assert_json_error(response: HttpResponse, status: int, code: int) -> dict:
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"jsonrpc", "id", "error"}
    assert body["id"] is None and body["error"]["code"] == code and body["error"]["message"]
    return body


def test_an_unknown_path_is_a_json_404() -> None:
    assert_json_error(Client().get("/no/such/path"), 404, INVALID_REQUEST)


@pytest.mark.urls("tests.test_error_pages")
def test_a_post_without_a_csrf_token_is_a_json_403_not_the_csrf_page() -> None:
    response = Client(enforce_csrf_checks=True).post("/test-protected", data={"a": "b"})
    body = assert_json_error(response, 403, INVALID_REQUEST)
    assert "CSRF" in body["error"]["message"]


@pytest.mark.parametrize("path", ["/healthz", "/", "/favicon.ico"])
def test_a_method_a_page_does_not_take_is_a_json_405_naming_the_allowed_ones(path: str) -> None:
    response = Client().options(path)
    body = assert_json_error(response, 405, INVALID_REQUEST)
    assert "GET" in response["Allow"] and "GET" in body["error"]["message"]


def test_mcp_stays_exempt_from_csrf() -> None:
    response = Client(enforce_csrf_checks=True).post("/mcp", data=b"{}", content_type="application/json")
    assert response.status_code == 401  # its own refusal, not a CSRF failure


def test_a_host_off_the_allowed_hosts_is_a_json_400() -> None:
    assert_json_error(Client().get("/healthz", HTTP_HOST="evil.example.com"), 400, INVALID_REQUEST)


@pytest.mark.urls("tests.test_error_pages")
def test_an_unexpected_failure_is_a_json_500_with_no_detail(settings) -> None:
    settings.DEBUG = False
    response = Client(raise_request_exception=False).get("/test-explode")
    body = assert_json_error(response, 500, INTERNAL_ERROR)
    assert "secret detail" not in response.content.decode()
    assert "RuntimeError" not in body["error"]["message"]


def test_with_oauth_off_its_paths_answer_exactly_as_a_path_that_never_existed() -> None:
    never = Client().get("/no/such/path")
    for oauth_path in (
        "/oauth/authorize/",
        "/oauth/github/login/",
        "/.well-known/oauth-authorization-server",
    ):
        response = Client().get(oauth_path)
        assert (response.status_code, response.content) == (404, never.content)


def test_an_oauth_browser_page_gets_a_plain_page(settings) -> None:
    settings.OAUTH_ENABLED = True
    settings.GITHUB_OAUTH_CLIENT_ID = "client"
    settings.GITHUB_OAUTH_CLIENT_SECRET = "secret"
    settings.PUBLIC_BASE_URL = "http://127.0.0.1:8000"
    response = Client(enforce_csrf_checks=True).post("/oauth/authorize/", data={"allow": "Allow"})
    assert response.status_code == 403
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert "Forbidden" in page and "CSRF" in page and "Django" not in page
