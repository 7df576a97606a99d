"""The C heap of a worker: its free pages handed back, and one arena for all its threads.

    release_free_memory()
        Hand the C heap's free pages back to the operating system.
    limit_arenas()
        glibc's malloc gives each thread an arena of its own (up to 8 per core), each growing to
        its own high-water mark; a gthread worker's threads take turns under the GIL anyway, so
        one arena (WORKER_ARENAS) serves them without contention: ~7 MB less RSS per worker at
        10,000 skills with every cache full. gunicorn.conf.py calls it in the master, before any
        worker is forked (the setting is inherited). MALLOC_ARENA_MAX, when set, is left to glibc.

Building a snapshot's index or a search index allocates far more than it keeps (rows, word
counts, growing arrays), and glibc keeps what is freed inside its heaps rather than returning
it: at 10,000 skills a worker's RSS stayed ~46 MB above what a search index holds
(docs/benchmarks.md, "Memory, session 4"). malloc_trim(0) gives back every free page of every
arena. It is called after such a build only, never per request. Elsewhere than glibc (musl,
macOS) both do nothing.
"""

import ctypes
import ctypes.util
import os
import platform
from typing import Any

# Arenas of a worker's malloc (threads share them): one, the GIL serialising its threads.
WORKER_ARENAS = 1
_M_ARENA_MAX = -8  # glibc's malloc.h
ARENA_VARIABLE = "MALLOC_ARENA_MAX"


def _glibc_function(name: str, *argtypes: Any) -> Any:
    """`name` of the C library, typed, when it is glibc's; else None."""
    if platform.libc_ver()[0] != "glibc":
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        function = getattr(libc, name)
    except (OSError, AttributeError):
        return None
    function.argtypes = list(argtypes)
    function.restype = ctypes.c_int
    return function


_malloc_trim = _glibc_function("malloc_trim", ctypes.c_size_t)
_mallopt = _glibc_function("mallopt", ctypes.c_int, ctypes.c_int)


def release_free_memory() -> bool:
    """Whether the heap was trimmed (False where there is no malloc_trim)."""
    if _malloc_trim is None:
        return False
    _malloc_trim(0)
    return True


def limit_arenas() -> bool:
    """Whether malloc now keeps at most WORKER_ARENAS arenas (False without glibc, or when
    MALLOC_ARENA_MAX says otherwise)."""
    if _mallopt is None or os.environ.get(ARENA_VARIABLE):
        return False
    return bool(_mallopt(_M_ARENA_MAX, WORKER_ARENAS))
