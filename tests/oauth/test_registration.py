"""Dynamic client registration (docs/reference.md#oauth), in process: what a redirect URI may hold."""

import pytest
from django.test import Client
from oauth2_provider.models import get_application_model

from tests.support.oauth_flow import CLAUDE_CALLBACK
from tests.support.oauth_inprocess import turn_oauth_on

pytestmark = pytest.mark.django_db

# One of each: line and paragraph separators, an ideographic and a no-break space, NEL (a C1
# control), a bidi override and a zero-width space (format characters), a tab, DEL.
HIDDEN = ["\u2028", "\u2029", "\u3000", "\u00a0", "\u0085", "\u202e", "\u200b", "\t", "\x7f"]


@pytest.fixture(autouse=True)
def oauth_on(settings) -> None:
    turn_oauth_on(settings)


def register(*uris: str):
    body = {"redirect_uris": list(uris), "token_endpoint_auth_method": "none", "client_name": "x"}
    return Client().post("/oauth/register/", data=body, content_type="application/json")


def test_an_allowed_redirect_uri_registers() -> None:
    response = register(CLAUDE_CALLBACK)
    assert response.status_code == 201, response.content
    assert get_application_model().objects.get().redirect_uris.split() == [CLAUDE_CALLBACK]


@pytest.mark.parametrize("hidden", HIDDEN, ids=lambda char: f"U+{ord(char):04X}")
def test_a_redirect_uri_holding_a_separator_or_an_invisible_character_is_refused_and_nothing_stored(
    hidden: str,
) -> None:
    # Before: U+2028, U+3000, U+0085... passed the host check (the host is claude.ai) and DOT
    # stored the URIs split at them, so https://evil.example.com/cb became a redirect URI.
    smuggled = f"{CLAUDE_CALLBACK}{hidden}https://evil.example.com/cb"
    response = register(smuggled)
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid_redirect_uri"
    # The refused URI is named, its hidden character shown as an escape.
    assert f"{CLAUDE_CALLBACK}\\u{ord(hidden):04x}https://evil.example.com/cb" in body["error_description"]
    assert not get_application_model().objects.exists()


def test_the_refusal_names_the_one_refused_uri_among_good_ones() -> None:
    response = register(CLAUDE_CALLBACK, "https://evil.example.com/cb")
    assert response.status_code == 400
    assert "'https://evil.example.com/cb'" in response.json()["error_description"]
    assert not get_application_model().objects.exists()
