"""Bearer-token authentication for /mcp.

CONTRACT (mcpapi relies on it):

    authenticate(request) -> Caller
        raises accounts.errors.AuthError subclasses:
          NotAuthenticated (401: no Authorization header, or another scheme),
          InvalidToken (401: a malformed or unknown bearer token),
          LoginNotAllowed (403: a GitHub login outside the allowlists),
          UpstreamUnavailable (503: GitHub failed, timed out or rate-limited us).
        Each carries `status` and `message`; NotAuthenticated/InvalidToken also
        `www_authenticate` (the exact header value without OAuth).

    challenge(error) -> str | None
        The WWW-Authenticate value to send: `www_authenticate`, plus RFC 9728's
        resource_metadata when OAuth is on (docs/reference.md#oauth), so OAuth clients find the
        authorization server and clients with a static header never see it.

Nothing here logs a header: the token must never reach a log line.
"""

from django.conf import settings
from django.http import HttpRequest
from rest_framework.request import Request

from accounts.callers import Caller, resolve
from accounts.errors import AuthError, InvalidToken, NotAuthenticated

KEYWORD = "bearer"
WWW_AUTHENTICATE = 'Bearer realm="mcp"'


def bearer_token(request: HttpRequest | Request) -> str | None:
    """The token of an `Authorization: Bearer <token>` header.

    None when there are no bearer credentials (no header, or another scheme);
    InvalidToken when the bearer credentials are malformed (empty, or more
    than one word). The scheme is case-insensitive (RFC 7235).
    """
    parts = request.META.get("HTTP_AUTHORIZATION", "").split()
    if not parts or parts[0].lower() != KEYWORD:
        return None
    if len(parts) != 2:
        raise InvalidToken()
    return parts[1]


def authenticate(request: HttpRequest | Request) -> Caller:
    token = bearer_token(request)
    if token is None:
        raise NotAuthenticated()
    return resolve(token)


def challenge(error: AuthError) -> str | None:
    value = error.www_authenticate
    if value and settings.OAUTH_ENABLED:
        value += f', resource_metadata="{settings.OAUTH_RESOURCE_METADATA_URL}"'
    return value
