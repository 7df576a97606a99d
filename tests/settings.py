"""Test settings: the real settings, with the database and cache taken from
TEST_DATABASE_URL / TEST_CACHE_URL when set (CI runs the suite on both setups)."""

import os
import re

os.environ.setdefault("DJANGO_SECRET_KEY", "test-secret-key-not-for-production")

from skillsite.settings import *  # noqa: F403
from skillsite.settings import database_from_url

if os.environ.get("TEST_DATABASE_URL"):
    DATABASES = {"default": database_from_url(os.environ["TEST_DATABASE_URL"])}

if os.environ.get("TEST_CACHE_URL"):
    # One Redis database per xdist worker: cache.clear() flushes a whole database.
    worker = int(re.sub(r"\D", "", os.environ.get("PYTEST_XDIST_WORKER", "gw0")) or 0)
    base_url = os.environ["TEST_CACHE_URL"].rstrip("/")
    base_url = re.sub(r"/\d+$", "", base_url)
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"{base_url}/{15 - worker}",
        }
    }
