"""A replayed authorization code revokes what it was exchanged for (docs/reference.md#oauth;
RFC 6749 §4.1.2, OAuth 2.1 §4.1.3).

    remember(code, application, access_token, refresh_token)
        At redemption: record the code's hash with the tokens it produced, and prune the
        records whose time has passed.
    revoke_for(code, application) -> bool
        At a replay (a code DOT no longer knows, or a second redemption racing the first):
        revoke the access token and the whole refresh-token family each redemption of this
        code produced; True when there was anything recorded.

A code is remembered for REMEMBER_SECONDS after its redemption: a stolen code is replayed by
whoever redeems second, seconds after the first (its lifetime is 60 s); after that a replay is
simply invalid_grant.
"""

import hashlib
import logging
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from oauth2_provider.models import AbstractApplication, get_access_token_model, get_refresh_token_model

from oauth.conf import ACCESS_TOKEN_SECONDS
from oauth.models import RedeemedCode

logger = logging.getLogger(__name__)

# As long as the access token it produced lives: a replay within that time revokes it.
REMEMBER_SECONDS = ACCESS_TOKEN_SECONDS


def code_digest(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def remember(
    code: str, application: AbstractApplication, access_token: str, refresh_token: str | None
) -> None:
    now = timezone.now()
    family = None
    if refresh_token:
        checksum = hashlib.sha256(refresh_token.encode()).hexdigest()
        family = (
            get_refresh_token_model()
            .objects.filter(token_checksum=checksum)
            .values_list("token_family", flat=True)
            .first()
        )
    with transaction.atomic():
        RedeemedCode.objects.filter(expires__lt=now).delete()
        RedeemedCode.objects.create(
            code_digest=code_digest(code),
            application=application,
            access_token_checksum=hashlib.sha256(access_token.encode()).hexdigest(),
            token_family=family,
            expires=now + timedelta(seconds=REMEMBER_SECONDS),
        )


def revoke_for(code: str, application: AbstractApplication) -> bool:
    with transaction.atomic():
        redeemed = list(
            RedeemedCode.objects.select_for_update().filter(
                code_digest=code_digest(code), application=application, expires__gte=timezone.now()
            )
        )
        for row in redeemed:
            get_access_token_model().objects.filter(token_checksum=row.access_token_checksum).delete()
            get_refresh_token_model().revoke_family(row.token_family)
    if redeemed:
        logger.warning(
            "An authorization code of client %s was presented again: the tokens it was exchanged for "
            "are revoked",
            application.client_id,
        )
    return bool(redeemed)
