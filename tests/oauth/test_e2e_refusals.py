"""End to end, one refusal each: what the OAuth server and /mcp must not let through."""

import httpx
import pytest

from tests.support.oauth_flow import CLAUDE_CALLBACK, BrowserStopped, pkce, query
from tests.support.oauth_registry import OAuthRegistry

pytestmark = pytest.mark.e2e

LOCAL_CALLBACK = "http://127.0.0.1:33418/callback"


def exchange(
    registry: OAuthRegistry, client_id: str, code: str, verifier: str, **extra: str
) -> httpx.Response:
    return registry.endpoints.token(
        grant_type="authorization_code",
        code=code,
        redirect_uri=LOCAL_CALLBACK,
        client_id=client_id,
        code_verifier=verifier,
        **extra,
    )


@pytest.fixture
def client_id(oauth_registry: OAuthRegistry) -> str:
    return oauth_registry.endpoints.register_client(LOCAL_CALLBACK)["client_id"]


def signed_in(registry: OAuthRegistry, login: str = "alice"):
    return registry.browser(LOCAL_CALLBACK, as_login=login)


def s256_code(registry: OAuthRegistry, client_id: str, challenge: str) -> str:
    """An authorization code for alice, bound to the S256 `challenge`."""
    return registry.endpoints.code_for(
        signed_in(registry), client_id, LOCAL_CALLBACK, code_challenge=challenge, code_challenge_method="S256"
    )


def test_an_authorization_code_is_good_once(oauth_registry: OAuthRegistry, client_id: str) -> None:
    verifier, challenge = pkce()
    code = s256_code(oauth_registry, client_id, challenge)
    assert exchange(oauth_registry, client_id, code, verifier).status_code == 200
    replay = exchange(oauth_registry, client_id, code, verifier)
    assert (replay.status_code, replay.json().get("error")) == (400, "invalid_grant")


def refresh(registry: OAuthRegistry, client_id: str, refresh_token: str) -> httpx.Response:
    return registry.endpoints.token(
        grant_type="refresh_token", refresh_token=refresh_token, client_id=client_id
    )


def test_a_replayed_code_revokes_the_tokens_it_was_exchanged_for(
    oauth_registry: OAuthRegistry, client_id: str
) -> None:
    # RFC 6749 §4.1.2. Before, the replay was refused but its tokens stayed valid.
    verifier, challenge = pkce()
    code = s256_code(oauth_registry, client_id, challenge)
    issued = exchange(oauth_registry, client_id, code, verifier)
    assert issued.status_code == 200, issued.text
    tokens = issued.json()
    assert oauth_registry.ping(tokens["access_token"]).status_code == 200

    replay = exchange(oauth_registry, client_id, code, verifier)
    assert (replay.status_code, replay.json().get("error")) == (400, "invalid_grant")
    assert oauth_registry.ping(tokens["access_token"]).status_code == 401
    refused = refresh(oauth_registry, client_id, tokens["refresh_token"])
    assert (refused.status_code, refused.json().get("error")) == (400, "invalid_grant")


def test_a_replayed_code_revokes_the_tokens_rotated_from_it_too(
    oauth_registry: OAuthRegistry, client_id: str
) -> None:
    verifier, challenge = pkce()
    code = s256_code(oauth_registry, client_id, challenge)
    first = exchange(oauth_registry, client_id, code, verifier).json()
    rotated = refresh(oauth_registry, client_id, first["refresh_token"])
    assert rotated.status_code == 200, rotated.text
    second = rotated.json()
    assert oauth_registry.ping(second["access_token"]).status_code == 200

    assert exchange(oauth_registry, client_id, code, verifier).status_code == 400
    assert oauth_registry.ping(second["access_token"]).status_code == 401
    assert refresh(oauth_registry, client_id, second["refresh_token"]).status_code == 400


def test_a_wrong_code_verifier_gets_no_token(oauth_registry: OAuthRegistry, client_id: str) -> None:
    _, challenge = pkce()
    other_verifier, _ = pkce()
    code = s256_code(oauth_registry, client_id, challenge)
    refused = exchange(oauth_registry, client_id, code, other_verifier)
    assert (refused.status_code, refused.json().get("error")) == (400, "invalid_grant")


