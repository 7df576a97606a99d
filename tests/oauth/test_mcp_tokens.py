"""/mcp with OAuth on: which access tokens it takes (docs/reference.md#oauth), in process."""

import pytest
from django.test import Client

from accounts.models import AllowedLogin
from tests.support.mcp import McpClient
from tests.support.oauth_inprocess import METADATA_URL, RESOURCE, make_identity, make_token, turn_oauth_on
from tests.support.tokens import READ_TOKEN

pytestmark = pytest.mark.django_db

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
GOOD = "sko_good-token-0123456789abcdefghijklmnopqrstuv"
INVALID = f'Bearer realm="mcp", error="invalid_token", resource_metadata="{METADATA_URL}"'


@pytest.fixture(autouse=True)
def oauth_on(settings) -> None:
    turn_oauth_on(settings)
    settings.SKILLS_READ_TOKENS = [READ_TOKEN]
    settings.SKILLS_ZDR_TOKENS = []
    settings.GITHUB_API_URL = "http://127.0.0.1:9"  # nothing may reach the real GitHub
    settings.ALLOWED_GITHUB_LOGINS = ["alice"]
    settings.ZDR_GITHUB_LOGINS = ["zed"]


def ping(token: str | None):
    return McpClient(token=token).post(PING)


def test_a_live_token_for_this_resource_with_the_scope_is_let_in() -> None:
    make_token(GOOD, identity=make_identity("alice", 1))
    response = ping(GOOD)
    assert response.status_code == 200
    # /mcp never touches the session: no cookie, no Vary: Cookie.
    assert "Set-Cookie" not in response and "Cookie" not in response.get("Vary", "")


def test_a_token_without_resource_is_refused() -> None:
    make_token(GOOD, identity=make_identity("alice", 1), resource=[])
    response = ping(GOOD)
    assert (response.status_code, response["WWW-Authenticate"]) == (401, INVALID)


def test_a_token_bound_to_another_resource_is_refused() -> None:
    make_token(GOOD, identity=make_identity("alice", 1), resource=["https://other.example.com/mcp"])
    assert ping(GOOD).status_code == 401


def test_a_token_bound_to_this_and_another_resource_is_refused() -> None:
    make_token(GOOD, identity=make_identity("alice", 1), resource=[RESOURCE, "https://other.example.com/mcp"])
    assert ping(GOOD).status_code == 401


def test_a_token_without_the_read_scope_is_refused() -> None:
    make_token(GOOD, identity=make_identity("alice", 1), scope="oauth2_provider:registration")
    assert ping(GOOD).status_code == 401


def test_an_expired_token_is_refused() -> None:
    make_token(GOOD, identity=make_identity("alice", 1), expires_in=-1)
    assert ping(GOOD).status_code == 401


def test_a_token_of_nobody_is_refused() -> None:
    make_token(GOOD, identity=None)
    assert ping(GOOD).status_code == 401


def test_a_login_removed_from_the_list_is_refused_on_the_next_request(settings) -> None:
    make_token(GOOD, identity=make_identity("alice", 1))
    assert ping(GOOD).status_code == 200
    settings.ALLOWED_GITHUB_LOGINS = []
    assert ping(GOOD).status_code == 403


def test_zdr_clearance_is_read_on_every_request(settings) -> None:
    from accounts.callers import resolve

    make_token(GOOD, identity=make_identity("zed", 2))
    assert resolve(GOOD).zdr_cleared is True
    assert resolve(GOOD).identity == "oauth:zed"
    settings.ZDR_GITHUB_LOGINS = []
    AllowedLogin.objects.create(login="zed", zdr=False)
    assert resolve(GOOD).zdr_cleared is False


def test_a_database_login_pinned_to_another_github_account_is_refused() -> None:
    AllowedLogin.objects.create(login="dora", github_id=7)
    make_token(GOOD, identity=make_identity("dora", 8))
    assert ping(GOOD).status_code == 403


def test_an_unknown_token_of_ours_never_reaches_github(settings) -> None:
    settings.GITHUB_API_URL = "http://127.0.0.1:9"  # would be 503 if asked
    response = ping("sko_unknown")
    assert (response.status_code, response["WWW-Authenticate"]) == (401, INVALID)


def test_a_static_token_still_comes_first_and_is_never_401() -> None:
    assert ping(READ_TOKEN).status_code == 200


def test_every_401_names_the_resource_metadata() -> None:
    missing = ping(None)
    assert missing.status_code == 401
    assert missing["WWW-Authenticate"] == f'Bearer realm="mcp", resource_metadata="{METADATA_URL}"'
    assert ping("wrong*token")["WWW-Authenticate"] == INVALID


def test_with_oauth_off_our_tokens_are_simply_invalid(settings) -> None:
    make_token(GOOD, identity=make_identity("alice", 1))
    settings.OAUTH_ENABLED = False
    response = ping(GOOD)
    assert (response.status_code, response["WWW-Authenticate"]) == (
        401,
        'Bearer realm="mcp", error="invalid_token"',
    )


def test_the_sign_in_pages_use_a_session_and_mcp_does_not() -> None:
    client = Client()
    response = client.get("/oauth/github/login/?next=/oauth/authorize/%3Fclient_id%3Dx")
    assert response.status_code == 302
    assert "sessionid" in response.cookies
