"""Django's minimum for one view: no apps, no middleware, no database.

BENCH_CEILING_MIDDLEWARE=product adds the registry's own middleware list (Security, Common,
Csrf, XFrameOptions) to show what those cost; the ceiling the targets use has none.
"""

import os

SECRET_KEY = "bench-ceiling-not-a-secret"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS: list[str] = []
MIDDLEWARE: list[str] = []
if os.environ.get("BENCH_CEILING_MIDDLEWARE") == "product":
    MIDDLEWARE = [
        "django.middleware.security.SecurityMiddleware",
        "django.middleware.common.CommonMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.middleware.clickjacking.XFrameOptionsMiddleware",
    ]
ROOT_URLCONF = "bench.ceiling.urls"
DATABASES: dict = {}
USE_TZ = True
USE_I18N = False
LOGGING_CONFIG = None
