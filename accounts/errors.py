"""Why a request was not let in; mcpapi turns these into HTTP answers."""


class AuthError(Exception):
    status = 401
    message = "Authentication required."
    www_authenticate: str | None = 'Bearer realm="mcp"'

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or self.message)
        if message:
            self.message = message


class NotAuthenticated(AuthError):
    pass


class InvalidToken(AuthError):
    message = "The bearer token is invalid."
    www_authenticate = 'Bearer realm="mcp", error="invalid_token"'


class LoginNotAllowed(AuthError):
    status = 403
    message = "This GitHub account is not allowed to use this registry."
    www_authenticate = None


class UpstreamUnavailable(AuthError):
    status = 503
    message = "The identity provider could not be reached; try again shortly."
    www_authenticate = None
