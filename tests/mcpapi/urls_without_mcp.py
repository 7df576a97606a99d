"""A URLconf without /mcp, for tests/mcpapi/test_fastlane.py: the lane must give /mcp to the chain."""

from django.urls import path

from skillsite import health

urlpatterns = [path("healthz", health.healthz)]