def test_a_reused_refresh_token_revokes_its_whole_family(
    oauth_registry: OAuthRegistry, client_id: str
) -> None:
    endpoints = oauth_registry.endpoints
    first = endpoints.tokens_for(signed_in(oauth_registry), client_id, LOCAL_CALLBACK)
    rotated = endpoints.token(
        grant_type="refresh_token", refresh_token=first["refresh_token"], client_id=client_id
    )
    assert rotated.status_code == 200, rotated.text
    second = rotated.json()
    assert oauth_registry.ping(second["access_token"]).status_code == 200

    reuse = endpoints.token(
        grant_type="refresh_token", refresh_token=first["refresh_token"], client_id=client_id
    )
    assert (reuse.status_code, reuse.json().get("error")) == (400, "invalid_grant")
    # The replay revoked the family: the newest refresh token and its access token are dead too.
    newest = endpoints.token(
        grant_type="refresh_token", refresh_token=second["refresh_token"], client_id=client_id
    )
    assert (newest.status_code, newest.json().get("error")) == (400, "invalid_grant")
    assert oauth_registry.ping(second["access_token"]).status_code == 401


def test_an_authorization_without_pkce_is_refused(oauth_registry: OAuthRegistry, client_id: str) -> None:
    landed = query(
        signed_in(oauth_registry).go(oauth_registry.endpoints.authorize_url(client_id, LOCAL_CALLBACK))
    )
    assert landed.get("error") == "invalid_request"
    assert "code" not in landed


def test_plain_pkce_is_refused(oauth_registry: OAuthRegistry, client_id: str) -> None:
    verifier, _ = pkce()
    url = oauth_registry.endpoints.authorize_url(
        client_id, LOCAL_CALLBACK, code_challenge=verifier, code_challenge_method="plain"
    )
    landed = query(signed_in(oauth_registry).go(url))
    assert landed.get("error") == "invalid_request"
    assert "code" not in landed


def test_a_registration_outside_the_allowed_redirect_hosts_is_refused(oauth_registry: OAuthRegistry) -> None:
    for uris in (
        ["https://evil.example.com/callback"],
        ["http://claude.ai/api/mcp/auth_callback"],  # http off loopback
        ["https://claude.ai.evil.example.com/cb"],
        [CLAUDE_CALLBACK, "https://evil.example.com/callback"],  # one bad apple
    ):
        response = oauth_registry.endpoints.register(uris)
        assert (response.status_code, response.json().get("error")) == (400, "invalid_redirect_uri"), uris


def test_an_authorization_without_resource_is_refused(oauth_registry: OAuthRegistry, client_id: str) -> None:
    _, challenge = pkce()
    url = oauth_registry.endpoints.authorize_url(
        client_id, LOCAL_CALLBACK, code_challenge=challenge, code_challenge_method="S256", resource=None
    )
    landed = query(signed_in(oauth_registry).go(url))
    assert landed.get("error") == "invalid_target"
    assert "code" not in landed


def test_an_authorization_for_another_resource_is_refused(
    oauth_registry: OAuthRegistry, client_id: str
) -> None:
    _, challenge = pkce()
    for resource in ("https://other.example.com/mcp", f"{oauth_registry.url}/healthz"):
        url = oauth_registry.endpoints.authorize_url(
            client_id,
            LOCAL_CALLBACK,
            code_challenge=challenge,
            code_challenge_method="S256",
            resource=resource,
        )
        landed = query(signed_in(oauth_registry).go(url))
        assert landed.get("error") == "invalid_target", resource


def test_a_token_request_cannot_widen_the_resource(oauth_registry: OAuthRegistry, client_id: str) -> None:
    verifier, challenge = pkce()
    code = s256_code(oauth_registry, client_id, challenge)
    refused = exchange(oauth_registry, client_id, code, verifier, resource="https://other.example.com/mcp")
    assert refused.status_code == 400


