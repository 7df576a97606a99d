"""release_free_memory(): hand the C heap's free pages back to the operating system.

Building a snapshot's index or a search index allocates far more than it keeps (rows, word
counts, growing arrays), and glibc keeps what is freed inside its heaps rather than returning
it: at 10,000 skills a worker's RSS stayed ~46 MB above what a search index holds
(docs/benchmarks.md, "Memory, session 4"). malloc_trim(0) gives back every free page of every
arena. It is called after such a build only, never per request. Elsewhere than glibc (musl,
macOS) it does nothing.
"""

import ctypes
import ctypes.util
import platform
from collections.abc import Callable

_Trim = Callable[[int], int]


def _find_malloc_trim() -> _Trim | None:
    if platform.libc_ver()[0] != "glibc":
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim  # type: ignore[no-any-return]


_malloc_trim = _find_malloc_trim()


def release_free_memory() -> bool:
    """Whether the heap was trimmed (False where there is no malloc_trim)."""
    if _malloc_trim is None:
        return False
    _malloc_trim(0)
    return True
