"""End to end, offline: gunicorn with OAuth on, a stand-in GitHub, and the official MCP SDK's
OAuthClientProvider doing discovery, dynamic registration, PKCE, consent and the token
exchange, then calling every tool; a refresh; and a client registered the way ChatGPT's is."""

import json
from typing import Any

import httpx
import pytest
from mcp.client import Client

from tests.support.oauth_flow import CHATGPT_CALLBACK, CLAUDE_CALLBACK, SdkClient, query
from tests.support.oauth_registry import GITHUB_CLIENT_ID, OAuthRegistry
from tests.support.standard import GUIDE, SCRIPT

pytestmark = pytest.mark.e2e


def structured(result: Any) -> dict[str, Any]:
    assert result.is_error is False, result
    [content] = result.content
    assert json.loads(content.text) == result.structured_content
    return result.structured_content


async def every_tool(client: Client) -> dict[str, Any]:
    await client.list_tools()
    listed = structured(await client.call_tool("skills_list", {}))
    found = structured(await client.call_tool("skills_search", {"query": "review"}))
    skill = structured(await client.call_tool("skills_get", {"id": "alpha"}))
    guide = structured(
        await client.call_tool("skills_get_file", {"id": "alpha", "path": "references/guide.md"})
    )
    script = structured(await client.call_tool("skills_get_file", {"id": "alpha", "path": "scripts/run.sh"}))
    return {"listed": listed, "found": found, "skill": skill, "guide": guide, "script": script}


