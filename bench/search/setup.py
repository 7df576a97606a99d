"""Django just enough to import the catalog (its models module needs an app registry): no
database is ever touched by the search benchmarks."""

import django
from django.conf import settings


def configure() -> None:
    if not settings.configured:
        settings.configure(
            INSTALLED_APPS=["catalog"],
            DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
            USE_TZ=True,
        )
        django.setup()
