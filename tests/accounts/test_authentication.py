"""The Authorization header, the environment tokens, and the errors' HTTP shape."""

import pytest
from django.test import RequestFactory

from accounts.authentication import authenticate
from accounts.callers import Caller, CallerKind
from accounts.errors import InvalidToken, LoginNotAllowed, NotAuthenticated, UpstreamUnavailable
from tests.support.tokens import READ_TOKEN, ZDR_TOKEN


def raw(header: str):
    return RequestFactory().post("/mcp", HTTP_AUTHORIZATION=header)


def test_it_refuses_a_request_without_authorization_with_a_bare_challenge(bearer):
    with pytest.raises(NotAuthenticated) as caught:
        authenticate(bearer(None))
    assert caught.value.status == 401
    assert caught.value.www_authenticate == 'Bearer realm="mcp"'


@pytest.mark.parametrize("header", ["", "   ", f"Basic {READ_TOKEN}", f"Token {READ_TOKEN}", READ_TOKEN])
def test_it_treats_other_schemes_as_no_credentials(header):
    with pytest.raises(NotAuthenticated) as caught:
        authenticate(raw(header))
    assert "error=" not in caught.value.www_authenticate


@pytest.mark.parametrize("header", ["Bearer", "Bearer   ", "Bearer two words", "Bearer a\tb c"])
def test_it_refuses_malformed_bearer_credentials_as_invalid_token(header):
    with pytest.raises(InvalidToken) as caught:
        authenticate(raw(header))
    assert caught.value.status == 401
    assert caught.value.www_authenticate == 'Bearer realm="mcp", error="invalid_token"'


@pytest.mark.parametrize("token", ["bad,token", "a" * 1025, "tok\u00e9n", "=abc", "abc=def"])
def test_it_refuses_tokens_outside_the_bearer_syntax_without_asking_anyone(token, github):
    with pytest.raises(InvalidToken):
        authenticate(raw(f"Bearer {token}"))
    assert sum(github.calls.values()) == 0


def test_it_lets_in_a_read_token_from_the_environment_uncleared(bearer):
    assert authenticate(bearer(READ_TOKEN)) == Caller(CallerKind.TOKEN, "env", zdr_cleared=False)


def test_it_lets_in_a_zdr_token_from_the_environment_cleared(bearer):
    assert authenticate(bearer(ZDR_TOKEN)) == Caller(CallerKind.TOKEN, "env-zdr", zdr_cleared=True)


@pytest.mark.parametrize(
    ("caller", "identity", "login"),
    [
        (Caller(CallerKind.TOKEN, "env-zdr", zdr_cleared=True), "token:env-zdr", None),
        (Caller(CallerKind.GITHUB, "Alice", zdr_cleared=False), "github:Alice", "Alice"),
        (Caller(CallerKind.OAUTH, "alice", zdr_cleared=False), "oauth:alice", "alice"),
    ],
)
def test_a_caller_reads_as_kind_and_name_and_knows_its_login(caller, identity, login):
    assert (caller.identity, caller.login) == (identity, login)


def test_a_token_in_both_lists_is_cleared(bearer, settings):
    settings.SKILLS_READ_TOKENS = ["shared-token", READ_TOKEN]
    settings.SKILLS_ZDR_TOKENS = ["shared-token"]
    assert authenticate(bearer("shared-token")).zdr_cleared is True


def test_the_scheme_is_case_insensitive(bearer):
    assert authenticate(bearer(READ_TOKEN, scheme="bearer")).identity == "token:env"
    assert authenticate(bearer(READ_TOKEN, scheme="BEARER")).identity == "token:env"


def test_environment_tokens_are_checked_before_github(bearer, github):
    authenticate(bearer(READ_TOKEN))
    authenticate(bearer(ZDR_TOKEN))
    assert sum(github.calls.values()) == 0


@pytest.mark.parametrize("token", [READ_TOKEN, ZDR_TOKEN], ids=["read", "zdr"])
def test_an_environment_token_never_reaches_the_database(bearer, db, django_assert_num_queries, token):
    with django_assert_num_queries(0):
        assert authenticate(bearer(token)).kind == CallerKind.TOKEN


def test_a_prefix_or_extension_of_an_environment_token_is_not_it(bearer, github):
    for token in (READ_TOKEN[:-1], READ_TOKEN + "x", READ_TOKEN.upper()):
        with pytest.raises(InvalidToken):
            authenticate(bearer(token))


def test_an_empty_environment_list_lets_nobody_in(bearer, settings, github):
    settings.SKILLS_READ_TOKENS = []
    settings.SKILLS_ZDR_TOKENS = []
    with pytest.raises(InvalidToken):
        authenticate(bearer(READ_TOKEN))


@pytest.mark.parametrize(
    ("error", "status", "challenge"),
    [
        (NotAuthenticated(), 401, 'Bearer realm="mcp"'),
        (InvalidToken(), 401, 'Bearer realm="mcp", error="invalid_token"'),
        (LoginNotAllowed(), 403, None),
        (UpstreamUnavailable(), 503, None),
    ],
)
def test_each_error_carries_what_mcpapi_needs(error, status, challenge):
    assert (error.status, error.status_code, error.www_authenticate) == (status, status, challenge)
    assert error.message and str(error) == error.message


def test_an_error_message_can_be_overridden():
    error = UpstreamUnavailable("GitHub is down.")
    assert (error.message, str(error), UpstreamUnavailable().message) == (
        "GitHub is down.",
        "GitHub is down.",
        UpstreamUnavailable.message,
    )
