"""What a serving worker imports: nothing it never uses on a request, since every module is
RSS in every worker (docs/benchmarks.md, "Every cache full, session 5"): redis only for a
Redis cache (skillsite.shared_cache), GitPython only to publish (catalog.trees), and
django-oauth-toolkit's views (with `requests`) only on an OAuth route's first request
(oauth.gate)."""

from tests.support.serving_process import serving_process_json

# What a gunicorn worker loads before its first request, and the modules of /mcp's path.
WORKER = """
import json, sys
import skillsite.wsgi, mcpapi.protocol, mcpapi.throttling, accounts.github, catalog.index
from django.urls import resolve
resolve("/mcp")
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def worker_packages(cache_url: str) -> set[str]:
    return set(serving_process_json(WORKER, cache_url))


def test_a_worker_with_a_local_memory_cache_loads_neither_redis_nor_gitpython_nor_requests() -> None:
    packages = worker_packages("locmem://")
    assert "django" in packages and "mcpapi" in packages  # the worker was loaded at all
    assert {"redis", "git", "gitdb", "requests", "urllib3"} & packages == set()


def test_a_worker_with_a_redis_cache_loads_no_gitpython() -> None:
    # The Redis backend loads redis on its first use, not at start-up.
    packages = worker_packages("redis://127.0.0.1:6379/5")
    assert {"git", "gitdb"} & packages == set()
