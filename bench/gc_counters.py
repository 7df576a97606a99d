"""The cyclic collector's work counted in a serving process (bench/gc_app.py, bench/gc_cost.py).

install(app, directory) serves `app` unchanged and adds a gc.callbacks entry (per generation:
collections, objects collected, the thread CPU time between the collection's start and stop)
and counts the requests. A daemon thread writes the counters to <directory>/<pid>.json every
STATS_PERIOD_S seconds (atomically: a reader never sees half a file), so the bench reads them
before and after a wrk run without a request of its own. A `census` file in that directory
asks each worker for the number of objects the collector tracks per generation and frozen
(gc.get_objects walks them all: only on request, never inside a measured run).

Nothing of this is in the product: a measurement of docs/benchmarks.md, "The collector under
gunicorn, session 6 (issue 18)".
"""

from __future__ import annotations

import gc
import json
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

STATS_PERIOD_S = 0.2
GENERATIONS = 3
CENSUS_FILE = "census"
# Experiments without a change to the product: a `freeze` file in the directory makes each worker
# collect and freeze what it holds then (gc.freeze), once per change of the file; THRESHOLD_VARIABLE
# ("700,10,10") sets the collector's thresholds at install.
FREEZE_FILE = "freeze"
THRESHOLD_VARIABLE = "BENCH_GC_THRESHOLD"


class GcCounters:
    """What the collector did in this process since the counters were installed."""

    def __init__(self) -> None:
        self.requests = 0
        self.collections = [0] * GENERATIONS
        self.collected = [0] * GENERATIONS
        self.cpu_ns = [0] * GENERATIONS
        self._started_ns = 0
        self.census: dict[str, int] = {}

    def on_gc(self, phase: str, info: dict[str, int]) -> None:
        # The collector runs under the GIL, one collection at a time: start and stop pair up.
        if phase == "start":
            self._started_ns = time.thread_time_ns()
            return
        generation = info["generation"]
        self.collections[generation] += 1
        self.collected[generation] += info["collected"]
        self.cpu_ns[generation] += time.thread_time_ns() - self._started_ns

    def as_dict(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "requests": self.requests,
            "collections": list(self.collections),
            "collected": list(self.collected),
            "cpu_ns": list(self.cpu_ns),
            "threshold": list(gc.get_threshold()),
            "freeze_count": gc.get_freeze_count(),
            "census": dict(self.census),
        }


def take_census() -> dict[str, int]:
    """Objects the collector tracks, per generation, and frozen (gc.freeze's permanent one)."""
    census = {f"gen{generation}": len(gc.get_objects(generation)) for generation in range(GENERATIONS)}
    census["frozen"] = gc.get_freeze_count()
    return census


def write_stats(counters: GcCounters, directory: Path) -> None:
    path = directory / f"{os.getpid()}.json"
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(counters.as_dict()))
    os.replace(temporary, path)


def _asked(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return 0.0


def _writer(counters: GcCounters, directory: Path) -> None:
    census_seen = freeze_seen = 0.0
    while True:
        time.sleep(STATS_PERIOD_S)
        asked = _asked(directory / FREEZE_FILE)
        if asked > freeze_seen:
            freeze_seen = asked
            gc.collect()
            gc.freeze()
        asked = _asked(directory / CENSUS_FILE)
        if asked > census_seen:
            census_seen = asked
            counters.census = take_census()
        write_stats(counters, directory)


def counted(
    app: Callable[[dict, Callable], Iterable[bytes]], counters: GcCounters
) -> Callable[[dict, Callable], Iterable[bytes]]:
    def application(environ: dict, start_response: Callable) -> Iterable[bytes]:
        counters.requests += 1
        return app(environ, start_response)

    return application


def install(app: Callable[[dict, Callable], Iterable[bytes]], directory: Path) -> Callable:
    counters = GcCounters()
    if os.environ.get(THRESHOLD_VARIABLE):
        gc.set_threshold(*(int(part) for part in os.environ[THRESHOLD_VARIABLE].split(",")))
    gc.callbacks.append(counters.on_gc)
    directory.mkdir(parents=True, exist_ok=True)
    threading.Thread(target=_writer, args=(counters, directory), daemon=True, name="gc-stats").start()
    return counted(app, counters)
