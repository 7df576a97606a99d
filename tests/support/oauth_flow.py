"""Driving the OAuth flow by hand: a headless "browser", raw endpoint calls, and the
official MCP SDK's OAuthClientProvider wired to that browser."""

import base64
import hashlib
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import anyio
import httpx
import httpx2
import requests
from mcp.client import Client
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

CLAUDE_CALLBACK = "https://claude.ai/api/mcp/auth_callback"
CHATGPT_CALLBACK = "https://chatgpt.com/connector/oauth/c_0123456789abcdef"


class BrowserStopped(Exception):
    """The browser reached a page that is neither a redirect nor the consent form."""

    def __init__(self, response: requests.Response) -> None:
        super().__init__(f"HTTP {response.status_code} at {response.url}")
        self.response = response


class _Inputs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "input" and values.get("type") == "hidden" and values.get("name"):
            self.fields[values["name"]] = values.get("value") or ""


class Browser:
    """Follows redirects by hand, submits the consent form, and stops at the client's
    redirect URI (never requesting it): what a person's browser does, minus the person."""

    def __init__(self, stop_at: str, *, approve: bool = True) -> None:
        self.session = requests.Session()
        self.stop_at = stop_at
        self.approve = approve
        self.consent_pages: list[str] = []
        self.visited: list[str] = []

    def go(self, url: str) -> str:
        for _ in range(20):
            if url.startswith(self.stop_at):
                return url
            self.visited.append(url)
            response = self.session.get(url, allow_redirects=False, timeout=30)
            if response.is_redirect:
                url = urljoin(url, response.headers["Location"])
                continue
            if response.status_code == 200 and 'id="authorizationForm"' in response.text:
                self.consent_pages.append(response.text)
                parser = _Inputs()
                parser.feed(response.text)
                fields = dict(parser.fields)
                if self.approve:
                    fields["allow"] = "Authorize"
                posted = self.session.post(url, data=fields, allow_redirects=False, timeout=30)
                if not posted.is_redirect:
                    raise BrowserStopped(posted)
                url = urljoin(url, posted.headers["Location"])
                continue
            raise BrowserStopped(response)
        raise AssertionError(f"too many redirects, last {url}")


def query(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


@dataclass
class OAuthEndpoints:
    """Raw calls to the registry's OAuth endpoints, one step at a time."""

    base_url: str

    @property
    def resource(self) -> str:
        return f"{self.base_url}/mcp"

    def register(self, redirect_uris: list[str], **metadata: Any) -> httpx.Response:
        body = {"redirect_uris": redirect_uris, "token_endpoint_auth_method": "none", **metadata}
        return httpx.post(f"{self.base_url}/oauth/register/", json=body, timeout=30)

    def register_client(self, redirect_uri: str, **metadata: Any) -> dict[str, Any]:
        response = self.register([redirect_uri], client_name="Test client", **metadata)
        assert response.status_code == 201, response.text
        return response.json()

    def authorize_url(self, client_id: str, redirect_uri: str, **params: str | None) -> str:
        values: dict[str, str | None] = {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": redirect_uri,
            "state": secrets.token_urlsafe(16),
            "scope": "skills:read",
            "resource": self.resource,
        }
        values.update(params)
        return f"{self.base_url}/oauth/authorize/?" + urlencode(
            {key: value for key, value in values.items() if value is not None}
        )

    def token(self, **data: str) -> httpx.Response:
        return httpx.post(f"{self.base_url}/oauth/token/", data=data, timeout=30)

    def code_for(self, browser: Browser, client_id: str, redirect_uri: str, **params: str | None) -> str:
        """A fresh authorization code (the browser signs in and approves)."""
        landed = query(browser.go(self.authorize_url(client_id, redirect_uri, **params)))
        assert "code" in landed, landed
        return landed["code"]

    def tokens_for(self, browser: Browser, client_id: str, redirect_uri: str) -> dict[str, Any]:
        verifier, challenge = pkce()
        code = self.code_for(
            browser, client_id, redirect_uri, code_challenge=challenge, code_challenge_method="S256"
        )
        response = self.token(
            grant_type="authorization_code",
            code=code,
            redirect_uri=redirect_uri,
            client_id=client_id,
            code_verifier=verifier,
            resource=self.resource,
        )
        assert response.status_code == 200, response.text
        return response.json()


@dataclass
class MemoryStorage(TokenStorage):
    tokens: OAuthToken | None = None
    client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


@dataclass
class SdkClient:
    """The official SDK's OAuthClientProvider, its "browser" driven headlessly."""

    mcp_url: str
    browser: Browser
    redirect_uri: str
    client_name: str
    auth_method: str = "none"
    storage: MemoryStorage = field(default_factory=MemoryStorage)
    landed: list[str] = field(default_factory=list)
    provider: OAuthClientProvider | None = None

    def __post_init__(self) -> None:
        async def redirect_handler(url: str) -> None:
            self.landed.append(await anyio.to_thread.run_sync(self.browser.go, url))

        async def callback_handler() -> AuthorizationCodeResult:
            values = query(self.landed[-1])
            return AuthorizationCodeResult(
                code=values["code"], state=values.get("state"), iss=values.get("iss")
            )

        self.provider = OAuthClientProvider(
            server_url=self.mcp_url,
            client_metadata=OAuthClientMetadata(
                redirect_uris=[self.redirect_uri],
                client_name=self.client_name,
                grant_types=["authorization_code", "refresh_token"],
                response_types=["code"],
                token_endpoint_auth_method=self.auth_method,
            ),
            storage=self.storage,
            redirect_handler=redirect_handler,
            callback_handler=callback_handler,
        )

    def run(self, body: Callable[[Client], Awaitable[Any]]) -> Any:
        async def main() -> Any:
            async with httpx2.AsyncClient(auth=self.provider, timeout=30) as http:
                async with Client(
                    streamable_http_client(self.mcp_url, http_client=http), mode="legacy"
                ) as client:
                    return await body(client)

        return anyio.run(main)

    def expire_access_token(self) -> None:
        """Make the SDK believe its access token has expired, so it refreshes before the next call."""
        assert self.provider is not None
        self.provider.context.token_expiry_time = 1.0  # 0 would mean "no expiry"
