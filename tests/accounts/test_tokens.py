"""Service tokens in the database: the commands, authentication, revocation, storage."""

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from accounts import tokens
from accounts.authentication import authenticate
from accounts.callers import Caller, CallerKind
from accounts.errors import AccountsError, InvalidToken
from accounts.models import ServiceToken

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def create(name: str, *flags: str) -> str:
    out, _ = run("create_token", name, *flags)
    return out.strip()


def test_create_token_prints_the_token_alone_on_stdout_and_a_hint_on_stderr():
    out, err = run("create_token", "ci")
    assert re.fullmatch(r"skr_[A-Za-z0-9_-]{43}\n", out)
    assert "'ci'" in err and "only this once" in err and "zdr: no" in err
    assert out.strip() not in err


def test_a_created_token_lets_its_caller_in_uncleared(bearer):
    token = create("ci")
    assert authenticate(bearer(token)) == Caller(CallerKind.TOKEN, "ci", zdr_cleared=False)


def test_a_zdr_token_is_cleared(bearer):
    token = create("laptop", "--zdr")
    assert authenticate(bearer(token)) == Caller(CallerKind.TOKEN, "laptop", zdr_cleared=True)


def test_each_token_is_new():
    assert create("one") != create("two")


def test_a_revoked_token_is_refused_on_the_next_request(bearer):
    token = create("ci")
    authenticate(bearer(token))
    out, _ = run("revoke_token", "ci")
    assert out == "Revoked token 'ci'.\n"
    with pytest.raises(InvalidToken):
        authenticate(bearer(token))


def test_a_name_can_be_reused_after_revocation_and_only_the_new_token_works(bearer):
    old = create("ci")
    run("revoke_token", "ci")
    new = create("ci")
    assert authenticate(bearer(new)).identity == "token:ci"
    with pytest.raises(InvalidToken):
        authenticate(bearer(old))


def test_create_token_refuses_a_duplicate_active_name():
    create("ci")
    with pytest.raises(CommandError, match="already exists"):
        run("create_token", "ci")
    assert ServiceToken.objects.count() == 1


def test_the_database_refuses_two_active_tokens_of_one_name_even_past_the_check():
    from django.db import IntegrityError, transaction

    create("ci")
    with pytest.raises(IntegrityError), transaction.atomic():
        ServiceToken.objects.create(name="ci", prefix="skr_xxxxxxxx", digest="0" * 64)


@pytest.mark.parametrize("name", ["", "-ci", "ci-", "a b", "ci/prod", "x" * 65, "émoji", "env", "ENV-ZDR"])
def test_create_token_refuses_a_bad_name(name):
    with pytest.raises(CommandError, match=r"Invalid token name|reserved"):
        run("create_token", "--", name)
    assert not ServiceToken.objects.exists()


@pytest.mark.parametrize("name", ["ci", "CI.prod", "laptop_2", "a" * 64, "team-a.ci_1"])
def test_create_token_accepts_slug_like_names(name):
    assert create(name).startswith("skr_")


def test_revoke_token_refuses_an_unknown_name():
    with pytest.raises(CommandError, match="No token named 'nope'"):
        run("revoke_token", "nope")


def test_revoke_token_refuses_a_token_already_revoked():
    create("ci")
    run("revoke_token", "ci")
    with pytest.raises(CommandError, match="already revoked"):
        run("revoke_token", "ci")


def test_list_tokens_shows_names_clearance_and_dates_but_no_secret():
    secret_one, secret_two = create("ci"), create("laptop", "--zdr")
    run("revoke_token", "ci")
    out, _ = run("list_tokens")
    lines = out.splitlines()
    assert lines[0].split() == ["NAME", "ZDR", "CREATED", "REVOKED"]
    ci, laptop = (line.split() for line in lines[1:])
    assert ci[:2] == ["ci", "no"] and ci[3] != "-"
    assert laptop[:2] == ["laptop", "yes"] and laptop[3] == "-"
    for row in ServiceToken.objects.all():
        assert row.digest not in out and row.prefix not in out
    assert secret_one not in out and secret_two not in out


def test_list_tokens_with_none():
    assert run("list_tokens")[0] == "No service tokens.\n"


def test_the_token_is_stored_only_as_a_hash():
    token = create("ci", "--zdr")
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM accounts_servicetoken")
        (row,) = cursor.fetchall()
    assert not any(token in str(cell) for cell in row)
    stored = ServiceToken.objects.get()
    assert stored.digest == tokens.token_digest(token)
    assert stored.prefix == token[: tokens.LOOKUP_PREFIX_LENGTH] and len(stored.prefix) < len(token) // 3


@pytest.mark.parametrize(
    "mangle",
    [
        lambda token: token[:-1] + ("A" if token[-1] != "A" else "B"),  # same prefix, other digest
        lambda token: token[:-1],  # too short to be ours
        lambda token: token + "A",  # too long to be ours
        lambda token: "skr_" + "A" * 43,  # well-formed, unknown
    ],
)
def test_a_wrong_service_token_is_refused_without_asking_github(bearer, github, mangle):
    token = create("ci")
    with pytest.raises(InvalidToken):
        authenticate(bearer(mangle(token)))
    assert sum(github.calls.values()) == 0


def test_a_service_token_is_looked_up_in_one_query_and_nothing_is_written(bearer, django_assert_num_queries):
    token = create("ci")
    with django_assert_num_queries(1) as captured:
        authenticate(bearer(token))
    assert captured.captured_queries[0]["sql"].lstrip().upper().startswith("SELECT")


def test_tokens_sharing_a_lookup_prefix_are_told_apart(bearer):
    token = create("ci")
    twin = token[: tokens.LOOKUP_PREFIX_LENGTH] + "B" * (len(token) - tokens.LOOKUP_PREFIX_LENGTH)
    ServiceToken.objects.create(
        name="twin", prefix=twin[: tokens.LOOKUP_PREFIX_LENGTH], digest=tokens.token_digest(twin), zdr=True
    )
    assert authenticate(bearer(token)).identity == "token:ci"
    assert authenticate(bearer(twin)) == Caller(CallerKind.TOKEN, "twin", zdr_cleared=True)


def test_environment_tokens_win_over_database_tokens(bearer, settings):
    token = create("ci")
    settings.SKILLS_ZDR_TOKENS = [token]
    assert authenticate(bearer(token)).identity == "token:env-zdr"


def test_the_domain_functions_raise_accounts_errors():
    with pytest.raises(AccountsError):
        tokens.issue("bad name")
    with pytest.raises(AccountsError):
        tokens.revoke("missing")
