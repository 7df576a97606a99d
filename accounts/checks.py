"""The accounts app's system checks (ids registry.*), registered in AccountsConfig.ready().

`manage.py check --deploy` runs them; CI runs it with a production-like environment.
"""

from django.conf import settings
from django.core.checks import CheckMessage, Tags, Warning, register
from django.db import DatabaseError

from accounts.models import AllowedLogin, ServiceToken


@register(Tags.security, deploy=True)
def check_callers_configured(app_configs: object = None, **kwargs: object) -> list[CheckMessage]:
    if (
        settings.SKILLS_READ_TOKENS
        or settings.SKILLS_ZDR_TOKENS
        or settings.ALLOWED_GITHUB_LOGINS
        or settings.ZDR_GITHUB_LOGINS
        or _database_has_callers()
    ):
        return []
    return [
        Warning(
            "No callers are configured: every /mcp request will be refused.",
            hint="Set SKILLS_READ_TOKENS or ALLOWED_GITHUB_LOGINS, or run `manage.py create_token NAME`.",
            id="registry.W002",
        )
    ]


def _database_has_callers() -> bool:
    try:
        return AllowedLogin.objects.exists() or ServiceToken.objects.filter(revoked_at__isnull=True).exists()
    except DatabaseError:
        return False  # not migrated yet: nothing stored, so nothing configured there
