"""With OAuth off (the default), nothing of docs/reference.md#oauth exists: every new path is
the 404 of a path that never existed, and no 401 names OAuth metadata."""

import pytest
from django.test import Client

from tests.support.mcp import McpClient

pytestmark = pytest.mark.django_db

NEW_PATHS = [
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
    "/oauth/authorize/",
    "/oauth/token/",
    "/oauth/register/",
    "/oauth/register/some-client/",
    "/oauth/revoke/",
    "/oauth/github/login/",
    "/oauth/github/callback/",
]


@pytest.fixture(autouse=True)
def oauth_off(settings) -> None:
    assert settings.OAUTH_ENABLED is False  # the test environment sets none of the variables


@pytest.mark.parametrize("path", NEW_PATHS)
@pytest.mark.parametrize("method", ["get", "post"])
def test_every_oauth_path_is_the_404_of_a_path_that_never_existed(path: str, method: str) -> None:
    response = getattr(Client(), method)(path)
    never = getattr(Client(), method)("/no/such/path")
    assert response.status_code == never.status_code == 404
    assert (response["Content-Type"], response.content) == (never["Content-Type"], never.content)


def test_a_401_names_no_resource_metadata(settings) -> None:
    settings.SKILLS_READ_TOKENS = ["off-read-token-0123456789"]
    missing = McpClient(token=None).post({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert (missing.status_code, missing["WWW-Authenticate"]) == (401, 'Bearer realm="mcp"')
    bad = McpClient(token="sko_whatever").post({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert (bad.status_code, bad["WWW-Authenticate"]) == (401, 'Bearer realm="mcp", error="invalid_token"')


def test_no_session_middleware_runs(settings) -> None:
    assert "django.contrib.sessions.middleware.SessionMiddleware" not in settings.MIDDLEWARE
