"""What a search query never seen before costs in-process: `bench/cold.py`'s distinct two-word
topic queries (the cold skills_search row's), each ranked with no ranking remembered and its
first page built as skills_search builds it (hits, match reasons, excerpts), at N generated
skills (the uncleared view of bench.corpus's corpus, the same skills as `make bench`'s).

    .venv/bin/python -m bench.search.cold_cpu --skills 10000 --skills-cache /dev/shm/s-10000.pickle
    .venv/bin/python -m bench.search.cold_cpu --skills 10000 --module-file /tmp/old_search.py
    .venv/bin/python -m bench.search.cold_cpu --skills 10000 --profile /tmp/cold.prof
    valgrind --tool=callgrind --instr-atstart=no \
        .venv/bin/python -m bench.search.cold_cpu --skills 10000 --callgrind 200

Two passes over the queries: the first also fills whatever the index remembers per stem, the
second is the steady state the cold row runs in (wrk cycles the same queries). CPU is
time.process_time per query (this process only): median, p99 and mean of the second pass,
the mean of the first. Memory, on a fresh index and untimed: what tracemalloc sees held by
the index after building it, and after one pass with its rankings forgotten (what it
remembers per stem on the way).

With --callgrind N (under valgrind, as above): one uncounted pass over the first N queries
(what the index remembers per stem filled, as in the cold row's steady state), then callgrind
counts the instructions of a second pass over them, and nothing else is measured (its total
over N is the figure; no other load moves it). With --first-pass too: the first pass is
counted instead (every memo empty: a worker's first pass over the queries).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import pickle
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

from bench.cold import search_queries
from bench.search.cpu import forget, generated_skills, load_module
from bench.search.setup import configure
from bench.view_overhead import callgrind

LIMIT = 20  # the cold row's page
EXCERPT_CHARS = 240


def skills_of(count: int, seed: int, cache: str | None) -> list:
    """The generated skills, read from `cache` when it holds them (generating 10,000 takes a
    while), else generated and written there."""
    if cache and Path(cache).exists():
        with open(cache, "rb") as file:
            found: list = pickle.load(file)  # noqa: S301 (a file this script wrote)
        return found
    skills = generated_skills(count, seed)
    if cache:
        with open(cache, "wb") as file:
            pickle.dump(skills, file)
    return skills


def first_page(index: object, query: str) -> tuple[int, int]:
    """The cold row's page: the ranking, whether more follow (the length), and the first
    LIMIT hits' reasons and excerpts. Returns (length, hits on the page)."""
    hits = index.search(query, ())  # type: ignore[attr-defined]
    total = len(hits)
    for hit in hits[0:LIMIT]:
        hit.match_reasons()
        hit.excerpt(EXCERPT_CHARS)
    return total, min(total, LIMIT)


def ranked(index: object, query: str) -> tuple[int, int]:
    """The ranking alone: the first page's hits picked and the length, no reasons or excerpts."""
    hits = index.search(query, ())  # type: ignore[attr-defined]
    return len(hits), len(hits[0:LIMIT])


def one_pass(index: object, queries: list[str], rank_only: bool = False) -> list[float]:
    spent = []
    clock = time.process_time
    page = ranked if rank_only else first_page
    for query in queries:
        forget(index)
        started = clock()
        page(index, query)
        spent.append(clock() - started)
    return spent


def measure(module: object, skills: list, queries: list[str], profile: str | None) -> dict:
    gc.collect()
    index = module.SearchIndex(skills)  # type: ignore[attr-defined]
    first = one_pass(index, queries)
    second = one_pass(index, queries)
    if profile:
        profiler = cProfile.Profile()
        profiler.enable()
        one_pass(index, queries)
        profiler.disable()
        profiler.dump_stats(profile)
    del index
    # Memory on a fresh index, untimed: tracemalloc slows every allocation.
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    index = module.SearchIndex(skills)  # type: ignore[attr-defined]
    built = tracemalloc.get_traced_memory()[0] - before
    one_pass(index, queries)
    forget(index)
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    second.sort()
    return {
        "skills": len(skills),
        "queries": len(queries),
        "first_pass_mean_ms": round(statistics.fmean(first) * 1000, 4),
        "median_ms": round(second[len(second) // 2] * 1000, 4),
        "p99_ms": round(second[int(len(second) * 0.99)] * 1000, 4),
        "mean_ms": round(statistics.fmean(second) * 1000, 4),
        "index_mb": round(built / 1e6, 2),
        "index_after_a_pass_mb": round(held / 1e6, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--skills", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--skills-cache", default=None, help="a pickle of the generated skills, made once")
    parser.add_argument("--module-file", default=None, help="another catalog.search, loaded from a file")
    parser.add_argument("--profile", default=None, help="cProfile a third pass into this file")
    parser.add_argument("--callgrind", type=int, default=0, help="count the instructions of N queries")
    parser.add_argument("--rank-only", action="store_true", help="with --callgrind: the ranking, no page")
    parser.add_argument(
        "--first-pass", action="store_true", help="with --callgrind: count the first pass (a fresh index)"
    )
    args = parser.parse_args(argv)
    configure()
    module = load_module(args.module_file)
    skills = skills_of(args.skills, args.seed, args.skills_cache)
    if args.callgrind:
        index = module.SearchIndex(skills)  # type: ignore[attr-defined]
        queries = search_queries()[: args.callgrind]
        if args.first_pass:  # what the index remembers per stem starts empty
            callgrind("on")
            one_pass(index, queries, args.rank_only)
            callgrind("off")
            return 0
        one_pass(index, queries, args.rank_only)
        callgrind("on")
        one_pass(index, queries, args.rank_only)
        callgrind("off")
        return 0
    print(json.dumps(measure(module, skills, search_queries(), args.profile), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
