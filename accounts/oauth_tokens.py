"""OAuth access tokens presented to /mcp (docs/reference.md#oauth): whose GitHub identity is this token?

    identity_for(token) -> GitHubIdentity
        raises InvalidToken for anything that is not a live access token issued by this
        server for exactly OAUTH_RESOURCE with the skills:read scope, to a user who
        signed in through GitHub. Whether that login may still come in is not decided
        here: accounts.callers asks the allowlists on every request.

The tokens are django-oauth-toolkit's (stored as SHA-256 checksums only). Knows
nothing of the OAuth web flow (the `oauth` app) or of MCP.
"""

import hashlib

from django.conf import settings
from oauth2_provider.models import get_access_token_model

from accounts.errors import InvalidToken
from accounts.models import GitHubIdentity
from accounts.oauth_names import REQUIRED_SCOPE, TOKEN_PREFIX


def is_oauth_token(token: str) -> bool:
    """Whether the token claims to be one this server issued. Such a token is never sent to GitHub."""
    return token.startswith(TOKEN_PREFIX)


def identity_for(token: str) -> GitHubIdentity:
    if not settings.OAUTH_ENABLED:
        raise InvalidToken()
    checksum = hashlib.sha256(token.encode()).hexdigest()
    row = (
        get_access_token_model()
        .objects.select_related("user__github_identity")
        .filter(token_checksum=checksum)
        .first()
    )
    if row is None or row.is_expired() or row.application_id is None:
        raise InvalidToken()
    # DCR registration tokens live in the same table with another scope: never a read token.
    if REQUIRED_SCOPE not in row.scope.split():
        raise InvalidToken()
    # RFC 8707: bound to this resource and nothing else. DOT itself treats a token
    # without `resource` as good for any audience; here it is good for none.
    if row.resource != [settings.OAUTH_RESOURCE]:
        raise InvalidToken()
    identity = getattr(row.user, "github_identity", None) if row.user is not None else None
    if identity is None:
        raise InvalidToken()
    return identity
