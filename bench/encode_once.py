"""Encode once: what each kept operation costs per request with the answer cache and without it,
warm (one request repeated) and cold (distinct requests, none of them kept).

    .venv/bin/python -m bench.corpus build --skills 1000 --out /dev/shm/corpus-1000
    .venv/bin/python -m bench.encode_once --corpus /dev/shm/corpus-1000 --db /dev/shm/eo.sqlite3
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/dev/shm/eo.%p \
        .venv/bin/python -m bench.encode_once --corpus /dev/shm/corpus-1000 --db /dev/shm/eo.sqlite3 \
        --callgrind --requests 40

One process, the same published corpus (in an SQLite file made by the first run and reused:
under valgrind, publishing would take minutes), django.test.Client through the whole middleware
stack, the access log written to /dev/null as in view_overhead. "off" is the dispatcher without
its AnswerCache: the code path of before the cache. Warm repeats one request (the median skill
or file, the first page); cold cycles through distinct requests (every skill, file or page) and
empties the cache at the start of each cycle, so every request is a miss (and, with the cache
on, stored). Without --callgrind: CPU microseconds per request (time.process_time), the median of
--runs runs. With --callgrind: instructions per request of each row, from callgrind's totals
(instrumentation on only around each row's requests, zeroed and dumped per row).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.cold import search_queries
from bench.inprocess import configure, migrate_and_publish
from bench.view_overhead import TOKEN, callgrind

HEADERS = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json, text/event-stream"}


def _setup(corpus: Path, db_path: Path, env: dict[str, str] | None = None) -> None:
    configure(db_path, {"SKILLS_READ_TOKENS": TOKEN, **(env or {})})
    import logging

    if not db_path.exists() or db_path.stat().st_size == 0:
        migrate_and_publish(corpus)
    sink = open(os.devnull, "w")  # kept open for the life of the process
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(sink)


def _rpc(method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


def _tool(name: str, **arguments: Any) -> bytes:
    return _rpc("tools/call", {"name": name, "arguments": arguments})


def _post(client: Any, body: bytes) -> dict[str, Any]:
    response = client.post("/mcp", data=body, content_type="application/json", headers=HEADERS)
    assert response.status_code == 200, response.content
    reply: dict[str, Any] = json.loads(response.content)
    assert "error" not in reply, reply
    result = reply["result"]
    assert not result.get("isError"), result
    return result


def _pages(
    client: Any, first: Callable[[str | None], bytes], cursor_of: Callable[[dict[str, Any]], Any]
) -> list[bytes]:
    bodies, cursor = [], None
    while True:
        body = first(cursor)
        bodies.append(body)
        cursor = cursor_of(_post(client, body))
        if cursor is None:
            return bodies


def operations(client: Any) -> dict[str, tuple[bytes, list[bytes]]]:
    """Each operation's warm request and its cold ones."""
    from catalog.index import active_view
    from mcpapi.skills_ext import is_native

    view = active_view(False)
    assert view is not None
    skills = view.skills
    median = sorted(skills, key=lambda skill: skill.skill_md_size)[len(skills) // 2]
    files = [(skill.id, entry.path, entry.size) for skill in skills for entry in skill.files]
    median_file = sorted(files, key=lambda file: file[2])[len(files) // 2]
    natives = [skill.id for skill in skills if is_native(skill)]

    def list_page(cursor: str | None) -> bytes:
        return _tool("skills_list", limit=50, **({"cursor": cursor} if cursor else {}))

    def protocol_page(method: str) -> Callable[[str | None], bytes]:
        return lambda cursor: _rpc(method, {"cursor": cursor} if cursor else {})

    ops = {
        "ping": (_rpc("ping"), [_rpc("ping")]),
        "skills_list": (
            list_page(None),
            _pages(client, list_page, lambda r: r["structuredContent"]["next_cursor"]),
        ),
        "skills_get": (_tool("skills_get", id=median.id), [_tool("skills_get", id=s.id) for s in skills]),
        "skills_get_file": (
            _tool("skills_get_file", id=median_file[0], path=median_file[1]),
            [_tool("skills_get_file", id=i, path=p) for i, p, _ in files],
        ),
        "resources/read": (
            _rpc("resources/read", {"uri": f"skill://{median.id}/SKILL.md"}),
            [_rpc("resources/read", {"uri": f"skill://{s.id}/SKILL.md"}) for s in skills],
        ),
        # The cold row's distinct queries (bench/cold.py); run() forgets the search index's
        # rankings before each one, as wrk's cycle over 4,096 of them outlives RANKED_CACHE_SIZE.
        "skills_search": (
            _tool("skills_search", query="postgres migrations", limit=20),
            [_tool("skills_search", query=query, limit=20) for query in search_queries()],
        ),
        "resources/list": (
            _rpc("resources/list", {}),
            _pages(client, protocol_page("resources/list"), lambda r: r.get("nextCursor")),
        ),
    }
    if natives:
        ops["skills/list"] = (
            _rpc("skills/list", {}),
            _pages(client, protocol_page("skills/list"), lambda r: r.get("nextCursor")),
        )
        ops["skills/get"] = (
            _rpc("skills/get", {"uri": f"skill://{natives[0]}/SKILL.md"}),
            [_rpc("skills/get", {"uri": f"skill://{i}/SKILL.md"}) for i in natives],
        )
    return ops


def run(client: Any, bodies: list[bytes], requests: int, answers: Any, blobs: bool = False) -> None:
    """`requests` of `bodies` in turn; at the start of each cycle, `answers` (when given) and,
    with `blobs`, the blob cache are emptied."""
    from catalog.blobs import clear_blob_cache
    from catalog.index import active_view

    rankings = None
    if answers is not None and len(bodies) > 1 and b'"skills_search"' in bodies[0]:
        view = active_view(False)
        assert view is not None
        rankings = view.search_index()._ranked
    for number in range(requests):
        position = number % len(bodies)
        if position == 0 and answers is not None:
            answers.clear()
        if position == 0 and blobs:
            clear_blob_cache()
        if rankings is not None:
            rankings.clear()
        client.post("/mcp", data=bodies[position], content_type="application/json", headers=HEADERS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--callgrind", action="store_true")
    parser.add_argument("--only", nargs="*", help="operations to measure (default: all)")
    parser.add_argument("--modes", nargs="*", default=["warm", "cold"], choices=["warm", "cold"])
    parser.add_argument("--states", nargs="*", default=["off", "on"], choices=["off", "on"])
    parser.add_argument(
        "--cold-blobs",
        action="store_true",
        help="cold rows also empty the blob cache each cycle: every file is read from the database",
    )
    parser.add_argument(
        "--memory",
        action="store_true",
        help="fill the cache to its bounds; its size (tracemalloc) and the RSS",
    )
    args = parser.parse_args(argv)

    _setup(args.corpus, args.db)
    from django.test import Client

    from mcpapi import answer_cache
    from mcpapi.protocol import dispatcher

    client = Client()
    ops = operations(client)
    cache = answer_cache.answers
    states = {state: answers for state, answers in (("off", None), ("on", cache)) if state in args.states}
    if args.memory:
        return memory(client, ops, cache)
    print(f"{len(ops)} operations; {args.requests} requests a row", flush=True)
    for name, (warm, cold) in ops.items():
        if args.only and name not in args.only:
            continue
        for mode, bodies in (("warm", [warm]), ("cold", cold)):
            if mode not in args.modes:
                continue
            figures: dict[str, float] = {}
            for state, answers in states.items():
                dispatcher.answers = answers
                clearing = cache if mode == "cold" or answers is None else None
                blobs = mode == "cold" and args.cold_blobs
                run(client, bodies, min(100, args.requests), clearing, blobs)  # warm-up
                if mode == "warm" and answers is not None:
                    cache.clear()
                    run(client, bodies, 1, None)  # the one miss that keeps it
                if args.callgrind:
                    subprocess.run(
                        ["callgrind_control", "-z", str(os.getpid())], check=False, capture_output=True
                    )
                    callgrind("on")
                    run(client, bodies, args.requests, clearing, blobs)
                    callgrind("off")
                    figures[state] = _dumped_instructions() / args.requests
                else:
                    runs = []
                    for _ in range(args.runs):
                        started = time.process_time()
                        run(client, bodies, args.requests, clearing, blobs)
                        runs.append((time.process_time() - started) / args.requests * 1e6)
                    figures[state] = statistics.median(runs)
            unit = "instructions" if args.callgrind else "CPU µs"
            shown = "  ".join(f"{state} {figure:10.0f}" for state, figure in figures.items())
            change = f"{figures['on'] / figures['off'] - 1:+.0%}; " if len(figures) == 2 else ""
            print(f"{name:>16} {mode}: {shown} {unit}/request ({change}{len(bodies)} distinct)", flush=True)
    dispatcher.answers = cache
    return 0


def memory(client: Any, ops: dict[str, tuple[bytes, list[bytes]]], cache: Any) -> int:
    """Every distinct request of every operation, largest answers last, until the cache is at
    its bounds: the RSS of the process then (index, search index, memos and blob cache built,
    as in a worker that served everything), and what the cache itself holds (tracemalloc: traced
    memory full, less traced memory once it is emptied)."""
    import gc
    import tracemalloc

    from mcpapi import answer_cache

    _post(client, _tool("skills_search", query="postgres migrations"))
    print(f"RSS with the index and the search index built: {_rss_mb():.0f} MB", flush=True)
    # The pages last: the largest answers, so that the byte bound is the one reached.
    pages = ("skills_list", "resources/list", "skills/list")
    order = [name for name in ops if name not in pages] + [name for name in pages if name in ops]
    everything = [body for name in order for body in ops[name][1]]
    run(client, everything, len(everything), None)
    print(
        f"after {len(everything)} distinct requests: {len(cache)} answers kept, "
        f"{cache.bytes / 2**20:.1f} MiB counted (bounds {answer_cache.MAX_ENTRIES}, "
        f"{answer_cache.MAX_BYTES / 2**20:.0f} MiB); "
        f"RSS {_rss_mb():.0f} MB",
        flush=True,
    )
    cache.clear()
    gc.collect()
    tracemalloc.start()
    run(client, everything, len(everything), None)
    gc.collect()
    full = tracemalloc.get_traced_memory()[0]
    kept, counted = len(cache), cache.bytes
    cache.clear()
    gc.collect()
    emptied = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    print(
        f"tracemalloc: the cache full ({kept} answers, {counted / 2**20:.1f} MiB counted) holds "
        f"{(full - emptied) / 2**20:.1f} MiB",
        flush=True,
    )
    return 0


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def _dumps() -> set[Path]:
    """callgrind's dump files of this process (--callgrind-out-file=/dev/shm/eo.%p, or its default)."""
    pid = os.getpid()
    return set(Path("/dev/shm").glob(f"eo.{pid}*")) | set(Path(".").glob(f"callgrind.out.{pid}*"))


def _dumped_instructions() -> float:
    """Dump callgrind's counts since the last zeroing; the instructions of the dump."""
    before = _dumps()
    subprocess.run(["callgrind_control", "--dump", str(os.getpid())], check=False, capture_output=True)
    [dump] = _dumps() - before
    totals = [line for line in dump.read_text().splitlines() if line.startswith("totals:")]
    if not totals:
        raise RuntimeError(f"no totals in {dump}")
    dump.unlink()
    return float(totals[-1].split()[1])


if __name__ == "__main__":
    raise SystemExit(main())
