"""The OAuth app's system checks (ids registry.*), registered in OAuthConfig.ready().

OAuth is all on or all off, never half-on (docs/reference.md#oauth). skillsite/wsgi.py runs
this check too, so gunicorn refuses to start on an Error (a system check alone only stops
runserver and `manage.py check`).
"""

from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, register

from oauth.conf import base_url_problem

_OAUTH_VARIABLES = ("GITHUB_OAUTH_CLIENT_ID", "GITHUB_OAUTH_CLIENT_SECRET", "PUBLIC_BASE_URL")


@register(Tags.security)
def check_oauth_configuration(app_configs: object = None, **kwargs: object) -> list[CheckMessage]:
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


def oauth_configuration_errors() -> list[str]:
    """The OAuth check's Errors as text, for a process that must not start with them."""
    return [f"{message.id}: {message.msg}" for message in check_oauth_configuration() if message.is_serious()]
