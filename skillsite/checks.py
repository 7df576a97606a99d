"""The project-wide system checks (ids registry.*); each app registers its own in its checks.py.

`manage.py check --deploy` runs the deploy-tagged ones; CI runs it with a production-like
environment.
"""

from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, register

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
