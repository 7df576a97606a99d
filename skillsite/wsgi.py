import os

from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "skillsite.settings")

application = get_wsgi_application()

# A half-configured OAuth (docs/reference.md#oauth) must stop the server, not serve a half-on OAuth:
# gunicorn does not run system checks, so the one that decides it runs here.
from oauth.checks import oauth_configuration_errors  # noqa: E402 - needs the app registry

if errors := oauth_configuration_errors():
    raise ImproperlyConfigured("; ".join(errors))
