"""What oauth.replay remembers of redeemed codes, in process: hashes only, and not for ever."""

from datetime import timedelta

import pytest
from django.utils import timezone

from oauth import replay
from oauth.models import RedeemedCode
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
