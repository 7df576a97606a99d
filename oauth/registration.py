"""Dynamic client registration's own rules (docs/reference.md#oauth), checked before
django-oauth-toolkit sees the metadata: redirect URIs only on the allowed hosts (the rule is
oauth.conf.redirect_uri_allowed), and only the grants the server issues.

    registration_refusal(body) -> JsonResponse | None
        None when the metadata may go on to DOT; else the RFC 7591 error answer.
"""

import json

from django.conf import settings
from django.http import JsonResponse

from oauth.conf import has_hidden_characters, redirect_uri_allowed

_REGISTRABLE_GRANTS = {"authorization_code", "refresh_token"}
_MAX_SHOWN_URI = 200


def registration_refusal(body: bytes) -> JsonResponse | None:
    """None when the metadata may go on to DOT; else the RFC 7591 error answer."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None  # DOT answers malformed JSON itself
    if not isinstance(data, dict):
        return None
    uris = data.get("redirect_uris")
    allowed_hosts = settings.OAUTH_ALLOWED_REDIRECT_HOSTS
    if isinstance(uris, list):
        refused = next((uri for uri in uris if not redirect_uri_allowed(uri, allowed_hosts)), None)
        if refused is not None:
            hosts = ", ".join(allowed_hosts) or "(none)"
            return JsonResponse(
                {
                    "error": "invalid_redirect_uri",
                    "error_description": f"Redirect URI {_shown(refused)} is refused: redirect URIs must "
                    f"be https on one of: {hosts}; or http on 127.0.0.1 or localhost; with no "
                    "whitespace, separator, control or format character.",
                },
                status=400,
            )
    grants = data.get("grant_types", ["authorization_code"])
    if not isinstance(grants, list) or not set(grants) <= _REGISTRABLE_GRANTS:
        return JsonResponse(
            {
                "error": "invalid_client_metadata",
                "error_description": "Only the authorization_code and refresh_token grants are supported.",
            },
            status=400,
        )
    return None


def _shown(uri: object) -> str:
    """A refused URI as an error message may quote it: bounded, its hidden characters escaped
    (\\u2028 rather than a line break), so the client sees exactly what was refused."""
    if not isinstance(uri, str):
        return f"{type(uri).__name__} value"
    escaped = "".join(char if not has_hidden_characters(char) else f"\\u{ord(char):04x}" for char in uri)
    return f"'{escaped[:_MAX_SHOWN_URI]}{'...' if len(escaped) > _MAX_SHOWN_URI else ''}'"
