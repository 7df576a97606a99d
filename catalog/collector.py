"""Python's cyclic collector in a serving process: what lives as long as a snapshot, kept out of
its full collections.

    install()
        In the serving process only (skillsite/wsgi.py, as skillsite.request_signals is): from
        then on settle() does its work. Elsewhere (tests, management commands) it does nothing:
        a full collection of a test process's heap after each of its many small builds would
        cost the suite, for nothing a short-lived process needs.
    settle()
        After a snapshot's index or a search index is built (catalog.index): everything alive is
        moved out of the collector's generations (gc.freeze), once what a previous settle froze
        and has since become cyclic garbage is collected (gc.unfreeze, then one full collection).
        Returns the number of objects frozen (0 when not installed).

Why: a full collection (generation 2) walks every object the collector tracks, and a worker
holds ~75,000 of them at 1,000 skills and ~105,000 at 10,000 (Django's modules, the snapshot's
entries, the indexes' dicts and tuples) before its caches fill; each full collection then costs
it 40-100 ms of CPU. A cold search leaves enough survivors (kept rankings, memo entries) that
gunicorn's workers ran one every ~400 requests: 0.17-0.27 ms of a 2.7 ms request
(docs/benchmarks.md, "The collector under gunicorn, session 6"). No in-process bench saw it:
they freeze the heap or stop before a full collection is due. Frozen, those objects are never
walked again; full collections walk only what came after (the caches' entries, a request's).

What is frozen is still freed by reference counting the moment nothing refers to it: a
republished snapshot's index, dropped from catalog.index's caches, goes then (its structures
hold no reference cycle). Cyclic garbage among frozen objects (a request's objects in flight
on another thread at the freeze, a structure of the old index that were in a cycle) would wait
for a collection that never looks at it: hence the unfreeze and the full collection first,
which reclaim whatever the previous settle froze and is now garbage. So what a settle can
keep past its time is bounded by one build's worth, never one per publish.

Thread safety: gc.freeze, gc.unfreeze and gc.collect each run under the GIL; the lock keeps two
builds finishing at once (two clearances' search indexes) from interleaving the three steps
and paying two full collections where one does.
"""

import gc
import threading

_settling = threading.Lock()
_installed = False


def install() -> None:
    global _installed
    _installed = True


def settle() -> int:
    """Collect what the last settle froze and is now garbage, then freeze everything alive;
    the number of objects frozen."""
    if not _installed:
        return 0
    with _settling:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        return gc.get_freeze_count()
