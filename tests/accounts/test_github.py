"""GitHub tokens: GET /user against a real HTTP stand-in, the cache, the allowlists."""

import time
from email.message import Message

import pytest
from django.core.cache import cache

from accounts import github as gh
from accounts.authentication import authenticate
from accounts.callers import Caller, CallerKind
from accounts.errors import InvalidToken, LoginNotAllowed, UpstreamUnavailable
from accounts.github_client import MAX_RESPONSE_BYTES, Answer
from accounts.models import AllowedLogin
from tests.support import github_standin as standin
from tests.support.tokens import ALICE_TOKEN, BOB_TOKEN, CAROL_TOKEN

pytestmark = pytest.mark.django_db


def test_it_lets_in_an_allowed_login(bearer, github):
    assert authenticate(bearer(ALICE_TOKEN)) == Caller(CallerKind.GITHUB, "alice", zdr_cleared=False)
    assert github.calls[ALICE_TOKEN] == 1


def test_it_asks_github_the_documented_way(bearer, github):
    authenticate(bearer(ALICE_TOKEN))
    (headers,) = github.requests
    assert headers["Authorization"] == f"Bearer {ALICE_TOKEN}"
    assert headers["Accept"] == "application/vnd.github+json"
    assert headers["User-Agent"]


def test_it_honours_a_path_in_the_api_url(bearer, github, settings):
    # GitHub Enterprise Server lives at https://host/api/v3: /user is below it.
    settings.GITHUB_API_URL = github.url + "/api/v3"
    with pytest.raises(UpstreamUnavailable):
        authenticate(bearer(ALICE_TOKEN))  # the stand-in has no /api/v3/user: 404 -> 503


def test_it_refuses_a_login_outside_the_allowlists_with_403(bearer, github):
    with pytest.raises(LoginNotAllowed) as caught:
        authenticate(bearer(BOB_TOKEN))
    assert caught.value.status == 403
    assert caught.value.www_authenticate is None


def test_it_refuses_a_token_github_does_not_know_as_invalid(bearer, github):
    with pytest.raises(InvalidToken) as caught:
        authenticate(bearer(standin.BAD))
    assert caught.value.www_authenticate == 'Bearer realm="mcp", error="invalid_token"'


@pytest.mark.parametrize(
    "token", [standin.BOOM, standin.GARBAGE, standin.HUGE, standin.REDIRECT], ids=lambda token: token
)
def test_any_other_github_answer_is_503(bearer, github, token):
    with pytest.raises(UpstreamUnavailable) as caught:
        authenticate(bearer(token))
    assert caught.value.status == 503
    assert github.calls[token] == 1


@pytest.mark.parametrize("token", [standin.RATELIMIT, standin.TOOMANY])
def test_a_rate_limit_is_503_and_says_so(bearer, github, token):
    with pytest.raises(UpstreamUnavailable) as caught:
        authenticate(bearer(token))
    assert "rate limit" in caught.value.message


@pytest.mark.parametrize("token", [standin.HANG, standin.DRIP])
def test_a_github_that_never_finishes_answering_is_refused_in_time(bearer, github, settings, token):
    settings.GITHUB_TIMEOUT_SECONDS = 0.5
    started = time.monotonic()
    with pytest.raises(UpstreamUnavailable) as caught:
        authenticate(bearer(token))
    elapsed = time.monotonic() - started
    assert 0.4 < elapsed < 1.5
    assert "0.5 seconds" in caught.value.message


def test_an_unreachable_github_is_503(bearer, github, settings):
    settings.GITHUB_API_URL = "http://127.0.0.1:9"  # the discard port: nothing listens
    with pytest.raises(UpstreamUnavailable):
        authenticate(bearer(ALICE_TOKEN))


def test_a_github_api_url_that_is_not_http_is_503(bearer, settings):
    settings.GITHUB_API_URL = "ftp://example.com"
    with pytest.raises(UpstreamUnavailable):
        authenticate(bearer(ALICE_TOKEN))


