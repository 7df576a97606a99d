"""The project-wide system checks (ids registry.*); each app registers its own in its checks.py.

`manage.py check --deploy` runs the deploy-tagged ones; CI runs it with a production-like
environment.
"""

from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, register
from django.core.exceptions import ImproperlyConfigured

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


def secret_key_errors() -> list[str]:
    """The secret key check's Errors as text, for a process that must not start with them."""
    return [f"{message.id}: {message.msg}" for message in check_secret_key_set() if message.is_serious()]
