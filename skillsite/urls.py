from django.urls import include, path

from mcpapi import views
from skillsite import errors, health, landing

# Every error page is JSON (or a plain page for the OAuth browser pages): skillsite/errors.py.
handler400 = errors.bad_request
handler403 = errors.forbidden
handler404 = errors.not_found
handler500 = errors.server_error

urlpatterns = [
    # No trailing slash: the MCP endpoint URL is exact (clients and OAuth resources name it).
    # First: Django tries each pattern in turn, and /mcp is nearly every request. No other
    # pattern matches "mcp", so the order changes no answer.
    path("mcp", views.mcp, name="mcp"),
    path("", landing.landing, name="landing"),
    path("favicon.ico", landing.favicon, name="favicon"),
    path("healthz", health.healthz, name="healthz"),
    # OAuth for web connectors (docs/reference.md#oauth): every route there is 404 unless OAuth is configured.
    path("", include("oauth.urls")),
]
