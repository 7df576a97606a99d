"""What Python's cyclic collector costs a gunicorn worker per request, under wrk.

    .venv/bin/python -m bench.gc_cost --corpus /dev/shm/c1000 --work /dev/shm/gc-1000 [--duration 10]

The corpus (bench/corpus.py build) is published into a fresh SQLite file under --work; then
two servers run with the production gunicorn.conf.py, each the product's app wrapped by
bench/gc_app.py (gc.callbacks counting collections and their CPU per generation): the cold
rows' app (answer cache off, bench/cold_app) and the registry itself. After every operation has
warmed every worker (bench.serve.prewarm, as `make bench` does), each row runs `--runs` times
for `--duration` seconds: the cold skills_search row (bench/cold.py's 4,096 distinct queries,
cycled) and the warm rows. Per row: requests, server CPU ms per request (/proc ticks of the
master and workers, as bench.run's), collections per 1,000 requests per generation, and the
collector's CPU ms per request (thread CPU time between each collection's start and stop).

--profile DIR: instead, py-spy (`record --native --gil`, all of one worker's threads holding
the GIL) on the cold rows' app with one worker and one wrk connection, as bench/profiles.py
profiles a row, the samples charged to bench/layers.py's layers with the collector's own
frames (gc_collect_main and below) a layer of their own: DIR/cold-search.txt and its summary.

--republish N: instead, the registry (bench/gc_app.py around skillsite.wsgi) on a copy of the
corpus, which gets N one-skill changes (bench.corpus.change_one), each published and then served
(every operation to every worker, so each builds the new snapshot's indexes): each worker's RSS
and the objects frozen after each, which must not grow with the publishes.

The machine's load moves the CPU figures; the counts of collections it does not move.
docs/benchmarks.md, "The collector under gunicorn, session 6 (issue 18)".
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench import corpus as corpus_mod
from bench.cold import cold_operations
from bench.gc_counters import CENSUS_FILE, FREEZE_FILE, GENERATIONS, STATS_PERIOD_S, THRESHOLD_VARIABLE
from bench.layers import SERVE_LAYERS
from bench.load import Operation, operations, run_wrk
from bench.measure import rss_mb, run_measured
from bench.profiles import count_samples, py_spy, summarize_collapsed
from bench.serve import prewarm
from bench.servers import COLD_APP, TOKEN, launched, manage, product_probe, published_env, wait_ready

GC_APP = "bench.gc_app:application"
# The collector's C functions, innermost in a native stack: charged to it, not to its caller.
GC_LAYERS = (("collector", ("gc_collect_main", "collect_with_callback", "gc_collect_generations")),)
PROFILE_LAYERS = GC_LAYERS + SERVE_LAYERS
WARM_ROWS = ("ping (the /mcp floor)", "skills_search", "skills_get")


def read_stats(directory: Path) -> dict[int, dict]:
    stats = {}
    for path in directory.glob("*.json"):
        try:
            one = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        stats[one["pid"]] = one
    return stats


def settled_stats(directory: Path) -> dict[int, dict]:
    """The counters once every worker's writer has written them after the last request."""
    time.sleep(3 * STATS_PERIOD_S)
    return read_stats(directory)


def census(directory: Path) -> dict[int, dict]:
    (directory / CENSUS_FILE).write_text(str(time.time()))
    time.sleep(10 * STATS_PERIOD_S)
    return {pid: one["census"] for pid, one in read_stats(directory).items()}


def difference(before: dict[int, dict], after: dict[int, dict]) -> dict:
    total = {"requests": 0, "collections": [0] * GENERATIONS, "cpu_ns": [0] * GENERATIONS}
    for pid, one in after.items():
        old = before.get(pid, {"requests": 0, "collections": [0] * 3, "cpu_ns": [0] * 3})
        total["requests"] += one["requests"] - old["requests"]
        for generation in range(GENERATIONS):
            total["collections"][generation] += (
                one["collections"][generation] - old["collections"][generation]
            )
            total["cpu_ns"][generation] += one["cpu_ns"][generation] - old["cpu_ns"][generation]
    return total


