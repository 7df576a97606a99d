"""The registry with other cache bounds, to measure what a bound costs in RSS (bench/full_caches.py
--blob-cache-mib / --answer-cache-mib): BENCH_BLOB_CACHE_BYTES and BENCH_ANSWER_CACHE_BYTES,
each unset for the product's own."""

import os

from skillsite.wsgi import application

__all__ = ["application"]

# After Django is set up: catalog.blobs imports the models.
from catalog import blobs
from mcpapi.answer_cache import answers

if os.environ.get("BENCH_BLOB_CACHE_BYTES"):
    blobs.BLOB_CACHE_BYTES = int(os.environ["BENCH_BLOB_CACHE_BYTES"])
if os.environ.get("BENCH_ANSWER_CACHE_BYTES"):
    answers.max_bytes = int(os.environ["BENCH_ANSWER_CACHE_BYTES"])
