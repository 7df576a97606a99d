"""Answers encoded once and served again: a bounded LRU of result JSON, per process.

A snapshot is immutable, so the result of a method that reads skills is a pure function of
the snapshot (its SHA and activation time, which `published_at` shows), the clearance the
caller's view is made with, the protocol era (which adds its own result fields, `ttlMs`
among them) and the request's arguments. mcpapi.protocol makes that key and says which
methods qualify; this module only holds the encoded results: the UTF-8 of their JSON
(mcpapi.jsonrpc.result_utf8 of the RawJson or object a method returns), without the JSON-RPC
envelope, which mcpapi.jsonrpc.encode_utf8_result splices around them with each request's id.
Bytes rather than the RawJson text: a hit then costs no encoding at all (text holding one em
dash is stored at 2 bytes a character and took 19 % of a kept skills_list page to encode, py-spy),
and UTF-8 takes less room.

Bounded by entry count and by the bytes the stored text occupies (docs/reference.md#limits):
least recently used first out. A publish makes new keys (another SHA), so the old answers are
never found again and age out. JSON-RPC errors are raised, never returned, and so are never
stored.
"""

import sys
import threading
from collections import OrderedDict
from collections.abc import Hashable

# At most this many answers per process...
MAX_ENTRIES = 2048
# ...holding at most this many bytes (size_of: all an entry holds). With the index of 10,000
# skills a worker stays under 200 MB (docs/benchmarks.md#encode-once).
MAX_BYTES = 8 * 1024 * 1024
# An answer larger than this is not kept (a whole large file by resources/read): one such answer
# would push out hundreds of pages.
MAX_ENTRY_BYTES = 1024 * 1024


# What the cache itself holds per entry beyond the key and the answer: its slot and node in the
# OrderedDict, the (answer, size) pair and the size (172 bytes with tracemalloc, CPython 3.11;
# docs/benchmarks.md, "Every cache full, session 6").
ENTRY_OVERHEAD = 176


def size_of(key: Hashable, value: bytes) -> int:
    """What keeping `value` under `key` costs, counted against MAX_BYTES: the answer, the key
    with the strings and bytes it holds (mcpapi.protocol.answer_key's: the arguments' bytes are
    the entry's own; the SHA and the names are shared, so this errs high), and ENTRY_OVERHEAD."""
    size = sys.getsizeof(value) + sys.getsizeof(key) + ENTRY_OVERHEAD
    if type(key) is tuple:
        size += sum(sys.getsizeof(part) for part in key if isinstance(part, (bytes, str)))
    return size


class AnswerCache:
    """A thread-safe LRU bounded by entries and bytes."""

    def __init__(self, max_entries: int, max_bytes: int, max_entry_bytes: int) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.max_entry_bytes = max_entry_bytes
        self._entries: OrderedDict[Hashable, tuple[bytes, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> bytes | None:
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return None
            self._entries.move_to_end(key)
            return found[0]

    def put(self, key: Hashable, value: bytes) -> None:
        size = size_of(key, value)
        if size > self.max_entry_bytes:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._entries[key] = (value, size)
            self._bytes += size
            while len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
                _, (_, dropped) = self._entries.popitem(last=False)
                self._bytes -= dropped

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes(self) -> int:
        """What the entries held count against MAX_BYTES."""
        return self._bytes


answers = AnswerCache(MAX_ENTRIES, MAX_BYTES, MAX_ENTRY_BYTES)