def test_the_metadata_documents_describe_this_registry(oauth_registry: OAuthRegistry) -> None:
    base = oauth_registry.url
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
        document = httpx.get(base + path).json()
        assert document["resource"] == f"{base}/mcp"
        assert document["authorization_servers"] == [base]
        assert document["scopes_supported"] == ["skills:read"]
        assert document["bearer_methods_supported"] == ["header"]
    server = httpx.get(f"{base}/.well-known/oauth-authorization-server").json()
    assert server["issuer"] == base
    assert server["authorization_endpoint"] == f"{base}/oauth/authorize/"
    assert server["token_endpoint"] == f"{base}/oauth/token/"
    assert server["registration_endpoint"] == f"{base}/oauth/register/"
    assert server["revocation_endpoint"] == f"{base}/oauth/revoke/"
    assert server["code_challenge_methods_supported"] == ["S256"]
    assert "none" in server["token_endpoint_auth_methods_supported"]
    assert server["response_types_supported"] == ["code"]
    assert server["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert server["authorization_response_iss_parameter_supported"] is True
    assert "introspection_endpoint" not in server


def test_a_401_names_the_resource_metadata(oauth_registry: OAuthRegistry) -> None:
    metadata = f'resource_metadata="{oauth_registry.url}/.well-known/oauth-protected-resource/mcp"'
    missing = httpx.post(oauth_registry.mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert missing.status_code == 401
    assert missing.headers["WWW-Authenticate"] == f'Bearer realm="mcp", {metadata}'
    bad = oauth_registry.ping("sko_not-a-token-we-issued")
    assert bad.status_code == 401
    assert bad.headers["WWW-Authenticate"] == f'Bearer realm="mcp", error="invalid_token", {metadata}'


def test_the_sdk_signs_in_through_github_and_calls_every_tool_then_refreshes(
    oauth_registry: OAuthRegistry,
) -> None:
    browser = oauth_registry.browser(CLAUDE_CALLBACK, as_login="alice")
    sdk = SdkClient(oauth_registry.mcp_url, browser, CLAUDE_CALLBACK, "Claude")
    got = sdk.run(every_tool)

    assert [skill["id"] for skill in got["listed"]["skills"]] == ["alpha", "beta", "gamma"]
    assert [hit["id"] for hit in got["found"]["results"]] == ["alpha", "gamma"]
    assert got["skill"]["instructions"] == "Alpha steps: review the diff.\n"
    assert got["guide"]["text"] == GUIDE
    assert got["script"]["text"] == SCRIPT
    assert got["listed"]["registry_sha"] == oauth_registry.sha

    # The flow went through GitHub (S256 PKCE there too) and our consent page, once.
    [authorize] = [r for r in oauth_registry.github.authorize_requests if r["state"] in str(browser.visited)]
    assert authorize["client_id"] == GITHUB_CLIENT_ID
    assert authorize["code_challenge_method"] == "S256"
    assert len(browser.consent_pages) == 1
    landed = query(sdk.landed[-1])
    assert landed["iss"] == oauth_registry.url
    first = sdk.storage.tokens
    assert first is not None and first.access_token.startswith("sko_")
    assert first.refresh_token is not None and first.refresh_token.startswith("sko_")

    # A refresh: new access and refresh tokens (rotation), and the tools keep working.
    sdk.expire_access_token()
    refreshed = sdk.run(lambda client: client.call_tool("skills_get", {"id": "beta"}))
    assert structured(refreshed)["instructions"] == "Beta steps.\n"
    second = sdk.storage.tokens
    assert second is not None
    assert second.access_token != first.access_token
    assert second.refresh_token != first.refresh_token
    assert len(browser.consent_pages) == 1  # a refresh asks nobody
    assert oauth_registry.ping(first.access_token).status_code == 401  # the old access token is gone


def test_a_client_registered_the_way_chatgpt_is_connects(oauth_registry: OAuthRegistry) -> None:
    browser = oauth_registry.browser(CHATGPT_CALLBACK, as_login="dora")
    sdk = SdkClient(
        oauth_registry.mcp_url, browser, CHATGPT_CALLBACK, "ChatGPT", auth_method="client_secret_post"
    )
    got = sdk.run(every_tool)
    assert [skill["id"] for skill in got["listed"]["skills"]] == ["alpha", "beta", "gamma"]
    assert got["guide"]["text"] == GUIDE
    info = sdk.storage.client_info
    assert info is not None and info.client_secret  # a confidential client
    assert [str(uri) for uri in info.redirect_uris or []] == [CHATGPT_CALLBACK]
    # The consent page named the client and where the browser was going next.
    [page] = browser.consent_pages
    assert 'id="client-name">ChatGPT<' in page
    assert 'id="redirect-host">chatgpt.com<' in page
    assert 'id="github-login">dora<' in page
    assert query(sdk.landed[-1])["iss"] == oauth_registry.url


def test_consent_is_asked_every_time_even_with_approval_prompt_auto(oauth_registry: OAuthRegistry) -> None:
    endpoints = oauth_registry.endpoints
    client = endpoints.register_client(CLAUDE_CALLBACK)
    browser = oauth_registry.browser(CLAUDE_CALLBACK, as_login="alice")
    endpoints.tokens_for(browser, client["client_id"], CLAUDE_CALLBACK)
    endpoints.code_for(
        browser,
        client["client_id"],
        CLAUDE_CALLBACK,
        code_challenge="x" * 43,
        code_challenge_method="S256",
        approval_prompt="auto",
    )
    assert len(browser.consent_pages) == 2


def test_githubs_token_is_used_once_and_never_stored(oauth_registry: OAuthRegistry) -> None:
    endpoints = oauth_registry.endpoints
    client = endpoints.register_client(CLAUDE_CALLBACK)
    before = set(oauth_registry.github.users)
    browser = oauth_registry.browser(CLAUDE_CALLBACK, as_login="alice")
    endpoints.tokens_for(browser, client["client_id"], CLAUDE_CALLBACK)
    [github_token] = set(oauth_registry.github.users) - before
    assert oauth_registry.github.calls[github_token] == 1
    if oauth_registry.database.postgres is None:
        stored = (oauth_registry.workdir / "db" / "registry.sqlite3").read_bytes()
        for suffix in ("-wal", "-shm"):
            path = oauth_registry.workdir / "db" / f"registry.sqlite3{suffix}"
            stored += path.read_bytes() if path.exists() else b""
        assert github_token.encode() not in stored
