"""Why a request was not let in, and why an operator's command was refused.

mcpapi turns AuthError into an HTTP answer from `status`, `message`,
`www_authenticate` (the exact header value, or None) and `retry_after` (seconds, or
None). Each class is also the matching Django REST framework exception, so a DRF view
(bench/view_overhead.py's) answers with the same status instead of a 500.
"""

from rest_framework import exceptions


class AuthError(exceptions.APIException):
    status = 401
    message = "Authentication required."
    www_authenticate: str | None = 'Bearer realm="mcp"'
    retry_after: int | None = None

    def __init__(self, message: str | None = None) -> None:
        if message:
            self.message = message
        super().__init__(detail=self.message)
        self.status_code = self.status


class NotAuthenticated(AuthError, exceptions.NotAuthenticated):
    """No credentials at all: RFC 6750 says the challenge then carries no error code."""


class InvalidToken(AuthError, exceptions.AuthenticationFailed):
    message = "The bearer token is invalid."
    www_authenticate = 'Bearer realm="mcp", error="invalid_token"'


class LoginNotAllowed(AuthError, exceptions.PermissionDenied):
    status = 403
    message = "This GitHub account is not allowed to use this registry."
    www_authenticate = None


class UpstreamUnavailable(AuthError):
    status = 503
    message = "The identity provider could not be reached; try again shortly."
    www_authenticate = None
    # RFC 9110 §10.2.3: when to try again. Short: GitHub outages, full slots and database
    # blips are mostly seconds long, and a client that waits longer loses nothing.
    retry_after = 5


class StoreUnavailable(UpstreamUnavailable):
    """The database that holds tokens and logins cannot be read: nobody is let in, and
    nobody is told their token is bad either."""

    message = "Unavailable: the registry cannot check credentials right now; try again shortly."


class AccountsError(Exception):
    """A management command's request that cannot be carried out; the message says why."""
