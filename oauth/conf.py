"""OAuth configuration, derived from the environment in skillsite/settings.py (docs/reference.md#oauth).

Pure functions of plain values (no Django imports), so that settings.py, the
system checks and the tests all derive the same things the same way.
"""

import unicodedata
from urllib.parse import urlsplit

from accounts.oauth_names import REQUIRED_SCOPE

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})

ACCESS_TOKEN_SECONDS = 3600
REFRESH_TOKEN_SECONDS = 30 * 24 * 3600
AUTHORIZATION_CODE_SECONDS = 60
SIGN_IN_SESSION_SECONDS = 3600


def base_url_problem(url: str) -> str | None:
    """Why `url` cannot be PUBLIC_BASE_URL (https://host[:port], or http on loopback), or None."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return "it is not a URL"
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return "it must be https://host (or http://127.0.0.1:PORT / http://localhost:PORT)"
    if parts.scheme == "http" and parts.hostname not in LOOPBACK_HOSTS:
        return "it must be https unless the host is loopback (127.0.0.1, localhost)"
    if parts.path not in ("", "/") or parts.query or parts.fragment or "@" in parts.netloc:
        return "it must be the origin only: no path, query, fragment or user name"
    return None


# Characters no redirect URI may hold: controls, invisible format characters (bidi overrides,
# zero-width ones) and every separator. DOT stores a client's URIs joined by spaces and splits
# them with str.split(), which also splits at U+2028, U+3000, U+0085...: one URI holding one
# of them would be stored as two, the second never checked against the allowed hosts.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})


def has_hidden_characters(uri: str) -> bool:
    return any(char.isspace() or unicodedata.category(char) in _HIDDEN_CATEGORIES for char in uri)


def redirect_uri_allowed(uri: str, allowed_hosts: list[str]) -> bool:
    """The registration rule (docs/reference.md#oauth): https on one of `allowed_hosts` (exact names, the
    default port), or http on loopback with any port. No user info, no fragment, and no
    whitespace, separator, control or format character anywhere."""
    if not isinstance(uri, str) or "#" in uri or has_hidden_characters(uri):
        return False
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError:
        return False
    host = (parts.hostname or "").lower()
    if not host or "@" in parts.netloc:
        return False
    if parts.scheme == "http":
        return host in LOOPBACK_HOSTS
    if parts.scheme == "https":
        return port in (None, 443) and host in {item.lower() for item in allowed_hosts}
    return False


def provider_settings(public_base_url: str) -> dict:
    """django-oauth-toolkit's OAUTH2_PROVIDER for this registry.

    Every RFC 9700 gate is on (S256 only, `iss` on redirects, hashed tokens, refresh
    replay revoking the family), except the redirect-scheme gate: `http` must stay
    allowed for loopback clients, and the host rule in redirect_uri_allowed (checked at
    registration and again at authorization) is stricter than that gate.
    """
    resource = f"{public_base_url}/mcp" if public_base_url else ""
    return {
        "SCOPES": {REQUIRED_SCOPE: "Read the skills in this registry"},
        "DEFAULT_SCOPES": [REQUIRED_SCOPE],
        "PKCE_REQUIRED": True,
        "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
        "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
        "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
        "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
        "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
        "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
        "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
        "COMPLIANT_BCP_RFC9700_REDIRECT_URI_MATCHING": True,
        "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
        "REFRESH_TOKEN_REUSE_PROTECTION": True,
        "ROTATE_REFRESH_TOKEN": True,
        "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
        "ACCESS_TOKEN_EXPIRE_SECONDS": ACCESS_TOKEN_SECONDS,
        "REFRESH_TOKEN_EXPIRE_SECONDS": REFRESH_TOKEN_SECONDS,
        "AUTHORIZATION_CODE_EXPIRE_SECONDS": AUTHORIZATION_CODE_SECONDS,
        "REQUEST_APPROVAL_PROMPT": "force",
        "ALLOWED_REDIRECT_URI_SCHEMES": ["https", "http"],
        "ALLOW_LOCALHOST_LOOPBACK": True,
        "OAUTH2_SERVER_CLASS": "oauth.server.RegistryServer",
        "OAUTH2_VALIDATOR_CLASS": "oauth.server.RegistryValidator",
        "ACCESS_TOKEN_GENERATOR": "oauth.server.generate_token",
        "REFRESH_TOKEN_GENERATOR": "oauth.server.generate_token",
        "CLIENT_SECRET_GENERATOR_CLASS": "oauth.server.ClientSecretGenerator",
        "DCR_ENABLED": True,
        # Open registration, as MCP clients expect; the redirect-host rule is what limits it.
        "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
        "CIMD_ENABLED": False,
        "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
        "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
        "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["none", "client_secret_basic", "client_secret_post"],
        # The issuer and the endpoint URLs come from PUBLIC_BASE_URL, never from the request's
        # Host header or scheme (which a misconfigured proxy could get wrong).
        "OIDC_ISS_ENDPOINT": public_base_url,
        "OAUTH2_PROTECTED_RESOURCE_IDENTIFIER": resource,
        "OAUTH2_PROTECTED_RESOURCE_AUTHORIZATION_SERVERS": [public_base_url] if public_base_url else [],
        "OAUTH2_PROTECTED_RESOURCE_NAME": "Skills Registry",
    }


def with_session_middleware(middleware: list[str]) -> list[str]:
    """`middleware` plus sessions (after SecurityMiddleware) and authentication (after CSRF):
    only the sign-in and consent pages use them, and only when OAuth is on."""
    result = list(middleware)
    session = "django.contrib.sessions.middleware.SessionMiddleware"
    auth = "django.contrib.auth.middleware.AuthenticationMiddleware"
    if session not in result:
        security = "django.middleware.security.SecurityMiddleware"
        result.insert(result.index(security) + 1 if security in result else 0, session)
    if auth not in result:
        csrf = "django.middleware.csrf.CsrfViewMiddleware"
        result.insert(result.index(csrf) + 1 if csrf in result else result.index(session) + 1, auth)
    return result
