"""The OAuth routes (docs/reference.md#oauth), all 404 unless OAuth is configured.

The namespace is django-oauth-toolkit's: its metadata and registration views build
their URLs by reversing these names. Only the endpoints the registry uses are mounted
(no introspection, device flow, OIDC or application-management pages).
"""

from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from oauth.gate import View, on_first_request, require_oauth

app_name = "oauth2_provider"

# Every view is imported on its first request (oauth.gate): none of them is while OAuth is off.
DOT = "oauth2_provider.views"
OURS = "oauth.views"


def _dot(name: str, **attributes: bool) -> View:
    # django-oauth-toolkit's views all set login_required = False (Django's LoginRequiredMiddleware).
    return on_first_request(DOT, name, login_required=False, **attributes)


_resource_metadata = require_oauth(_dot("OAuthProtectedResourceMetadataView"))

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
        require_oauth(_dot("OAuthServerMetadataView")),
        name="oauth-server-metadata",
    ),
    path("oauth/authorize/", require_oauth(on_first_request(OURS, "ConsentView")), name="authorize"),
    path("oauth/token/", require_oauth(_dot("TokenView", csrf_exempt=True)), name="token"),
    path("oauth/revoke/", require_oauth(_dot("RevokeTokenView", csrf_exempt=True)), name="revoke-token"),
    path(
        "oauth/register/",
        csrf_exempt(require_oauth(on_first_request(OURS, "RegistrationView", login_required=False))),
        name="dcr-register",
    ),
    path(
        "oauth/register/<str:client_id>/",
        csrf_exempt(
            require_oauth(on_first_request(OURS, "RegistrationManagementView", login_required=False))
        ),
        name="dcr-register-management",
    ),
    path("oauth/github/login/", require_oauth(on_first_request(OURS, "github_login")), name="github-login"),
    path(
        "oauth/github/callback/",
        require_oauth(on_first_request(OURS, "github_callback")),
        name="github-callback",
    ),
]
