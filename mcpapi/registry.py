"""The one snapshot a request reads, seen through the caller's clearance.

The active snapshot is resolved at first use (one cheap query) and then fixed for
the rest of the request, so every answer of a request comes from one revision
even if a publish lands meanwhile. Skills are reached only through `visible()`,
the catalog's view for the caller's ZDR clearance: no tool or resource can forget
the rule, because nothing else hands out skills.
"""

import threading
from collections import OrderedDict

from catalog import index as catalog
from catalog.config import RegistryConfig
from catalog.index import SnapshotIndex, SnapshotRef, VisibleIndex
from catalog.search import SearchIndex

# Search structures per (snapshot SHA, clearance): the active snapshot and the one before
# it, for both clearances. A SHA names fixed content, so an entry never goes stale.
SEARCH_CACHE_SIZE = 4
_search_cache: OrderedDict[tuple[str, bool], SearchIndex] = OrderedDict()
_search_lock = threading.Lock()
# One build per key at a time (as catalog.index.load_index does): the first searches on a
# gthread worker's threads wait for one index instead of each building a copy (57 MB at
# 10,000 skills, which glibc keeps in the thread's arena even once dropped).
_search_build_locks: dict[tuple[str, bool], threading.Lock] = {}


class RegistryView:
    __slots__ = ("_index", "_ref", "_resolved", "_search", "_visible", "zdr_cleared")

    def __init__(self, zdr_cleared: bool) -> None:
        self.zdr_cleared = zdr_cleared
        self._resolved = False
        self._ref: SnapshotRef | None = None
        self._index: SnapshotIndex | None = None
        self._visible: VisibleIndex | None = None
        self._search: SearchIndex | None = None

    @property
    def ref(self) -> SnapshotRef | None:
        """The active snapshot as of this request's first look; None before any publish."""
        if not self._resolved:
            self._ref = catalog.active_snapshot()
            self._resolved = True
        return self._ref

    @property
    def resolved_sha(self) -> str | None:
        """The SHA this request read, without resolving it (for the access log)."""
        return self._ref.sha if self._ref is not None else None

    def index(self) -> SnapshotIndex:
        if self._index is None:
            ref = self.ref
            if ref is None:
                raise LookupError("nothing is published")  # callers check `ref` first
            self._index = catalog.load_index(ref)
        return self._index

    @property
    def config(self) -> RegistryConfig:
        return self.index().config

    def visible(self) -> VisibleIndex:
        if self._visible is None:
            self._visible = self.index().visible(self.zdr_cleared)
        return self._visible

    def search_index(self) -> SearchIndex:
        """Search (and tag filtering) over `visible()`, built once per process per SHA."""
        if self._search is None:
            key = (self.index().ref.sha, self.zdr_cleared)
            self._search = _cached_search_index(key, self.visible())
        return self._search

    def read_blob(self, sha256: str) -> bytes:
        return catalog.read_blob(sha256)


def _cached_search_index(key: tuple[str, bool], visible: VisibleIndex) -> SearchIndex:
    while True:
        with _search_lock:
            found = _search_cache.get(key)
            if found is not None:
                _search_cache.move_to_end(key)
                return found
            build_lock = _search_build_locks.setdefault(key, threading.Lock())
        with build_lock:
            with _search_lock:
                built = key in _search_cache
            if built:
                continue
            try:
                found = SearchIndex(visible.skills)
            except BaseException:
                with _search_lock:
                    _search_build_locks.pop(key, None)
                raise
            with _search_lock:  # cached before the lock goes, so no later thread rebuilds it
                _search_cache[key] = found
                _search_build_locks.pop(key, None)
                while len(_search_cache) > SEARCH_CACHE_SIZE:
                    _search_cache.popitem(last=False)
            return found


def clear_search_cache() -> None:
    """Forget every cached search index (tests; serving never needs it)."""
    with _search_lock:
        _search_cache.clear()
