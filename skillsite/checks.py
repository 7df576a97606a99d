"""System checks for dangerous configurations (ids registry.*).

`manage.py check --deploy` runs the deploy-tagged ones; CI runs it with a
production-like environment.
"""

from pathlib import Path

from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, Warning, register
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError

_LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}


@register(Tags.security, deploy=True)
def check_debug_in_production(app_configs: object = None, **kwargs: object) -> list[CheckMessage]:
    exposed = [host for host in settings.ALLOWED_HOSTS if host not in _LOOPBACK_HOSTS]
    if settings.DEBUG and exposed:
        return [
            Error(
                "DJANGO_DEBUG is on while DJANGO_ALLOWED_HOSTS names non-loopback hosts "
                f"({', '.join(exposed)}): debug pages leak settings and code to the network.",
                hint="Unset DJANGO_DEBUG in production.",
                id="registry.E001",
            )
        ]
    return []


@register(Tags.security)
def check_secret_key_set(app_configs: object = None, **kwargs: object) -> list[CheckMessage]:
    """The settings load without DJANGO_SECRET_KEY, so that commands which sign nothing run on
    a bare checkout; everything else must not. skillsite/wsgi.py runs this too, so gunicorn
    refuses to start without a key (docs/reference.md#environment)."""
    try:
        if settings.SECRET_KEY:
            return []
    except ImproperlyConfigured:  # Django refuses to hand out an empty SECRET_KEY
        pass
    return [
        Error(
            "DJANGO_SECRET_KEY is not set: the server signs pagination cursors and sign-in sessions with it.",
            hint="Set DJANGO_SECRET_KEY to a long random value "
            "(python3 -c 'import secrets; print(secrets.token_urlsafe(50))'), the same on every host.",
            id="registry.E006",
        )
    ]


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


@register(deploy=True)
def check_skills_repo(app_configs: object = None, **kwargs: object) -> list[CheckMessage]:
    path = Path(settings.SKILLS_REPO_PATH)
    if (path / ".git").exists() or (path / "HEAD").is_file():
        return []
    return [
        Warning(
            f"SKILLS_REPO_PATH ({path}) is not a git repository: `manage.py publish` has nothing to read.",
            hint="Point SKILLS_REPO_PATH at a clone of the skills repository (or pass --repo).",
            id="registry.W003",
        )
    ]


def _database_has_callers() -> bool:
    try:
        from accounts.models import AllowedLogin, ServiceToken
    except ImportError:
        return False
    try:
        return AllowedLogin.objects.exists() or ServiceToken.objects.filter(revoked_at__isnull=True).exists()
    except DatabaseError:
        return False  # not migrated yet: nothing stored, so nothing configured there


_OAUTH_VARIABLES = ("GITHUB_OAUTH_CLIENT_ID", "GITHUB_OAUTH_CLIENT_SECRET", "PUBLIC_BASE_URL")


@register(Tags.security)
def check_oauth_configuration(app_configs: object = None, **kwargs: object) -> list[CheckMessage]:
    """SPEC §10: OAuth is all on or all off, never half-on. skillsite/wsgi.py runs this too,
    so gunicorn refuses to start on an Error (a system check alone only stops runserver)."""
    from oauth.conf import base_url_problem

    values = {name: getattr(settings, name, "") for name in _OAUTH_VARIABLES}
    present = [name for name, value in values.items() if value]
    if not present:
        return []
    if len(present) < len(_OAUTH_VARIABLES):
        missing = [name for name in _OAUTH_VARIABLES if name not in present]
        return [
            Error(
                f"OAuth is half-configured: {', '.join(present)} set, {', '.join(missing)} not.",
                hint="Set all three to turn OAuth for web connectors on, or none of them to keep it off.",
                id="registry.E004",
            )
        ]
    problem = base_url_problem(values["PUBLIC_BASE_URL"])
    if problem:
        return [
            Error(
                f"PUBLIC_BASE_URL ({values['PUBLIC_BASE_URL']}) cannot be the OAuth issuer: {problem}.",
                hint="The canonical https://host clients reach this registry at, without a trailing slash.",
                id="registry.E005",
            )
        ]
    return []


def serving_errors() -> list[str]:
    """The Errors that must stop the server from starting, as text (skillsite/wsgi.py)."""
    messages = check_secret_key_set() + check_oauth_configuration()
    return [f"{message.id}: {message.msg}" for message in messages if message.is_serious()]
