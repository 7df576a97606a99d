"""When a bearer token may go to GitHub at all, and how many checks may be out at once
(docs/reference.md#callers-and-clearance; finding 9 of issue 15: every random token cost a
GitHub call, a mistyped local token was handed to GitHub, and a flood could get the
server's address rate-limited)."""

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from django.test import Client

from accounts import github_client
from accounts.authentication import authenticate
from accounts.errors import AuthError, InvalidToken, UpstreamUnavailable
from tests.support import github_standin as standin
from tests.support.tokens import ALICE_TOKEN, READ_TOKEN

pytestmark = pytest.mark.django_db

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def post_mcp(token: str):
    return Client().post(
        "/mcp", data=PING, content_type="application/json", headers={"Authorization": f"Bearer {token}"}
    )


@pytest.mark.parametrize(
    "token",
    [
        READ_TOKEN[:-1] + "X",  # a mistyped static token: a secret of ours, never a third party's
        "test-read-token",
        "0123456789abcdef0123456789abcdef0123456",  # 39 hex
        "0123456789abcdef0123456789abcdef012345678",  # 41 hex
        "0123456789abcdef0123456789abcdef0123456g",  # 40, not hex
        "ghp_",
        "ghp-abc123",
        "GHP_abc123",
        "ghx_abc123",
        "github_pat",
        "ghp_abc~def",
        "bad",
    ],
)
def test_a_token_without_a_github_shape_is_401_at_once_and_never_sent(bearer, github, token):
    with pytest.raises(InvalidToken):
        authenticate(bearer(token))
    assert sum(github.calls.values()) == 0


@pytest.mark.parametrize(
    "token",
    [
        "ghp_" + "a1" * 18,
        "gho_" + "B2" * 18,
        "ghu_x",
        "ghs_" + "9" * 36,
        "ghr_" + "z" * 76,
        "github_pat_11ABCDEFG0_abcdefghijklmnopqrstuvwxyz",
        "0123456789abcdef0123456789abcdef01234567",
        "0123456789ABCDEF0123456789ABCDEF01234567",
    ],
)
def test_every_github_token_shape_is_checked_with_github(bearer, github, token):
    github.add_user(token, "alice", 1001)
    assert authenticate(bearer(token)).identity == "github:alice"
    assert github.calls[token] == 1


def test_an_unknown_token_is_401_invalid_token_on_the_wire_with_no_call(github):
    response = post_mcp("mistyped-read-token")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="mcp", error="invalid_token"'
    assert response.json()["error"]["message"]
    assert sum(github.calls.values()) == 0


@contextmanager
def in_flight(github, tokens: list[str]) -> Iterator[list[BaseException | None]]:
    """Each token's check running on its own thread, held by the stand-in (HANG) until the
    timeout; yields once the stand-in has received every one of them."""
    results: list[BaseException | None] = [None] * len(tokens)

    def check(index: int, token: str) -> None:
        try:
            authenticate(_request(token))
        except AuthError as error:
            results[index] = error

    threads = [threading.Thread(target=check, args=(i, t), daemon=True) for i, t in enumerate(tokens)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 5
    while sum(github.calls[token] for token in tokens) < len(tokens) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sum(github.calls[token] for token in tokens) == len(tokens)
    try:
        yield results
    finally:
        for thread in threads:
            thread.join(timeout=10)
        # An abandoned call keeps its slot until its connection is closed: wait for that.
        while github_client._slots.in_flight and time.monotonic() < deadline + 10:
            time.sleep(0.01)


def _request(token: str):
    from django.test import RequestFactory

    return RequestFactory().post("/mcp", HTTP_AUTHORIZATION=f"Bearer {token}")


def test_checks_up_to_the_bound_go_out_and_one_more_is_503_with_retry_after_and_no_call(github, settings):
    settings.GITHUB_MAX_CONCURRENT_CALLS = 2
    settings.GITHUB_TIMEOUT_SECONDS = 1.5
    with in_flight(github, [standin.special(standin.HANG)]):
        # At the bound: the second check still goes out.
        assert post_mcp(ALICE_TOKEN).status_code == 200
        assert github.calls[ALICE_TOKEN] == 1
    with in_flight(github, [standin.special(standin.HANG), standin.special(standin.HANG)]) as results:
        started = time.monotonic()
        response = post_mcp(standin.BAD)
        assert time.monotonic() - started < 0.5  # refused at once, not queued
        assert response.status_code == 503
        assert response["Retry-After"] == "5"
        assert response.json()["error"]["data"] == {"retry_after": 5}
        assert github.calls[standin.BAD] == 0
    assert all(isinstance(result, UpstreamUnavailable) for result in results)
    # Every slot is given back: the next check goes out again.
    with pytest.raises(InvalidToken):
        authenticate(_request(standin.BAD))
    assert github.calls[standin.BAD] == 1


def test_a_flood_of_one_junk_token_costs_one_call(github, settings):
    github.user_delay = 0.3  # every check of the flood is in flight at once
    token = standin.special(standin.BAD)
    outcomes = hammer(lambda: authenticate(_request(token)), 12)
    assert outcomes == ["InvalidToken"] * 12
    assert github.calls[token] == 1
    # ...and the next ones are answered from the remembered 401.
    with pytest.raises(InvalidToken):
        authenticate(_request(token))
    assert github.calls[token] == 1


def test_a_flood_of_one_good_token_costs_one_call(github, settings):
    github.user_delay = 0.3
    outcomes = hammer(lambda: authenticate(_request(ALICE_TOKEN)).identity, 12)
    assert outcomes == ["github:alice"] * 12
    assert github.calls[ALICE_TOKEN] == 1


def hammer(work: Callable[[], object], count: int) -> list[str]:
    """`work` on `count` threads released together; each outcome (a value, or an error's class name)."""
    barrier = threading.Barrier(count)
    outcomes: list[str] = [""] * count

    def run(index: int) -> None:
        barrier.wait()
        try:
            outcomes[index] = str(work())
        except AuthError as error:
            outcomes[index] = type(error).__name__

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    return outcomes
