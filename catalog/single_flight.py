"""A small LRU of values that are costly to build, built once per key however many threads ask."""

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SingleFlightLru(Generic[K, V]):
    """A few values that are costly to build, least recently used dropped first. One build
    per key at a time: the threads asking meanwhile wait for it instead of each building
    (and holding) a copy, e.g. 57 MB of search index at 10,000 skills, which glibc keeps in
    the thread's arena even once dropped. A hit never waits behind a build."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._values: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[K, threading.Lock] = {}

    def get(self, key: K, build: Callable[[], V]) -> V:
        while True:
            with self._lock:
                if key in self._values:
                    self._values.move_to_end(key)
                    return self._values[key]
                build_lock = self._building.setdefault(key, threading.Lock())
            with build_lock:
                with self._lock:
                    built = key in self._values
                if built:
                    continue
                try:
                    value = build()
                except BaseException:
                    with self._lock:
                        self._building.pop(key, None)
                    raise
                with self._lock:  # stored before the build lock goes, so no later thread rebuilds it
                    self._store(key, value)
                    self._building.pop(key, None)
                return value

    def replace(self, key: K, value: V) -> None:
        with self._lock:
            self._store(key, value)

    def _store(self, key: K, value: V) -> None:
        self._values[key] = value
        self._values.move_to_end(key)
        while len(self._values) > self.size:
            self._values.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
