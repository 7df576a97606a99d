"""django-oauth-toolkit, bent to docs/reference.md#oauth where its settings are not enough.

- RegistryServer: the authorization endpoint requires RFC 8707 `resource`, and it must
  be exactly OAUTH_RESOURCE (PUBLIC_BASE_URL/mcp). DOT accepts a request without one
  and issues a token good for any audience; this refuses it with invalid_target.
- RegistryValidator: a redirect URI must pass the registration rule again at
  authorization time, so a client stored some other way cannot redirect elsewhere; and a
  replayed authorization code revokes the tokens it was exchanged for (oauth.replay).
- generate_token / ClientSecretGenerator: what we issue carries TOKEN_PREFIX.
"""

import secrets
from typing import Any

from django.conf import settings
from oauth2_provider.generators import BaseHashGenerator
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauthlib.common import Request
from oauthlib.oauth2 import Server
from oauthlib.oauth2.rfc6749.errors import CustomOAuth2Error, InvalidGrantError

from accounts.oauth_names import TOKEN_PREFIX
from oauth import replay
from oauth.conf import redirect_uri_allowed

_TOKEN_RANDOM_BYTES = 32


def generate_token(request: object = None) -> str:
    """An access or refresh token: the prefix and 256 random bits."""
    return TOKEN_PREFIX + secrets.token_urlsafe(_TOKEN_RANDOM_BYTES)


class ClientSecretGenerator(BaseHashGenerator):
    """Client secrets and DCR registration tokens: marked as ours like the tokens, so /mcp
    refuses a registration token without asking GitHub about it."""

    def hash(self) -> str:
        return generate_token()


def requested_resources(value: object) -> list[str]:
    """oauthlib keeps one `resource` from a query string, the form keeps a list: one shape."""
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list | tuple):
        return [item for item in value if isinstance(item, str)]
    return []


def require_registry_resource(request: object) -> dict:
    """A post-authorization validator (oauthlib runs it on the consent page's GET and again
    on its POST): exactly one `resource`, and it is this registry's /mcp."""
    if requested_resources(getattr(request, "resource", None)) != [settings.OAUTH_RESOURCE]:
        raise CustomOAuth2Error(
            error="invalid_target",
            description=f"resource must be {settings.OAUTH_RESOURCE} (RFC 8707).",
            request=request,
        )
    return {}


class RegistryServer(Server):
    def __init__(self, request_validator: OAuth2Validator, *args: object, **kwargs: object) -> None:
        super().__init__(request_validator, *args, **kwargs)
        self.auth_grant.custom_validators.post_auth.append(require_registry_resource)


class RegistryValidator(OAuth2Validator):
    def validate_redirect_uri(
        self, client_id: str, redirect_uri: str, request: Request, *args: Any, **kwargs: Any
    ) -> bool:
        return redirect_uri_allowed(
            redirect_uri, settings.OAUTH_ALLOWED_REDIRECT_HOSTS
        ) and super().validate_redirect_uri(client_id, redirect_uri, request, *args, **kwargs)

    def save_bearer_token(self, token: dict[str, Any], request: Request, *args: Any, **kwargs: Any) -> None:
        super().save_bearer_token(token, request, *args, **kwargs)
        if request.grant_type == "authorization_code":
            replay.remember(request.code, request.client, token["access_token"], token.get("refresh_token"))

    def validate_code(
        self, client_id: str, code: str, client: Any, request: Request, *args: Any, **kwargs: Any
    ) -> bool:
        if super().validate_code(client_id, code, client, request, *args, **kwargs):
            return True
        # A code DOT no longer knows: unknown, expired, or already redeemed (a replay).
        replay.revoke_for(code, client)
        return False

    def invalidate_authorization_code(
        self, client_id: str, code: str, request: Request, *args: Any, **kwargs: Any
    ) -> None:
        try:
            super().invalidate_authorization_code(client_id, code, request, *args, **kwargs)
        except InvalidGrantError:
            # Two redemptions of one code raced and the other deleted the grant first: this
            # one's tokens are already stored, and both sets are revoked.
            replay.revoke_for(code, request.client)
            raise
