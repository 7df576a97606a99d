"""Callers kept in the database: service tokens (hashed) and allowed GitHub logins.

Serving only reads these tables (no "last used" stamp), so a request never
writes and a revocation or removal is seen by the very next request.
"""

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone


class ServiceToken(models.Model):
    # Unique among active tokens only, so a token can be rotated under the same
    # name (revoke, then create again) while the revoked row stays as history.
    name = models.CharField(max_length=64)
    # The first characters of the token ("skr_" + 8 random ones): narrows the
    # lookup to a row or two before the digests are compared in constant time.
    prefix = models.CharField(max_length=16, db_index=True)
    # SHA-256 of the whole token, hex. See accounts.tokens.token_digest for why
    # a plain hash (not an HMAC keyed with SECRET_KEY) is enough here.
    digest = models.CharField(max_length=64, unique=True)
    zdr = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["name"],
                condition=models.Q(revoked_at__isnull=True),
                name="accounts_servicetoken_one_active_per_name",
            )
        ]

    def __str__(self) -> str:
        return f"token:{self.name}"


class AllowedLogin(models.Model):
    # GitHub logins are case-insensitive; storing them lower-cased keeps the
    # unique constraint and the lookup honest.
    login = models.CharField(max_length=39, unique=True)
    zdr = models.BooleanField(default=False)
    # Filled by the OAuth sign-in later (a login can be renamed; the id cannot).
    github_id = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(login=Lower("login")), name="accounts_allowedlogin_login_lower_case"
            )
        ]

    def __str__(self) -> str:
        return f"github:{self.login}"


class GitHubIdentity(models.Model):
    """The GitHub account behind a Django user, recorded at OAuth sign-in (docs/reference.md#oauth).

    Keyed by GitHub's numeric id, which never changes; `login` is the name seen at the
    last sign-in, and is what the allowlists are checked against on every request.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="github_identity"
    )
    github_id = models.BigIntegerField(unique=True)
    login = models.CharField(max_length=39)
    signed_in_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"github:{self.login} ({self.github_id})"
