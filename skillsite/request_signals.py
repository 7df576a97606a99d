"""Django's request_started / request_finished work, done with cheaper look-ups in the serving
process (docs/benchmarks.md, "Request signals, session 5").

Django connects, at import, `django.db.reset_queries` and `django.db.close_old_connections` to
request_started, and `close_old_connections` and `django.core.cache.close_caches` to
request_finished. Each walks `connections.all(initialized_only=True)` or `caches.all(...)`,
and every alias costs two look-ups through asgiref's `Local`, whose thread-critical kind
(the database connections') asks `asyncio.get_running_loop()` each time, which raises in a
sync thread: ~190,000 instructions of every request in place, most of them these look-ups
(docs/benchmarks.md, "The floor against the ceiling, session 5").

`install()`, called by skillsite/wsgi.py (the serving process only: django.test.Client
never loads it), replaces them with:

- on request_started, one receiver doing what the two did, in their order: every
  initialized connection of this thread has its queries log cleared, then is closed if
  unusable or obsolete (`close_if_unusable_or_obsolete`, unchanged: CONN_MAX_AGE,
  an error since the last commit, autocommit not restored);
- on request_finished, the same closing, then Django's own `close_caches` only if a configured
  cache backend has a `close()` of its own: Django's local-memory and Redis backends keep
  `BaseCache.close`, which does nothing, so with them nothing is called.

In a sync thread (gunicorn's gthread workers) a thread-critical `Local` is a plain
`threading.local`, so the thread's connections are that object's own attributes, read here
directly, in DATABASES order as `connections.all` gives them. With an event loop running in
the thread (asgiref's context storage) the receivers call Django's own functions instead.

Why only in the serving process: django.test.Client disconnects `close_old_connections` by
identity around each request, so that a test's atomic block (autocommit off) is not closed
under it; with this installed it would stay connected.
"""

import asyncio
import threading
from typing import Any

from django.core import signals
from django.core.cache import caches, close_caches
from django.core.cache.backends.base import BaseCache
from django.db import close_old_connections, connections, reset_queries
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils.module_loading import import_string

_installed = False


def _thread_storage() -> threading.local | None:
    """The threading.local behind `connections` (asgiref's thread-critical Local), or None
    when asgiref keeps them some other way (then Django's receivers stay)."""
    # Both are set in the instances' own __dict__ (BaseConnectionHandler, asgiref's Local).
    storage = vars(vars(connections)["_connections"]).get("_storage")
    return storage if isinstance(storage, threading.local) else None


def _closing_caches() -> bool:
    """Whether any configured cache backend's close() does something."""
    for params in caches.settings.values():
        try:
            backend = import_string(params["BACKEND"])
        except ImportError:
            return True  # Django raises on the cache's first use; its receiver stays meanwhile.
        if not (isinstance(backend, type) and issubclass(backend, BaseCache)):
            return True
        if backend.close is not BaseCache.close:
            return True
    return False


def install() -> bool:
    """Swap Django's receivers for the cheaper ones; False (nothing changed) when asgiref's
    storage is not the expected threading.local. Once per process."""
    global _installed
    storage = _thread_storage()
    if _installed or storage is None:
        return _installed
    close_them = _closing_caches()

    def thread_connections() -> list[BaseDatabaseWrapper]:
        # connections.all(initialized_only=True) in a sync thread: the aliases of DATABASES
        # that this thread has opened.
        opened = vars(storage)
        return [opened[alias] for alias in connections.settings if alias in opened]

    def started(**kwargs: Any) -> None:
        if asyncio._get_running_loop() is not None:
            reset_queries()
            close_old_connections()
            return
        opened = thread_connections()
        for conn in opened:
            conn.queries_log.clear()
        for conn in opened:
            conn.close_if_unusable_or_obsolete()

    def finished(**kwargs: Any) -> None:
        if asyncio._get_running_loop() is not None:
            close_old_connections()
        else:
            for conn in thread_connections():
                conn.close_if_unusable_or_obsolete()
        if close_them:
            close_caches()

    signals.request_started.disconnect(reset_queries)
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_caches)
    signals.request_started.connect(started, weak=False, dispatch_uid="skillsite.request_signals")
    signals.request_finished.connect(finished, weak=False, dispatch_uid="skillsite.request_signals")
    _installed = True
    return True