def measure(args: argparse.Namespace) -> list[dict]:
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    env = published_env(Path(args.corpus), 0, work)
    corpus = corpus_mod.load(Path(args.corpus))
    ops = operations(corpus)
    rows: list[dict] = []
    cold_dir, warm_dir = work / "gc-cold", work / "gc-warm"
    for directory in (cold_dir, warm_dir):
        directory.mkdir(exist_ok=True)
        for stale in directory.iterdir():
            stale.unlink()
    if args.threshold:
        env[THRESHOLD_VARIABLE] = args.threshold
    cold_env = {**env, "BENCH_GC_APP": COLD_APP.split(":")[0], "BENCH_GC_STATS_DIR": str(cold_dir)}
    warm_env = {**env, "BENCH_GC_APP": "skillsite.wsgi", "BENCH_GC_STATS_DIR": str(warm_dir)}
    with (
        launched(GC_APP, cold_env, work / "gunicorn-gc-cold.log") as cold,
        launched(GC_APP, warm_env, work / "gunicorn-gc-warm.log") as warm,
    ):
        wait_ready(cold, product_probe, "cold")
        wait_ready(warm, product_probe, "warm")
        prewarm(cold, ops, rounds=2)
        prewarm(warm, ops, rounds=3)
        searches = dict(cold_operations(corpus, cold.url + "/mcp", TOKEN))
        [cold_name] = [name for name in searches if name.startswith("skills_search")]
        subjects: list[tuple[str, object, Path, dict | list[dict]]] = [
            (cold_name, cold, cold_dir, searches[cold_name])
        ]
        by_name: dict[str, Operation] = {op.name: op for op in ops}
        subjects += [(name, warm, warm_dir, by_name[name].body) for name in WARM_ROWS if name in args.rows]
        if "cold" not in args.rows:
            subjects = subjects[1:]
        if args.freeze_after_warmup:
            for directory in (cold_dir, warm_dir):
                (directory / FREEZE_FILE).write_text(str(time.time()))
        for directory in (cold_dir, warm_dir):
            for pid, counts in census(directory).items():
                print(f"  census {directory.name} worker {pid}: {counts}", flush=True)
        for run in range(args.runs):
            for name, server, directory, body in subjects:
                before = settled_stats(directory)
                result = run_wrk(
                    server.url + "/mcp",  # type: ignore[attr-defined]
                    body,
                    TOKEN,
                    args.duration,
                    args.connections,
                    args.threads,
                    server.pid,  # type: ignore[attr-defined]
                    work,
                    name,
                )
                gc_total = difference(before, settled_stats(directory))
                requests = max(1, gc_total["requests"])
                row = {
                    "row": name,
                    "run": run,
                    "rps": round(result.rps, 1),
                    "requests": gc_total["requests"],
                    "server_cpu_ms_per_req": round(result.server_cpu_ms_per_req, 3),
                    "other_cores": round(result.other_cores, 2),
                    "collections_per_1000": [round(n * 1000 / requests, 2) for n in gc_total["collections"]],
                    "gc_ms_per_req": [round(ns / 1e6 / requests, 4) for ns in gc_total["cpu_ns"]],
                }
                row["gc_share"] = round(
                    sum(row["gc_ms_per_req"]) / max(1e-9, result.server_cpu_ms_per_req), 3
                )
                rows.append(row)
                print(
                    f"  {name:<44} {row['rps']:7.0f} req/s  {row['server_cpu_ms_per_req']:.3f} ms CPU/req  "
                    f"collections/1000 req {row['collections_per_1000']}  "
                    f"gc ms/req {row['gc_ms_per_req']} ({row['gc_share']:.1%})  other {row['other_cores']}",
                    flush=True,
                )
        for directory in (cold_dir, warm_dir):
            for pid, counts in census(directory).items():
                print(f"  census {directory.name} worker {pid}: {counts}", flush=True)
    return rows


