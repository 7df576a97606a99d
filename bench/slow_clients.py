"""Slow-header clients against a real gunicorn (issue 15, finding 4; docs/benchmarks.md).

    python -m bench.slow_clients [--slow 64] [--pings 30] [--worker-class CLASS]

Starts the registry under the production gunicorn.conf.py on a fresh SQLite database,
measures MCP pings on new connections (sequential, 10 s timeout each) with no slow client,
then again with --slow connections open that each send a request line and one header byte
every --interval seconds. Prints the latencies (median, p95, max, timeouts) and what the
server did to the slow connections.
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.servers import TOKEN, django_env, manage, wait_ready
from tests.support.gunicorn import GunicornServer, healthz_answers
from tests.support.project import PROJECT_DIR
from tests.support.slow_clients import SlowHeaderClients, ping_latency


def pings(port: int, count: int, timeout: float, pause: float) -> dict[str, float | int]:
    latencies: list[float] = []
    timeouts = 0
    for _ in range(count):
        try:
            latencies.append(ping_latency(port, TOKEN, timeout=timeout))
        except (TimeoutError, ConnectionError):
            timeouts += 1
        time.sleep(pause)
    ordered = sorted(latencies)
    return {
        "answered": len(ordered),
        "timeouts": timeouts,
        "median_ms": round(statistics.median(ordered) * 1000, 1) if ordered else float("nan"),
        "p95_ms": round(ordered[math.ceil(len(ordered) * 0.95) - 1] * 1000, 1) if ordered else float("nan"),
        "max_ms": round(ordered[-1] * 1000, 1) if ordered else float("nan"),
    }


def _status(answer: bytes) -> str:
    """The status code of what the server sent a slow connection before closing it."""
    return answer.split(b" ", 2)[1].decode() if answer.startswith(b"HTTP/") else "none"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--slow", type=int, default=64, help="slow-header connections (default 64)")
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between their bytes")
    parser.add_argument("--pings", type=int, default=30, help="measured pings per phase")
    parser.add_argument("--pause", type=float, default=0.5, help="seconds between two pings")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds before a ping counts as lost")
    parser.add_argument(
        "--settle", type=float, default=3.0, help="seconds between opening them and measuring"
    )
    parser.add_argument(
        "--worker-class", default=None, help="GUNICORN_WORKER_CLASS (default: gunicorn.conf.py's)"
    )
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="slow-clients-") as workdir:
        env = django_env(Path(workdir) / "db.sqlite3", PROJECT_DIR, None, args.worker_class, "WARNING")
        subprocess.run(manage("migrate", "--noinput", "-v", "0"), env=env, check=True, timeout=120)
        server = GunicornServer(env, workers=None, log_path=Path(workdir) / "gunicorn.log")
        server.launch()
        try:
            wait_ready(server, healthz_answers, "registry")
            print(
                f"gunicorn: worker class {args.worker_class or 'gunicorn.conf.py default'}, "
                f"{len(server.workers())} workers"
            )
            # Each worker's first requests load what Django loads lazily: not measured.
            pings(server.port, 10, args.timeout, 0)
            quiet = pings(server.port, args.pings, args.timeout, args.pause)
            print(f"no slow client:        {quiet}")
            started = time.monotonic()
            with SlowHeaderClients(server.port, count=args.slow, interval=args.interval) as slow:
                time.sleep(args.settle)
                loaded = pings(server.port, args.pings, args.timeout, args.pause)
                print(f"{args.slow} slow connections: {loaded}")
                held = time.monotonic() - started
                statuses = sorted({_status(answer) for answer in slow.answers})
                print(f"in {held:.1f} s the server closed {slow.closed_by_server} of them: {statuses}")
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
