"""Does the server use both cores under load, run after run? (issue 18, docs/benchmarks.md
"Serialisation under load, session 4"). The ceiling and the registry's skills_list row, each
run `--runs` times, quiet and with a busy loop on one core beside them; for each run the
server's cores, every worker's cores and the connections it held (bench/load.py per_worker).

    .venv/bin/python -m bench.balance --runs 5                   # 1,000 skills, 4 s per run
    .venv/bin/python -m bench.balance --corpus /dev/shm/my-1000  # reuse a built corpus

A worker's threads share one GIL: a worker near 1.0 core with the others near 0, holding
most of the connections, is connections piled onto one worker; every worker busy with the
server still short of the ceiling's cores would be something serialising across processes
(a lock, a file); the server short of the ceiling with the machine's other load high is the
other load taking the CPU.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from bench.load import LoadResult, asdict_load, format_per_worker, run_wrk, tool_call
from bench.measure import BenchError
from bench.servers import (
    CEILING_APP,
    TOKEN,
    ceiling_probe,
    gunicorn_settings,
    launched,
    product_probe,
    published_env,
    wait_ready,
)
from tests.support.project import PROJECT_DIR

# A busy loop on one core: the "artificial background load" of issue 18.
BUSY_LOOP = "while True: pass"
BUSY_CPU = 0


@contextlib.contextmanager
def busy_loop(enabled: bool) -> Iterator[None]:
    """One process spinning on CPU BUSY_CPU for the duration, when `enabled`."""
    if not enabled:
        yield
        return
    spinner = subprocess.Popen([sys.executable, "-c", BUSY_LOOP])
    try:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(spinner.pid, {BUSY_CPU})
        yield
    finally:
        spinner.kill()
        spinner.wait(timeout=10)


def row(label: str, busy: bool, result: LoadResult, threads: int) -> dict:
    workers = result.extra["per_worker"]
    data = {
        "row": label,
        "busy_loop": busy,
        "rps": round(result.rps),
        "server_cores": round(result.server_cores, 2),
        "other_cores": round(result.other_cores, 2),
        "per_worker": workers,
        # A worker holding more connections than it has threads, beyond one: piled.
        "piled": max(worker["connections"] for worker in workers) > threads + 1,
    }
    print(
        f"  {label:<12} {'busy loop' if busy else 'quiet':<9} {data['rps']:6d} req/s  server "
        f"{data['server_cores']:.2f} cores  other {data['other_cores']:.2f}  "
        f"workers {format_per_worker(workers)}",
        flush=True,
    )
    return data


def summary(rows: list[dict]) -> list[str]:
    lines = [
        "",
        "| row | background | runs | server cores (mean, min-max) | busiest worker cores | piled runs |",
    ]
    lines.append("|---|---|---:|---:|---:|---:|")
    for label in dict.fromkeys(r["row"] for r in rows):
        for busy in (False, True):
            runs = [r for r in rows if r["row"] == label and r["busy_loop"] == busy]
            if not runs:
                continue
            cores = [r["server_cores"] for r in runs]
            top = [r["per_worker"][0]["cores"] for r in runs]
            lines.append(
                f"| {label} | {'busy loop on one core' if busy else 'quiet'} | {len(runs)} "
                f"| {statistics.mean(cores):.2f} ({min(cores):.2f}-{max(cores):.2f}) "
                f"| {statistics.mean(top):.2f} | {sum(r['piled'] for r in runs)} |"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--corpus", type=Path, default=None, help="a corpus built by bench.corpus (reused)")
    parser.add_argument("--runs", type=int, default=5, help="runs of each row, quiet and with the busy loop")
    parser.add_argument("--duration", type=float, default=4.0)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--no-busy", dest="busy", action="store_false", help="quiet runs only")
    parser.add_argument("--out", type=Path, default=PROJECT_DIR / "bench" / "out" / "balance.json")
    args = parser.parse_args(argv)
    if not 1 <= args.runs <= 50 or not 0 < args.duration <= 60:
        parser.error("--runs must be 1..50 and --duration in (0, 60]")
    work = Path(tempfile.mkdtemp(prefix="skills-bench-balance-"))
    rows: list[dict] = []
    try:
        env = published_env(args.corpus, args.skills, work)
        threads = int(gunicorn_settings(env)["threads"])
        body = tool_call("skills_list", {"limit": 50})
        with (
            launched(CEILING_APP, {**env, "BENCH_CEILING_MIDDLEWARE": ""}, work / "ceiling.log") as ceiling,
            launched("skillsite.wsgi", env, work / "registry.log") as registry,
        ):
            wait_ready(ceiling, ceiling_probe, "ceiling")
            wait_ready(registry, product_probe, "registry")
            servers = (("ceiling", ceiling), ("skills_list", registry))
            # Warm: every worker builds its index on first use (each run spreads connections anew).
            for _, server in servers * 3:
                run_wrk(server.url + "/mcp", body, TOKEN, 1, 8, 2, None, work, "warm")
            print(f"balance: {args.runs} runs x {args.duration:g} s, wrk {args.connections} connections")
            for busy in (False, True) if args.busy else (False,):
                with busy_loop(busy):
                    for _ in range(args.runs):
                        for label, server in servers:
                            result = run_wrk(
                                server.url + "/mcp",
                                body,
                                TOKEN,
                                args.duration,
                                args.connections,
                                args.threads,
                                server.pid,
                                work,
                                label,
                            )
                            rows.append({**row(label, busy, result, threads), "load": asdict_load(result)})
    except BenchError as exc:
        print(f"balance failed: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = "\n".join(summary(rows))
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"loadavg": os.getloadavg(), "rows": rows}, indent=2) + "\n")
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
