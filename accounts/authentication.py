"""Bearer-token authentication for /mcp.

CONTRACT (mcpapi relies on it):

    authenticate(request) -> Caller
        raises accounts.errors.AuthError subclasses:
          NotAuthenticated (401, no credentials), InvalidToken (401),
          LoginNotAllowed (403), UpstreamUnavailable (503).
        Each carries `status` and `message`; NotAuthenticated/InvalidToken also
        `www_authenticate` (the exact header value).

PLACEHOLDER: static env tokens only; the callers work replaces this with the
full chain (env tokens, database tokens, GitHub PATs).
"""

import hmac

from django.conf import settings
from django.http import HttpRequest

from accounts.callers import Caller
from accounts.errors import InvalidToken, NotAuthenticated


def authenticate(request: HttpRequest) -> Caller:
    header = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise NotAuthenticated()
    token = token.strip()
    for candidate in settings.SKILLS_ZDR_TOKENS:
        if hmac.compare_digest(candidate.encode(), token.encode()):
            return Caller(identity="token:env-zdr", zdr_cleared=True)
    for candidate in settings.SKILLS_READ_TOKENS:
        if hmac.compare_digest(candidate.encode(), token.encode()):
            return Caller(identity="token:env", zdr_cleared=False)
    raise InvalidToken()
