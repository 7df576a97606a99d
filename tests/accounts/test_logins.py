"""The GitHub login commands."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, transaction

from accounts.models import AllowedLogin

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_allow_login_stores_the_login_lower_cased():
    out, _ = run("allow_login", "Dave-Smith")
    assert out == "Allowed GitHub login 'dave-smith' (zdr: no).\n"
    assert list(AllowedLogin.objects.values_list("login", "zdr")) == [("dave-smith", False)]


def test_allow_login_with_zdr_clears_it():
    run("allow_login", "dave", "--zdr")
    assert AllowedLogin.objects.get(login="dave").zdr is True


def test_allow_login_again_updates_the_clearance_both_ways():
    run("allow_login", "dave")
    out, _ = run("allow_login", "DAVE", "--zdr")
    assert out == "Updated GitHub login 'dave' (zdr: yes).\n"
    assert AllowedLogin.objects.get(login="dave").zdr is True
    run("allow_login", "dave")
    assert AllowedLogin.objects.get(login="dave").zdr is False
    assert AllowedLogin.objects.count() == 1


@pytest.mark.parametrize("login", ["", "-dave", "dave-", "da--ve", "da_ve", "da ve", "d" * 40, "dävé", "a/b"])
def test_allow_login_refuses_what_cannot_be_a_github_login(login):
    with pytest.raises(CommandError, match="Invalid GitHub login"):
        run("allow_login", "--", login)
    assert not AllowedLogin.objects.exists()


@pytest.mark.parametrize("login", ["d", "d" * 39, "a-b-c", "Dave2"])
def test_allow_login_accepts_github_logins(login):
    run("allow_login", login)
    assert AllowedLogin.objects.filter(login=login.lower()).exists()


def test_disallow_login_removes_it():
    run("allow_login", "dave")
    out, err = run("disallow_login", "Dave")
    assert out == "Removed GitHub login 'dave'.\n" and err == ""
    assert not AllowedLogin.objects.exists()


def test_disallow_login_refuses_an_unknown_login():
    with pytest.raises(CommandError, match="not in the database list"):
        run("disallow_login", "nobody")


def test_disallow_login_warns_when_the_environment_still_lets_it_in():
    run("allow_login", "alice")
    _, err = run("disallow_login", "alice")
    assert "still listed in ALLOWED_GITHUB_LOGINS" in err


def test_list_logins_shows_both_sources():
    run("allow_login", "dave", "--zdr")
    out, _ = run("list_logins")
    assert out.splitlines() == [
        "LOGIN  ZDR  SOURCE",
        "alice  no   ALLOWED_GITHUB_LOGINS",
        "carol  yes  ZDR_GITHUB_LOGINS",
        "dave   yes  database",
    ]


def test_list_logins_with_none(settings):
    settings.ALLOWED_GITHUB_LOGINS = []
    settings.ZDR_GITHUB_LOGINS = []
    assert run("list_logins")[0] == "No GitHub logins are allowed.\n"


def test_the_database_refuses_a_login_that_is_not_lower_case():
    with pytest.raises(IntegrityError), transaction.atomic():
        AllowedLogin.objects.create(login="Dave")
