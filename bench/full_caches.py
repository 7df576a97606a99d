"""RSS per gunicorn worker with every per-process cache full (docs/benchmarks.md, "Memory with
every cache full"): RSS is what the 200 MB bound per worker at 10,000 skills is about, and it
does not depend on the machine's load, so this runs on a busy machine too.

    .venv/bin/python -m bench.corpus build --skills 10000 --out /dev/shm/corpus-10000
    .venv/bin/python -m bench.full_caches --corpus /dev/shm/corpus-10000 [--workers 1] [--passes 2]

The corpus published into a fresh SQLite file, then the registry under the production
gunicorn.conf.py (only the worker count may be set: with one worker every request reaches it,
the worst case of one worker's caches). Both clearances (the bench's read token and a ZDR
token: each builds its own index), each sends, `--passes` times, every request of
bench/cold.py's cold rows: every skill's skills_get and SKILL.md, every file, every list page,
4,096 distinct searches; that fills the answer cache (mcpapi.answer_cache), the blob cache
(catalog.blobs, the files of the corpus are several times its bound) and the search caches
(catalog.search). VmRSS of every worker is printed after boot, after each clearance's pass, and
at the end.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench import corpus as corpus_mod
from bench.cold import cold_operations
from bench.load import SEARCH_QUERY, post_json, tool_call
from bench.measure import BenchError, rss_mb, run_measured
from bench.servers import TOKEN, django_env, launched, manage, product_probe, wait_ready
from tests.support.gunicorn import GunicornServer

ZDR_TOKEN = "bench-static-zdr-token"
THREADS = 4
BOUNDED_APP = "bench.cold_app.bounded:application"


def send_all(url: str, token: str, bodies: list[dict]) -> int:
    """Every body once, THREADS at a time; how many were not a 200."""
    failures = [0]
    position = iter(range(len(bodies)))
    lock = threading.Lock()

    def worker() -> None:
        while True:
            with lock:
                index = next(position, None)
            if index is None:
                return
            status, _, _ = post_json(url, bodies[index], token, timeout=60)
            if status != 200:
                with lock:
                    failures[0] += 1

    threads = [threading.Thread(target=worker) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures[0]


def worker_rss(server: GunicornServer) -> list[float]:
    return [round(rss_mb(pid) or 0, 1) for pid in server.workers()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", required=True, type=Path, help="a repository bench.corpus built")
    parser.add_argument(
        "--workers", type=int, default=None, help="gunicorn workers (default: gunicorn.conf.py's)"
    )
    parser.add_argument("--blob-cache-mib", type=float, default=None, help="another blob cache bound")
    parser.add_argument("--answer-cache-mib", type=float, default=None, help="another answer cache bound")
    parser.add_argument("--passes", type=int, default=2, choices=range(1, 6), metavar="1..5")
    args = parser.parse_args(argv)
    corpus = corpus_mod.load(args.corpus)
    with tempfile.TemporaryDirectory(prefix="full-caches-") as tmp:
        env = django_env(Path(tmp) / "db.sqlite3", args.corpus, args.workers)
        env["SKILLS_ZDR_TOKENS"] = ZDR_TOKEN
        app = "skillsite.wsgi"
        for option, variable in (
            (args.blob_cache_mib, "BENCH_BLOB_CACHE_BYTES"),
            (args.answer_cache_mib, "BENCH_ANSWER_CACHE_BYTES"),
        ):
            if option is not None:
                env[variable] = str(int(option * 1024 * 1024))
                app = BOUNDED_APP
        for step in (("migrate", "--noinput"), ("publish", corpus.sha, "--repo", str(args.corpus))):
            done = run_measured(manage(*step), env, timeout=900)
            if done.returncode != 0:
                raise BenchError(f"{step[0]} failed:\n{done.stderr[-2000:]}")
        print(
            f"{corpus.skills:,} skills, {corpus.file_count:,} files, "
            f"{corpus.total_bytes / 1e6:.1f} MB; published"
        )
        with launched(app, env, Path(tmp) / "gunicorn.log") as server:
            wait_ready(server, product_probe, "registry", timeout=120)
            print(f"workers after boot: {worker_rss(server)} MB")
            url = server.url + "/mcp"
            for label, token in (("read token", TOKEN), ("ZDR token", ZDR_TOKEN)):
                # One search first: the search index is built on the first one (a per-snapshot
                # structure, not a cache), so the searches after it show what the caches add.
                first = tool_call("skills_search", {"query": SEARCH_QUERY, "limit": 20})
                rows = [("one search (builds the search index)", [first])]
                rows += cold_operations(corpus, url, token)
                for _ in range(args.passes):
                    for name, bodies in rows:
                        started = time.monotonic()
                        failures = send_all(url, token, bodies)
                        print(
                            f"{label}: {name} in {time.monotonic() - started:.0f} s, {failures} not 200; "
                            f"workers {worker_rss(server)} MB",
                            flush=True,
                        )
            print(f"at the end: workers {worker_rss(server)} MB, master {rss_mb(server.pid) or 0:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