def test_a_successful_answer_is_cached(bearer, github):
    authenticate(bearer(ALICE_TOKEN))
    assert authenticate(bearer(ALICE_TOKEN)).identity == "github:alice"
    assert github.calls[ALICE_TOKEN] == 1


def test_the_cache_key_is_a_hash_of_the_token_never_the_token(bearer, github):
    authenticate(bearer(ALICE_TOKEN))
    key = gh.cache_key(ALICE_TOKEN)
    assert ALICE_TOKEN not in key and key.startswith("gh:") and len(key) == 3 + 64
    assert cache.get(key) == {"login": "alice", "id": 1001}


def test_a_cached_answer_stays_trusted_for_the_cache_time_only(bearer, github, settings):
    settings.GITHUB_CACHE_SECONDS = 1
    authenticate(bearer(ALICE_TOKEN))
    github.remove_user(ALICE_TOKEN)
    authenticate(bearer(ALICE_TOKEN))
    time.sleep(1.1)
    with pytest.raises(InvalidToken):
        authenticate(bearer(ALICE_TOKEN))
    assert github.calls[ALICE_TOKEN] == 2


def test_a_zero_cache_time_asks_github_every_time(bearer, github, settings):
    settings.GITHUB_CACHE_SECONDS = 0
    authenticate(bearer(ALICE_TOKEN))
    authenticate(bearer(ALICE_TOKEN))
    assert github.calls[ALICE_TOKEN] == 2


def test_a_refused_login_is_cached_too_but_rechecked_against_the_allowlist(bearer, github, settings):
    with pytest.raises(LoginNotAllowed):
        authenticate(bearer(BOB_TOKEN))
    settings.ALLOWED_GITHUB_LOGINS = ["alice", "bob"]
    assert authenticate(bearer(BOB_TOKEN)).identity == "github:bob"
    assert github.calls[BOB_TOKEN] == 1


def test_removing_a_login_takes_effect_on_the_next_request_despite_the_cache(bearer, github, settings):
    authenticate(bearer(ALICE_TOKEN))
    settings.ALLOWED_GITHUB_LOGINS = []
    with pytest.raises(LoginNotAllowed):
        authenticate(bearer(ALICE_TOKEN))
    assert github.calls[ALICE_TOKEN] == 1


def refuse_the_bad_token(bearer, times: int) -> None:
    for _ in range(times):
        with pytest.raises(InvalidToken):
            authenticate(bearer(standin.BAD))


def test_a_bad_token_is_remembered_briefly(bearer, github, settings):
    settings.GITHUB_FAILURE_CACHE_SECONDS = 1
    refuse_the_bad_token(bearer, 3)
    assert github.calls[standin.BAD] == 1
    time.sleep(1.1)
    refuse_the_bad_token(bearer, 1)
    assert github.calls[standin.BAD] == 2


def test_a_zero_failure_cache_time_asks_github_every_time(bearer, github, settings):
    settings.GITHUB_FAILURE_CACHE_SECONDS = 0
    refuse_the_bad_token(bearer, 2)
    assert github.calls[standin.BAD] == 2


@pytest.mark.parametrize("token", [standin.BOOM, standin.RATELIMIT, standin.HANG])
def test_an_outage_is_never_cached_and_never_lets_anyone_in(bearer, github, settings, token):
    settings.GITHUB_TIMEOUT_SECONDS = 0.3
    for _ in range(2):
        with pytest.raises(UpstreamUnavailable):
            authenticate(bearer(token))
    assert github.calls[token] == 2
    assert cache.get(gh.cache_key(token)) is None


def test_an_outage_after_a_success_keeps_serving_from_the_cache(bearer, github, settings):
    authenticate(bearer(ALICE_TOKEN))
    settings.GITHUB_API_URL = "http://127.0.0.1:9"
    assert authenticate(bearer(ALICE_TOKEN)).identity == "github:alice"


