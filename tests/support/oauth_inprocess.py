"""OAuth on inside the test process (django.test.Client), and rows made directly:
for what is quicker or only possible to check without gunicorn."""

import hashlib
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

from accounts.models import GitHubIdentity
from oauth.conf import provider_settings, with_session_middleware

BASE_URL = "http://testserver"
RESOURCE = f"{BASE_URL}/mcp"
METADATA_URL = f"{BASE_URL}/.well-known/oauth-protected-resource/mcp"


def turn_oauth_on(settings, github_url: str = "http://127.0.0.1:9") -> None:
    """What skillsite/settings.py derives from the three variables, for pytest-django's `settings`."""
    settings.GITHUB_OAUTH_CLIENT_ID = "Iv1.inprocess"
    settings.GITHUB_OAUTH_CLIENT_SECRET = "inprocess-secret"
    settings.PUBLIC_BASE_URL = BASE_URL
    settings.GITHUB_OAUTH_URL = github_url
    settings.OAUTH_ENABLED = True
    settings.OAUTH_RESOURCE = RESOURCE
    settings.OAUTH_RESOURCE_METADATA_URL = METADATA_URL
    settings.OAUTH2_PROVIDER = provider_settings(BASE_URL)
    settings.MIDDLEWARE = with_session_middleware(settings.MIDDLEWARE)
    settings.SESSION_COOKIE_SECURE = False
    settings.CSRF_COOKIE_SECURE = False


def make_identity(login: str, github_id: int) -> GitHubIdentity:
    user = get_user_model().objects.create_user(username=f"github-{github_id}")
    return GitHubIdentity.objects.create(user=user, login=login, github_id=github_id)


def make_application(name: str = "Client", redirect_uri: str = "https://claude.ai/api/mcp/auth_callback"):
    return get_application_model().objects.create(
        name=name,
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris=redirect_uri,
        registration_source="dcr",
    )


def make_token(
    token: str,
    *,
    identity: GitHubIdentity | None,
    application=None,
    resource: list[str] | None = None,
    scope: str = "skills:read",
    expires_in: int = 3600,
):
    """An access-token row as DOT stores it (only the checksum of the token)."""
    row = get_access_token_model()(
        user=identity.user if identity is not None else None,
        application=application if application is not None else make_application(),
        token="",
        token_checksum=hashlib.sha256(token.encode()).hexdigest(),
        expires=timezone.now() + timedelta(seconds=expires_in),
        scope=scope,
        resource=[RESOURCE] if resource is None else resource,
    )
    row.save()
    return row