def test_a_login_off_the_allowlist_is_refused_at_the_callback(
    oauth_registry: OAuthRegistry, client_id: str
) -> None:
    _, challenge = pkce()
    url = oauth_registry.endpoints.authorize_url(
        client_id, LOCAL_CALLBACK, code_challenge=challenge, code_challenge_method="S256"
    )
    browser = signed_in(oauth_registry, "mallory")
    with pytest.raises(BrowserStopped) as stopped:
        browser.go(url)
    page = stopped.value.response
    assert page.status_code == 403
    assert "/oauth/github/callback/" in page.url
    assert "mallory is not allowed" in page.text
    assert browser.consent_pages == []


def test_a_login_removed_after_its_token_was_issued_is_refused_at_once(
    oauth_registry: OAuthRegistry, client_id: str
) -> None:
    oauth_registry.manage("allow_login", "erin")
    tokens = oauth_registry.endpoints.tokens_for(signed_in(oauth_registry, "erin"), client_id, LOCAL_CALLBACK)
    assert oauth_registry.ping(tokens["access_token"]).status_code == 200
    oauth_registry.manage("disallow_login", "erin")
    assert oauth_registry.ping(tokens["access_token"]).status_code == 403


def test_a_login_taken_over_by_another_github_account_is_refused(
    oauth_registry: OAuthRegistry, client_id: str
) -> None:
    oauth_registry.manage("allow_login", "frank")
    tokens = oauth_registry.endpoints.tokens_for(
        signed_in_as_id(oauth_registry, "frank", 424242), client_id, LOCAL_CALLBACK
    )
    assert oauth_registry.ping(tokens["access_token"]).status_code == 200
    # frank renamed his account; someone else took the name "frank".
    browser = signed_in_as_id(oauth_registry, "frank", 999999)
    _, challenge = pkce()
    with pytest.raises(BrowserStopped) as stopped:
        browser.go(
            oauth_registry.endpoints.authorize_url(
                client_id, LOCAL_CALLBACK, code_challenge=challenge, code_challenge_method="S256"
            )
        )
    assert stopped.value.response.status_code == 403


def signed_in_as_id(registry: OAuthRegistry, login: str, user_id: int):
    browser = registry.browser(LOCAL_CALLBACK, as_login=login)
    registry.github.sign_in_as(login, user_id)
    return browser


def test_a_registration_token_is_not_a_read_token(oauth_registry: OAuthRegistry) -> None:
    registration = oauth_registry.endpoints.register_client(LOCAL_CALLBACK)
    token = registration["registration_access_token"]
    # It is good for what it is for (RFC 7592) ...
    own = httpx.get(registration["registration_client_uri"], headers={"Authorization": f"Bearer {token}"})
    assert own.status_code == 200
    # ... and nothing else.
    refused = oauth_registry.ping(token)
    assert refused.status_code == 401
    assert 'error="invalid_token"' in refused.headers["WWW-Authenticate"]


def test_zdr_skills_stay_hidden_from_an_uncleared_oauth_user(
    oauth_registry: OAuthRegistry, client_id: str
) -> None:
    def listing(token: str) -> tuple[list[str], dict]:
        headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        listed = httpx.post(
            oauth_registry.mcp_url,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "skills_list", "arguments": {}},
            },
            headers=headers,
        ).json()["result"]["structuredContent"]
        got = httpx.post(
            oauth_registry.mcp_url,
            json={
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "skills_get", "arguments": {"id": "secret-ops"}},
            },
            headers=headers,
        ).json()["result"]
        return [skill["id"] for skill in listed["skills"]], got

    alice = oauth_registry.endpoints.tokens_for(signed_in(oauth_registry, "alice"), client_id, LOCAL_CALLBACK)
    zed = oauth_registry.endpoints.tokens_for(signed_in(oauth_registry, "zed"), client_id, LOCAL_CALLBACK)
    ids, secret = listing(alice["access_token"])
    assert "secret-ops" not in ids
    assert secret["structuredContent"]["error"]["code"] == "SKILL_NOT_FOUND"
    ids, secret = listing(zed["access_token"])
    assert "secret-ops" in ids
    assert secret.get("isError") is not True