def test_a_malformed_cache_entry_is_ignored(bearer, github):
    cache.set(gh.cache_key(ALICE_TOKEN), {"login": 42})
    assert authenticate(bearer(ALICE_TOKEN)).identity == "github:alice"
    assert github.calls[ALICE_TOKEN] == 1


def test_logins_compare_case_insensitively(bearer, github, settings):
    # ALLOWED_GITHUB_LOGINS holds "Alice"; GitHub says "alice". ZDR holds "carol"; GitHub says "Carol".
    assert authenticate(bearer(ALICE_TOKEN)).identity == "github:alice"
    assert authenticate(bearer(CAROL_TOKEN)) == Caller(CallerKind.GITHUB, "Carol", zdr_cleared=True)


def test_a_zdr_login_from_the_environment_is_let_in_and_cleared(bearer, github, settings):
    settings.ALLOWED_GITHUB_LOGINS = []
    assert authenticate(bearer(CAROL_TOKEN)).zdr_cleared is True


def test_a_login_from_the_database_is_let_in(bearer, github):
    AllowedLogin.objects.create(login="bob")
    assert authenticate(bearer(BOB_TOKEN)) == Caller(CallerKind.GITHUB, "bob", zdr_cleared=False)


def test_a_database_login_with_zdr_is_cleared(bearer, github):
    AllowedLogin.objects.create(login="bob", zdr=True)
    assert authenticate(bearer(BOB_TOKEN)).zdr_cleared is True


def test_a_database_row_can_clear_an_environment_login(bearer, github):
    AllowedLogin.objects.create(login="alice", zdr=True)
    assert authenticate(bearer(ALICE_TOKEN)).zdr_cleared is True


def test_removing_a_database_login_takes_effect_at_once(bearer, github):
    AllowedLogin.objects.create(login="bob")
    authenticate(bearer(BOB_TOKEN))
    AllowedLogin.objects.filter(login="bob").delete()
    with pytest.raises(LoginNotAllowed):
        authenticate(bearer(BOB_TOKEN))


def test_unsetting_zdr_takes_effect_at_once(bearer, github):
    AllowedLogin.objects.create(login="bob", zdr=True)
    assert authenticate(bearer(BOB_TOKEN)).zdr_cleared is True
    AllowedLogin.objects.filter(login="bob").update(zdr=False)
    assert authenticate(bearer(BOB_TOKEN)).zdr_cleared is False


def test_with_no_login_listed_a_github_token_is_401_and_never_sent(bearer, github, settings):
    # Nobody could be let in, so asking GitHub would only hand it the token (finding 9).
    settings.ALLOWED_GITHUB_LOGINS = []
    settings.ZDR_GITHUB_LOGINS = []
    for token in (ALICE_TOKEN, CAROL_TOKEN):
        with pytest.raises(InvalidToken):
            authenticate(bearer(token))
    assert sum(github.calls.values()) == 0
    AllowedLogin.objects.create(login="bob")  # one database login is enough to ask again
    with pytest.raises(LoginNotAllowed):
        authenticate(bearer(ALICE_TOKEN))
    assert github.calls[ALICE_TOKEN] == 1


@pytest.mark.parametrize(
    "body",
    [b"[]", b'{"id": 1}', b'{"login": ""}', b'{"login": 7}', b'{"login": "a b"}', b"[" * 100_000, b"\xff"],
)
def test_a_200_that_is_not_a_user_is_503(body):
    answer = Answer(status=200, headers=Message(), body=body)
    with pytest.raises(UpstreamUnavailable):
        gh.user_from(answer)


def test_a_user_without_a_numeric_id_still_has_a_login():
    answer = Answer(status=200, headers=Message(), body=b'{"login": "alice", "id": true}')
    assert gh.user_from(answer) == gh.GitHubUser(login="alice", id=None)


def test_an_answer_over_the_cap_is_not_json():
    answer = Answer(status=200, headers=Message(), body=b'"' + b"a" * MAX_RESPONSE_BYTES + b'"')
    assert answer.too_large and answer.json() is None
