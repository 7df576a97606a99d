import os

from django.core.wsgi import get_wsgi_application

# Forced, not setdefault: an inherited DJANGO_SETTINGS_MODULE must never turn this into the product.
os.environ["DJANGO_SETTINGS_MODULE"] = "bench.ceiling.settings"

application = get_wsgi_application()
