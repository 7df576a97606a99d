"""Test settings: the real settings, with the database taken from TEST_DATABASE_URL when set."""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "test-secret-key-not-for-production")

from skillsite.settings import *  # noqa: E402, F403
from skillsite.settings import database_from_url  # noqa: E402

if os.environ.get("TEST_DATABASE_URL"):
    DATABASES = {"default": database_from_url(os.environ["TEST_DATABASE_URL"])}
