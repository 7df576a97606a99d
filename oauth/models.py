"""What the OAuth server remembers beyond django-oauth-toolkit's own tables (docs/reference.md#oauth)."""

from django.db import models
from oauth2_provider.settings import oauth2_settings


class RedeemedCode(models.Model):
    """An authorization code already exchanged, and what it produced (oauth.replay).

    DOT deletes the grant when its code is redeemed, so a replay would otherwise look like
    any unknown code; remembering it lets the replay revoke the tokens the code gave
    (RFC 6749 §4.1.2). Only hashes are kept: the code's SHA-256 and the checksum DOT keys the
    access token by. Rows are pruned once `expires` has passed.
    """

    # SHA-256 of the code, hex. Not unique: two redemptions racing on one code each record
    # what they issued, and a replay revokes both.
    code_digest = models.CharField(max_length=64, db_index=True)
    application = models.ForeignKey(oauth2_settings.APPLICATION_MODEL, on_delete=models.CASCADE)
    # DOT's token_checksum of the access token issued (SHA-256 of the token, hex).
    access_token_checksum = models.CharField(max_length=64)
    # The refresh token's family: every refresh token rotated from it shares it.
    token_family = models.UUIDField(null=True, blank=True)
    expires = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"redeemed code {self.code_digest[:12]}"
