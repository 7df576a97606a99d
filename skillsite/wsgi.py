import os

from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "skillsite.settings")

application = get_wsgi_application()

# No secret key (docs/reference.md#environment) or a half-configured OAuth
# (docs/reference.md#oauth) must stop the server, not serve unsigned cursors or a half-on
# OAuth: gunicorn does not run system checks, so the ones that decide it run here.
from oauth.checks import oauth_configuration_errors  # noqa: E402 - needs the app registry
from skillsite.checks import secret_key_errors  # noqa: E402 - needs the app registry

if errors := secret_key_errors() + oauth_configuration_errors():
    raise ImproperlyConfigured("; ".join(errors))

# Django's request_started / request_finished receivers, the same work with cheaper look-ups,
# in the serving process only (skillsite/request_signals.py, docs/benchmarks.md).
from skillsite.request_signals import install  # noqa: E402 - needs the app registry

install()

# What a snapshot's index and search indexes hold is frozen out of the cyclic collector's full
# collections once built, in the serving process only (catalog/collector.py, docs/benchmarks.md,
# "The collector under gunicorn, session 6").
from catalog import collector  # noqa: E402 - after Django's set-up, as the imports above

collector.install()
