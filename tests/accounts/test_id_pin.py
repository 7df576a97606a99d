"""The id pin holds for GitHub PATs too (docs/reference.md#callers-and-clearance; finding 3
of issue 15: the PAT path checked the login only, so after a rename whoever registered the
freed login got in with a PAT, with the old user's ZDR clearance)."""

import pytest
from django.test import Client

from accounts.authentication import authenticate
from accounts.errors import LoginNotAllowed
from accounts.github import GitHubUser
from accounts.models import AllowedLogin
from oauth.signin import sign_in
from tests.support.tokens import BOB_TOKEN

pytestmark = pytest.mark.django_db

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
NEWCOMER_TOKEN = "ghp_newcomer000000000000000000000000000000"


def test_a_pat_of_another_account_under_a_pinned_login_is_refused_403_json(github):
    # bob (id 1002) signed in through OAuth once: his database row is pinned to his id.
    AllowedLogin.objects.create(login="bob", zdr=True)
    sign_in(GitHubUser(login="bob", id=1002))
    assert AllowedLogin.objects.get(login="bob").github_id == 1002
    # bob renames; someone else registers "bob" on GitHub and brings a PAT.
    github.add_user(NEWCOMER_TOKEN, "bob", 7777)
    response = Client().post(
        "/mcp",
        data=PING,
        content_type="application/json",
        headers={"Authorization": f"Bearer {NEWCOMER_TOKEN}"},
    )
    assert response.status_code == 403
    assert response["Content-Type"] == "application/json"
    assert not response.has_header("WWW-Authenticate")
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["id"] is None and body["error"]["message"]
    assert github.calls[NEWCOMER_TOKEN] == 1


def test_a_pat_of_the_pinned_account_is_let_in_with_its_clearance(bearer, github):
    AllowedLogin.objects.create(login="bob", zdr=True, github_id=1002)
    caller = authenticate(bearer(BOB_TOKEN))
    assert (caller.identity, caller.zdr_cleared) == ("github:bob", True)


def test_a_pinned_login_whose_github_answer_names_no_id_is_refused(bearer, github):
    AllowedLogin.objects.create(login="bob", github_id=1002)
    github.users[NEWCOMER_TOKEN] = {"login": "bob"}  # no id: nothing proves it is the same account
    with pytest.raises(LoginNotAllowed):
        authenticate(bearer(NEWCOMER_TOKEN))


def test_an_unpinned_login_lets_in_any_pat_of_that_login(bearer, github):
    AllowedLogin.objects.create(login="bob")
    github.add_user(NEWCOMER_TOKEN, "bob", 7777)
    assert authenticate(bearer(NEWCOMER_TOKEN)).identity == "github:bob"


def test_the_pin_survives_the_cache(bearer, github):
    # The GitHub answer is cached with its id: a pin recorded after it still holds.
    AllowedLogin.objects.create(login="bob")
    github.add_user(NEWCOMER_TOKEN, "bob", 7777)
    authenticate(bearer(NEWCOMER_TOKEN))
    AllowedLogin.objects.filter(login="bob").update(github_id=1002)
    with pytest.raises(LoginNotAllowed):
        authenticate(bearer(NEWCOMER_TOKEN))
    assert github.calls[NEWCOMER_TOKEN] == 1
