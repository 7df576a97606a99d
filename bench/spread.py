"""How wrk's keep-alive connections fall on the cold rows' server's workers, run by run.

    .venv/bin/python -m bench.corpus build --skills 1000 --out /dev/shm/corpus-1000
    .venv/bin/python -m bench.spread --corpus /dev/shm/corpus-1000 --work /tmp/spread \
        --repeats 4 --rows 'skills_get (cold' 'resources/read (cold'

Each gunicorn worker accepts connections on the shared socket for itself and keeps one for the
whole of a wrk run, and one worker process uses at most one CPU: a run whose connections fall
on fewer workers than there are cannot use the machine, whatever the request. For each run of
each row (the cold rows of bench/cold.py, against bench/cold_app as bench.run serves them, 8
connections and 2 wrk threads as bench.run's default): requests/s, server CPU a request,
the connections each worker held 1.5 s in (`ss -tnp`), and the CPUs each worker used.
docs/benchmarks.md, "Cold paths, session 4", has what it showed.
"""

from __future__ import annotations

import argparse
import collections
import re
import subprocess
import threading
import time
from pathlib import Path

from bench import corpus as corpus_mod
from bench.cold import cold_operations
from bench.load import operations, run_wrk
from bench.measure import CLK_TCK, proc_stat
from bench.serve import prewarm
from bench.servers import COLD_APP, TOKEN, django_env, launched, manage, product_probe, wait_ready

SECONDS = 4.0
SAMPLE_AFTER = 1.5


def _ticks(pid: int) -> int:
    fields = proc_stat(pid)
    return int(fields[11]) + int(fields[12]) if fields else 0


def _held(port: int, workers: list[int], out: list[int]) -> None:
    """The established connections of `port` each worker holds, SAMPLE_AFTER seconds from now."""
    time.sleep(SAMPLE_AFTER)
    listing = subprocess.run(
        ["ss", "-tnpH", "state", "established", f"( sport = :{port} )"], capture_output=True, text=True
    ).stdout
    counts = collections.Counter(int(pid) for pid in re.findall(r"pid=(\d+)", listing))
    out.extend(counts.get(worker, 0) for worker in workers)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, required=True, help="a corpus of bench.corpus build")
    parser.add_argument("--work", type=Path, required=True, help="a directory for the database and logs")
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--rows", nargs="+", required=True, help="rows whose name holds one of these")
    args = parser.parse_args(argv)

    args.work.mkdir(parents=True, exist_ok=True)
    db = args.work / "db.sqlite3"
    env = django_env(db, args.corpus, None, None, None)
    corpus = corpus_mod.load(args.corpus)
    if not db.exists():
        subprocess.run(manage("migrate", "--noinput"), env=env, check=True, capture_output=True)
        publish = manage("publish", corpus.sha, "--repo", str(args.corpus))
        subprocess.run(publish, env=env, check=True, capture_output=True)
    with launched(COLD_APP, env, args.work / "gunicorn-cold.log") as server:
        wait_ready(server, product_probe, "registry, answer cache off")
        prewarm(server, operations(corpus), rounds=2)
        port = int(server.url.rsplit(":", 1)[1])
        workers = sorted(server.workers())
        for name, bodies in cold_operations(corpus, server.url + "/mcp", TOKEN):
            if not any(text in name for text in args.rows):
                continue
            for _ in range(args.repeats):
                held: list[int] = []
                before = [_ticks(worker) for worker in workers]
                sampler = threading.Thread(target=_held, args=(port, workers, held))
                sampler.start()
                result = run_wrk(
                    server.url + "/mcp", bodies, TOKEN, SECONDS, 8, 2, server.pid, args.work, name
                )
                sampler.join()
                cpus = [
                    (_ticks(worker) - ticks) / CLK_TCK / SECONDS
                    for worker, ticks in zip(workers, before, strict=True)
                ]
                used = "/".join(f"{cpu:.2f}" for cpu in cpus)
                print(
                    f"{name}: {result.rps:,.0f} req/s, {result.server_cpu_ms_per_req:.2f} ms CPU a request; "
                    f"connections per worker {held}, CPUs per worker {used}",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
