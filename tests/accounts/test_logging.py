"""No token ever reaches a log line, whatever happens to the request."""

import logging
from io import StringIO

import pytest
from django.core.management import call_command

from accounts.authentication import authenticate
from accounts.errors import AuthError
from tests.support import github_standin as standin
from tests.support.tokens import ALICE_TOKEN, BOB_TOKEN, CAROL_TOKEN, READ_TOKEN, ZDR_TOKEN


@pytest.mark.django_db
def test_no_token_appears_in_any_log_output(bearer, github, settings, caplog, capfd):
    # DEBUG on: Django then also logs every SQL query with its parameters.
    settings.DEBUG = True
    settings.GITHUB_TIMEOUT_SECONDS = 0.3
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="django")  # Django sets its own loggers to INFO

    specials = [
        standin.special(kind)
        for kind in (
            standin.BAD,
            standin.BOOM,
            standin.RATELIMIT,
            standin.TOOMANY,
            standin.HANG,
            standin.DRIP,
            standin.GARBAGE,
            standin.HUGE,
            standin.REDIRECT,
        )
    ]
    out = StringIO()
    call_command("create_token", "ci", stdout=out, stderr=StringIO())
    service_token = out.getvalue().strip()
    seen = [READ_TOKEN, ZDR_TOKEN, ALICE_TOKEN, BOB_TOKEN, CAROL_TOKEN, service_token, *specials]

    outcomes = []
    for token in [*seen, *seen]:  # twice: the cached paths too
        try:
            outcomes.append(authenticate(bearer(token)).identity)
        except AuthError as exc:
            outcomes.append(exc.status)
    call_command("revoke_token", "ci", stdout=StringIO())
    with pytest.raises(AuthError):
        authenticate(bearer(service_token))
    for header in ("Bearer", f"Bearer {ALICE_TOKEN} extra", f"Basic {ALICE_TOKEN}"):
        request = bearer(None)
        request.META["HTTP_AUTHORIZATION"] = header
        with pytest.raises(AuthError):
            authenticate(request)

    # Every flow ran (and logged something), so the check below is not vacuous.
    assert {"token:env", "token:env-zdr", "github:alice", "token:ci", 401, 403, 503} <= set(outcomes)
    assert any(record.name == "accounts.github" for record in caplog.records)
    assert any(record.name == "django.db.backends" for record in caplog.records)
    captured = capfd.readouterr()
    logged = caplog.text + captured.out + captured.err
    for token in seen:
        assert token not in logged
