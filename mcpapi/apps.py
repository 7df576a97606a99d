from django.apps import AppConfig


class McpApiConfig(AppConfig):
    name = "mcpapi"
    default_auto_field = "django.db.models.BigAutoField"
