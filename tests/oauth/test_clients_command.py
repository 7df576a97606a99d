"""manage.py oauth_clients: list the registered clients, revoke one with its tokens."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from oauth2_provider.models import get_access_token_model, get_application_model

from tests.support.oauth_inprocess import make_application, make_identity, make_token

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command("oauth_clients", *args, stdout=out)
    return out.getvalue()


def test_it_says_when_there_are_none() -> None:
    assert run() == "No OAuth clients are registered.\n"


def test_it_lists_clients_with_their_redirects_and_live_tokens() -> None:
    app = make_application("ChatGPT", "https://chatgpt.com/connector/oauth/abc")
    make_token("sko_one", identity=make_identity("alice", 1), application=app)
    out = run()
    assert app.client_id in out
    assert "ChatGPT" in out and "dcr/public" in out and "1 live tokens" in out
    assert "redirect https://chatgpt.com/connector/oauth/abc" in out


def test_revoke_deletes_the_client_and_every_token_it_holds() -> None:
    app = make_application()
    other = make_application("Other")
    make_token("sko_one", identity=make_identity("alice", 1), application=app)
    make_token("sko_two", identity=make_identity("bob", 2), application=other)
    assert "Revoked OAuth client" in run("--revoke", app.client_id)
    assert not get_application_model().objects.filter(pk=app.pk).exists()
    assert list(get_access_token_model().objects.values_list("application_id", flat=True)) == [other.pk]


def test_revoking_an_unknown_client_fails() -> None:
    with pytest.raises(CommandError, match="No OAuth client"):
        run("--revoke", "nope")
