"""What oauth.replay remembers of redeemed codes, in process: hashes only, and not for ever."""

from datetime import timedelta

import pytest
from django.utils import timezone
from oauthlib.common import Request
from oauthlib.oauth2.rfc6749.errors import InvalidGrantError

from oauth import replay
from oauth.models import RedeemedCode
from oauth.server import RegistryValidator
from tests.support.oauth_inprocess import make_application, make_identity, make_token

pytestmark = pytest.mark.django_db


def test_a_redeemed_code_is_remembered_by_its_hash_only() -> None:
    replay.remember("the-code", make_application(), "sko_access", None)
    row = RedeemedCode.objects.get()
    assert row.code_digest == replay.code_digest("the-code") != "the-code"
    assert "sko_access" not in row.access_token_checksum


def test_records_whose_time_has_passed_are_pruned_at_the_next_redemption() -> None:
    application = make_application()
    replay.remember("old-code", application, "sko_old", None)
    RedeemedCode.objects.update(expires=timezone.now() - timedelta(seconds=1))
    replay.remember("new-code", application, "sko_new", None)
    assert list(RedeemedCode.objects.values_list("code_digest", flat=True)) == [
        replay.code_digest("new-code")
    ]


def test_a_replay_after_the_record_expired_revokes_nothing() -> None:
    application = make_application()
    make_token("sko_kept", identity=make_identity("alice", 1), application=application)
    replay.remember("late-code", application, "sko_kept", None)
    RedeemedCode.objects.update(expires=timezone.now() - timedelta(seconds=1))
    assert replay.revoke_for("late-code", application) is False
    assert application.accesstoken_set.count() == 1


def test_the_loser_of_two_redemptions_racing_on_one_code_revokes_both() -> None:
    # Both redemptions passed validate_code and stored their tokens; the first deleted the
    # grant, so the second finds nothing to delete: a replay, after the fact.
    application = make_application()
    identity = make_identity("alice", 1)
    for token in ("sko_first", "sko_second"):
        make_token(token, identity=identity, application=application)
        replay.remember("raced-code", application, token, None)
    request = Request("https://testserver/oauth/token/")
    request.client = application
    with pytest.raises(InvalidGrantError):
        RegistryValidator().invalidate_authorization_code(application.client_id, "raced-code", request)
    assert application.accesstoken_set.count() == 0
