"""The GitHub sign-in's code exchange, in process, through the one GitHub client: the same
deadline, user agent and refusals as a personal access token check."""

import socket
import time
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from accounts import github as gh
from accounts.errors import UpstreamUnavailable
from accounts.github_client import USER_AGENT
from oauth import github
from tests.support.github_standin import GitHubStandIn
from tests.support.oauth_inprocess import turn_oauth_on

CLIENT_ID = "Iv1.inprocess"
SECRET = "inprocess-secret"


@pytest.fixture
def standin(settings) -> Iterator[GitHubStandIn]:
    with GitHubStandIn() as github_standin:
        turn_oauth_on(settings, github_url=github_standin.url)
        settings.GITHUB_API_URL = github_standin.url
        settings.GITHUB_TIMEOUT_SECONDS = 0.5
        github_standin.add_oauth_app(CLIENT_ID, SECRET, github.callback_url())
        yield github_standin


def a_code(standin: GitHubStandIn, login: str = "alice") -> str:
    standin.sign_in_as(login, 4242)
    params = {"client_id": CLIENT_ID, "state": "s"}
    response = httpx.get(f"{standin.url}/login/oauth/authorize", params=params)
    assert response.status_code == 302, response.text
    return parse_qs(urlsplit(response.headers["location"]).query)["code"][0]


def test_a_good_code_becomes_a_token_that_github_knows(standin: GitHubStandIn) -> None:
    token = github.exchange_code(a_code(standin), "")
    assert gh.fetch_user(token) == gh.GitHubUser(login="alice", id=4242)
    assert standin.requests[-1]["User-Agent"] == USER_AGENT
    [exchange] = standin.token_requests
    assert (exchange["client_id"], exchange["client_secret"]) == (CLIENT_ID, SECRET)


def test_a_used_or_unknown_code_is_a_refused_sign_in(standin: GitHubStandIn) -> None:
    code = a_code(standin)
    github.exchange_code(code, "")
    for bad in (code, "not-a-code"):
        with pytest.raises(github.SignInFailed):
            github.exchange_code(bad, "")


def test_an_unreachable_token_endpoint_is_unavailable(standin: GitHubStandIn, settings) -> None:
    settings.GITHUB_OAUTH_URL = "http://127.0.0.1:9"  # the discard port: nothing listens
    with pytest.raises(UpstreamUnavailable, match="finish the sign-in"):
        github.exchange_code("code", "verifier")


def test_a_token_endpoint_that_never_answers_is_given_up_at_the_deadline(settings) -> None:
    settings.GITHUB_TIMEOUT_SECONDS = 0.5
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts, never answers
        settings.GITHUB_OAUTH_URL = f"http://127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        with pytest.raises(UpstreamUnavailable, match=r"0\.5 seconds"):
            github.exchange_code("code", "verifier")
    assert 0.4 < time.monotonic() - started < 1.5
