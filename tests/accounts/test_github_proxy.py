"""The one GitHub client honours HTTPS_PROXY / HTTP_PROXY and NO_PROXY (issue 15: a
deployment that reaches the internet only through a proxy could not check a PAT at all),
tried against a real proxy on 127.0.0.1 that records what it is asked."""

import base64
from collections.abc import Iterator

import pytest

from accounts.authentication import authenticate
from accounts.errors import UpstreamUnavailable
from tests.support.forward_proxy import ForwardProxy
from tests.support.tokens import ALICE_TOKEN

pytestmark = pytest.mark.django_db

_PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy")


@pytest.fixture
def proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[ForwardProxy]:
    for name in _PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    with ForwardProxy() as running:
        yield running


def test_an_http_api_url_goes_through_http_proxy(bearer, github, proxy, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    assert authenticate(bearer(ALICE_TOKEN)).identity == "github:alice"
    ((method, target, headers),) = proxy.requests
    assert (method, target) == ("GET", f"{github.url}/user")
    assert headers["Authorization"] == f"Bearer {ALICE_TOKEN}"
    assert github.calls[ALICE_TOKEN] == 1  # passed on by the proxy


def test_an_https_api_url_is_tunnelled_through_https_proxy(bearer, github, proxy, monkeypatch, settings):
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    settings.GITHUB_API_URL = "https://api.github.invalid"  # never resolved here: the proxy is asked
    with pytest.raises(UpstreamUnavailable):
        authenticate(bearer(ALICE_TOKEN))  # this proxy refuses tunnels: 503, as any failure
    ((method, target, headers),) = proxy.requests
    assert (method, target) == ("CONNECT", "api.github.invalid:443")
    assert "Authorization" not in headers  # the token only ever travels inside the tunnel


def test_user_and_password_in_the_proxy_url_become_proxy_authorization(bearer, github, proxy, monkeypatch):
    monkeypatch.setenv("http_proxy", proxy.url.replace("http://", "http://ops:s%3Acret@"))
    authenticate(bearer(ALICE_TOKEN))
    ((_, _, headers),) = proxy.requests
    assert headers["Proxy-Authorization"] == "Basic " + base64.b64encode(b"ops:s:cret").decode()


def test_no_proxy_sends_the_call_directly(bearer, github, proxy, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    assert authenticate(bearer(ALICE_TOKEN)).identity == "github:alice"
    assert proxy.requests == []
    assert github.calls[ALICE_TOKEN] == 1


def test_without_a_proxy_setting_the_call_is_direct(bearer, github, proxy):
    assert authenticate(bearer(ALICE_TOKEN)).identity == "github:alice"
    assert proxy.requests == []


def test_a_proxy_setting_that_is_not_http_is_503_and_nothing_is_sent(bearer, github, proxy, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "socks5://127.0.0.1:1080")
    with pytest.raises(UpstreamUnavailable):
        authenticate(bearer(ALICE_TOKEN))
    assert github.calls[ALICE_TOKEN] == 0
