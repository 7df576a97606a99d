"""What the per-snapshot structures of one worker hold (docs/benchmarks.md, "Memory, session 4"):
the snapshot's index and the search index of each clearance, built in this process from a
published SQLite file, as a worker builds them on its first requests.

    .venv/bin/python -m bench.corpus build --skills 10000 --out /dev/shm/corpus-10000
    .venv/bin/python -m bench.index_memory --corpus /dev/shm/corpus-10000 --db /dev/shm/im.sqlite3 \
        [--tracemalloc] [--trim]

Without --tracemalloc: VmRSS after each step (tracemalloc's own tables would inflate it).
With it: the bytes traced after each step, and the largest allocation sites of the index.
--trim: malloc_trim(0) after each step too, and VmRSS again.
The database is made (migrated, the corpus published) by the first run and reused.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
from pathlib import Path

from bench.inprocess import configure, migrate_and_publish
from bench.measure import rss_mb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", required=True, type=Path)
    parser.add_argument("--db", required=True, type=Path)
    parser.add_argument("--tracemalloc", action="store_true", help="traced bytes instead of RSS")
    parser.add_argument("--trim", action="store_true", help="malloc_trim(0) after each step, RSS again")
    parser.add_argument("--top", type=int, default=12, help="allocation sites listed (--tracemalloc)")
    args = parser.parse_args(argv)
    fresh = not args.db.exists() or args.db.stat().st_size == 0
    configure(args.db, {"SKILLS_READ_TOKENS": "index-memory"})
    if fresh:
        migrate_and_publish(args.corpus)
        print("published; run again to measure (the publish's heap would be counted)")
        return 0
    from catalog import index as catalog_index
    from catalog.heap import release_free_memory

    def report(step: str, started: float) -> None:
        took = time.process_time() - started
        if args.tracemalloc:
            print(f"{step}: traced {tracemalloc.get_traced_memory()[0] / 1e6:.1f} MB ({took:.2f} s CPU)")
        else:
            print(f"{step}: VmRSS {rss_mb(os.getpid()) or 0:.1f} MB ({took:.2f} s CPU)")
            if args.trim:
                release_free_memory()
                print(f"    after malloc_trim(0): VmRSS {rss_mb(os.getpid()) or 0:.1f} MB")

    ref = catalog_index.active_snapshot()  # the connection opened before anything is counted
    assert ref is not None, "nothing published"
    if args.tracemalloc:
        tracemalloc.start(1)
    report("before", time.process_time())
    started = time.process_time()
    before = tracemalloc.take_snapshot() if args.tracemalloc else None
    index = catalog_index.load_index(ref)
    report(f"snapshot index ({len(index.visible(True))} skills)", started)
    if before is not None:
        after = tracemalloc.take_snapshot()
        for stat in after.compare_to(before, "lineno")[: args.top]:
            print(f"    {stat.size_diff / 1e6:7.2f} MB {stat.count_diff:>8} blocks  {stat.traceback[0]}")
    for cleared in (False, True):
        view = catalog_index.SnapshotView(index, cleared)
        started = time.process_time()
        before = tracemalloc.take_snapshot() if args.tracemalloc else None
        view.search_index()
        report(f"search index, zdr_cleared={cleared} ({len(view.skills)} skills)", started)
        if before is not None:
            after = tracemalloc.take_snapshot()
            for stat in after.compare_to(before, "lineno")[: args.top // 2]:
                print(f"    {stat.size_diff / 1e6:7.2f} MB {stat.count_diff:>8} blocks  {stat.traceback[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
