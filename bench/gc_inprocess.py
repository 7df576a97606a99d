"""The cyclic collector's share of cold searches in one process, through gunicorn's WSGI path
(bench/wsgi_memory.py), the collector left as a worker has it: nothing frozen by the bench.

    .venv/bin/python -m bench.gc_inprocess --db /dev/shm/gci.sqlite3 [--requests 2000] [--census]
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/dev/shm/gci.%p \\
        .venv/bin/python -m bench.gc_inprocess --db /dev/shm/gci.sqlite3 --callgrind

--db: a SQLite file the corpus is published in (bench/gc_cost.py's --work holds one). The cold
rows' app (bench/cold_app: the answer cache off) answers bench/cold.py's distinct queries in
turn, on one in-memory keep-alive connection, after one warming request built the indexes (so
the product's own freeze, if any, has happened). Printed: the collections per 1,000 requests
per generation and their thread CPU time (bench/gc_counters.py), and with --census the object
types the collector still tracks afterwards, most first. --callgrind: the requests run twice,
`--requests` and `--requests * 2`, each between callgrind_control's zero and dump, so the
difference is `--requests` requests, start-up cancelled (function gc_collect_main's inclusive
count in callgrind_annotate is the collector's share). docs/benchmarks.md, "The collector under
gunicorn, session 6 (issue 18)".
"""

from __future__ import annotations

import argparse
import collections
import gc
import json
import os
import sys
from pathlib import Path

from bench.cold import search_queries
from bench.gc_counters import GcCounters
from bench.load import tool_call
from bench.wsgi_floor import control
from bench.wsgi_memory import Connection, Gunicorn, request_bytes


def requests(server: Gunicorn, bodies: list[bytes], count: int, start: int) -> None:
    data = b"".join(request_bytes(bodies[(start + n) % len(bodies)]) for n in range(count))
    from gunicorn.http import get_parser

    server.connection = Connection(data)
    server.parser = get_parser(server.cfg, server.connection, ("127.0.0.1", 40000))
    for _ in range(count):
        server.request()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", required=True, type=Path)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--callgrind", action="store_true")
    parser.add_argument("--census", action="store_true")
    args = parser.parse_args(argv)
    if not 1 <= args.requests <= 100_000:
        parser.error("--requests must be 1..100000")
    from bench.inprocess import configure
    from bench.servers import TOKEN

    configure(args.db, {"SKILLS_READ_TOKENS": TOKEN, "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost"})
    import logging

    sink = open(os.devnull, "w")
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(sink)
    from bench.cold_app.wsgi import application

    server = Gunicorn(application)
    bodies = [
        json.dumps(tool_call("skills_search", {"query": query, "limit": 20})).encode()
        for query in search_queries()
    ]
    requests(server, bodies, 1, len(bodies) - 1)  # the indexes built
    counters = GcCounters()
    gc.callbacks.append(counters.on_gc)
    if args.callgrind:
        done = 0
        for repetitions in (args.requests, args.requests * 2):
            control("--zero")
            control("--instr=on")
            requests(server, bodies, repetitions, done)
            control("--instr=off")
            control(f"--dump=cold_search:{repetitions}")
            done += repetitions
        count = done
    else:
        requests(server, bodies, args.requests, 0)
        count = args.requests
    assert server.statuses == {"200 OK"}, server.statuses
    print(
        f"{count} cold searches: collected per request {[round(n / count, 2) for n in counters.collected]}",
        file=sys.stderr,
    )
    print(
        f"{count} cold searches: collections per 1000 "
        f"{[round(n * 1000 / count, 2) for n in counters.collections]}, gc CPU ms per request "
        f"{[round(ns / 1e6 / count, 4) for ns in counters.cpu_ns]}, frozen {gc.get_freeze_count()}, "
        f"tracked {[len(gc.get_objects(generation)) for generation in range(3)]}",
        file=sys.stderr,
    )
    if args.census:
        kinds = collections.Counter(type(one).__qualname__ for one in gc.get_objects())
        referents: collections.Counter[str] = collections.Counter()
        for one in gc.get_objects():
            referents[type(one).__qualname__] += len(gc.get_referents(one))
        for kind, number in kinds.most_common(15):
            print(f"  {number:8} {kind} ({referents[kind]} referents)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