def profile(args: argparse.Namespace) -> None:
    spy = py_spy()
    if spy is None:
        raise SystemExit("py-spy is not installed: .venv/bin/pip install py-spy")
    work, out = Path(args.work), Path(args.profile)
    work.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    env = {**published_env(Path(args.corpus), 0, work), "GUNICORN_WORKERS": "1"}
    corpus = corpus_mod.load(Path(args.corpus))
    with launched(COLD_APP, env, work / "gunicorn-profile.log") as server:
        wait_ready(server, product_probe, "profiled")
        prewarm(server, operations(corpus), rounds=2)
        searches = dict(cold_operations(corpus, server.url + "/mcp", TOKEN))
        [name] = [name for name in searches if name.startswith("skills_search")]
        target = out / "cold-search.txt"
        duration = max(3, round(args.duration))
        argv = [spy, "record", "--rate", "250", "--format", "raw", "--subprocesses", "--gil", "--native"]
        argv += ["--duration", str(duration), "--pid", str(server.pid), "-o", str(target)]
        spy_process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            time.sleep(0.5)
            result = run_wrk(
                server.url + "/mcp", searches[name], TOKEN, duration, 1, 1, server.pid, work, name
            )
            _, err = spy_process.communicate(timeout=duration + 60)
        finally:
            if spy_process.poll() is None:
                spy_process.kill()
                spy_process.wait(timeout=10)
    if not target.exists():
        raise SystemExit(f"py-spy recorded nothing: {err.decode(errors='replace')[-300:]}")
    header = (
        f"{name}, 1 worker, 1 connection, under py-spy --native --gil: {result.rps:.0f} req/s, "
        f"{result.server_cpu_ms_per_req:.2f} ms CPU/req\n\n"
    )
    summary = header + summarize_collapsed(target, PROFILE_LAYERS)
    (out / "cold-search-summary.md").write_text(summary)
    samples = count_samples(target.read_text(errors="replace"), PROFILE_LAYERS)
    print(header + "".join(f"  {layer}: {samples.share(layer):.1f}%\n" for layer in sorted(samples.layers)))


def republish(args: argparse.Namespace) -> None:
    work = Path(args.work)
    repo = work / "repo"
    if not repo.exists():
        shutil.copytree(args.corpus, repo, symlinks=True)
    env = published_env(repo, 0, work)
    stats = work / "gc-republish"
    stats.mkdir(exist_ok=True)
    for stale in stats.iterdir():
        stale.unlink()
    corpus = corpus_mod.load(repo)
    with launched(
        GC_APP, {**env, "BENCH_GC_STATS_DIR": str(stats)}, work / "gunicorn-republish.log"
    ) as server:
        wait_ready(server, product_probe, "registry")
        for step in range(args.republish + 1):
            if step:
                change = corpus_mod.change_one(repo)
                published = run_measured(manage("publish", change["sha"], "--repo", str(repo)), env, 900)
                if published.returncode != 0:
                    raise SystemExit(f"publish failed: {published.stderr[-2000:]}")
            prewarm(server, operations(corpus), rounds=3)
            frozen = {pid: one["freeze_count"] for pid, one in settled_stats(stats).items()}
            rss = {pid: round(rss_mb(pid) or 0, 1) for pid in server.workers()}
            print(
                f"  after publish {step}: {server.registry_sha()}  RSS MB {rss}  frozen {frozen}", flush=True
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--work", required=True, help="a fresh directory for the database and logs")
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--rows", nargs="+", default=["cold", *WARM_ROWS], help=f"'cold' and any of {WARM_ROWS}"
    )
    parser.add_argument(
        "--freeze-after-warmup", action="store_true", help="each worker: gc.collect(), gc.freeze() once warm"
    )
    parser.add_argument("--threshold", help="gc.set_threshold in each worker, e.g. 7000,10,10")
    parser.add_argument("--json", help="write the rows here too")
    parser.add_argument("--republish", type=int, help="publishes (1..20) watched instead (see above)")
    parser.add_argument("--profile", help="a directory: py-spy the cold search row instead (see above)")
    args = parser.parse_args(argv)
    if not 0 < args.duration <= 120 or not 1 <= args.runs <= 20:
        parser.error("--duration must be in (0, 120] and --runs 1..20")
    if args.profile:
        profile(args)
        return 0
    if args.republish is not None:
        if not 1 <= args.republish <= 20:
            parser.error("--republish must be 1..20")
        republish(args)
        return 0
    rows = measure(args)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
