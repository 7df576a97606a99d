"""gunicorn settings for the registry; every value can be overridden by an environment variable.

The worker class was chosen by measurement (docs/benchmarks.md): see GUNICORN_WORKER_CLASS.
"""

import multiprocessing

from catalog.heap import limit_arenas

# The project's own typed readers: a bad value stops gunicorn at start-up, naming the variable.
# gunicorn puts its working directory (the project root) on sys.path before reading this file.
from skillsite.drain import drain_unread_body
from skillsite.env import env_int, env_str
from skillsite.worker import header_timeout

# One malloc arena per worker, set here in the master so that every forked worker has it
# (catalog/heap.py; MALLOC_ARENA_MAX, when set, wins).
limit_arenas()

bind = env_str("GUNICORN_BIND", "127.0.0.1:8000")
# Requests are CPU-bound and short (the index is in memory): one process per core plus one
# to cover a worker blocked on I/O, capped so a large host doesn't multiply per-worker memory.
workers = env_int("GUNICORN_WORKERS", min(multiprocessing.cpu_count() + 1, 8))
# gthread with each request head read on the event loop, under a deadline (skillsite/worker.py):
# stock gthread lets a client that trickles its headers hold a thread (docs/benchmarks.md).
worker_class = env_str("GUNICORN_WORKER_CLASS", "skillsite.worker.HeadDeadlineWorker")
# Read here too so that a bad GUNICORN_HEADER_TIMEOUT stops gunicorn at start-up, not each worker.
header_timeout()
threads = env_int("GUNICORN_THREADS", 2)
timeout = env_int("GUNICORN_TIMEOUT", 30)
graceful_timeout = env_int("GUNICORN_GRACEFUL_TIMEOUT", 20)
keepalive = env_int("GUNICORN_KEEPALIVE", 5)
max_requests = env_int("GUNICORN_MAX_REQUESTS", 0)
max_requests_jitter = max_requests // 10
# Bounded request lines and headers (the body limit is enforced by the /mcp view).
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190
# A body the application did not read (a 413, a 401) is read and discarded, within bounds,
# before the connection is reused or closed: the client reads its answer, never a reset.
post_request = drain_unread_body
# The application writes one structured access line per request (without tokens); gunicorn's
# own access log is off unless asked for, and its format never includes request headers.
accesslog = env_str("GUNICORN_ACCESSLOG") or None
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'
# X-Forwarded-* headers are trusted only from these proxy addresses.
forwarded_allow_ips = env_str("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
# gunicorn 27's runtime control socket is one fixed path per user: two instances on a host
# would fight over it, and nothing here uses it.
control_socket_disable = env_str("GUNICORN_CONTROL_SOCKET") == ""
if not control_socket_disable:
    control_socket = env_str("GUNICORN_CONTROL_SOCKET")
