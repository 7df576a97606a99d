from django.urls import path

from mcpapi import views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    # No trailing slash: the MCP endpoint URL is exact (clients and OAuth resources name it).
    path("mcp", views.mcp, name="mcp"),
]
