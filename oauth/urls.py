"""The OAuth routes (docs/reference.md#oauth), all 404 unless OAuth is configured.

The namespace is django-oauth-toolkit's: its metadata and registration views build
their URLs by reversing these names. Only the endpoints the registry uses are mounted
(no introspection, device flow, OIDC or application-management pages).
"""

from django.urls import path
from django.views.decorators.csrf import csrf_exempt
from oauth2_provider import views as dot

from oauth import views
from oauth.views import require_oauth

app_name = "oauth2_provider"

_resource_metadata = require_oauth(dot.OAuthProtectedResourceMetadataView.as_view())

urlpatterns = [
    path(
        ".well-known/oauth-protected-resource",
        _resource_metadata,
        name="oauth-resource-metadata",
    ),
    path(
        ".well-known/oauth-protected-resource/mcp",
        _resource_metadata,
        name="oauth-resource-metadata-mcp",
    ),
    path(
        ".well-known/oauth-authorization-server",
        require_oauth(dot.OAuthServerMetadataView.as_view()),
        name="oauth-server-metadata",
    ),
    path("oauth/authorize/", require_oauth(views.ConsentView.as_view()), name="authorize"),
    path("oauth/token/", require_oauth(dot.TokenView.as_view()), name="token"),
    path("oauth/revoke/", require_oauth(dot.RevokeTokenView.as_view()), name="revoke-token"),
    path(
        "oauth/register/",
        csrf_exempt(require_oauth(views.RegistrationView.as_view())),
        name="dcr-register",
    ),
    path(
        "oauth/register/<str:client_id>/",
        csrf_exempt(require_oauth(views.RegistrationManagementView.as_view())),
        name="dcr-register-management",
    ),
    path("oauth/github/login/", require_oauth(views.github_login), name="github-login"),
    path("oauth/github/callback/", require_oauth(views.github_callback), name="github-callback"),
]
