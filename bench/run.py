"""The registry benchmark: publish and serve a generated corpus, against the ceiling, in one run.

    .venv/bin/python -m bench.run --quick            # make bench: 1,000 skills, 4 s per load run
    .venv/bin/python -m bench.run --skills 10000     # make bench-full: 10,000 skills, 10 s per run

Steps, all against 127.0.0.1 only, every loop bounded in time and count:

1. a seeded corpus (bench/corpus.py, built in a child process) committed into a temporary git
   repository (on /dev/shm when there is one: building the corpus is not what is measured);
2. `manage.py migrate`, then `manage.py publish <sha>` into a fresh SQLite file (on disk), then
   a one-skill change published on top, then the same SHA again (a no-op): wall time, CPU time
   and peak RSS of each process (GNU time; wait4 as a fallback);
3. gunicorn with the production gunicorn.conf.py serving the ceiling (bench/ceiling/), the
   ceiling with the registry's middleware, and the registry against the published database,
   all at once; every row runs between two ceiling runs (paired ratios). wrk with
   bench/wrk/post.lua drives `--connections` keep-alive connections for `--duration` seconds.
   For each row: requests/s, p50/p99 latency, server CPU ms per request (user + system ticks of
   the gunicorn master and workers from /proc/<pid>/stat, before and after), wrk's own CPU, and
   how busy the rest of the machine was meanwhile (noise);
4. RSS of every worker (/proc/<pid>/status VmRSS) after boot, after the first requests of each
   kind, and after the load runs;
5. a Markdown report (printed, and written to bench/out/results-<N>.md with the JSON beside it),
   the targets of docs/benchmarks.md marked PASS or MISS.

`--profile` adds py-spy runs, never mixed into the measured numbers: the publish from empty and
the one-skill change, and each operation on one worker with one connection; collapsed stacks
and summaries (cost by layer, self and inclusive time) land in bench/out/profile-<N>/.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from bench import corpus as corpus_mod
from bench.load import wrk_available
from bench.machine import head_commit, machine_info
from bench.measure import BenchError, run_measured
from bench.profiles import profile_publish
from bench.report import report
from bench.serve import ceiling_only, serve
from bench.servers import django_env, gunicorn_settings, manage
from tests.support.project import PROJECT_DIR

BENCH_DIR = PROJECT_DIR / "bench"


def publish_step(label: str, argv: list[str], env: dict, timeout: float) -> dict:
    print(f"  {label} ...", end=" ", flush=True)
    measured = run_measured(argv, env, timeout)
    print(f"{measured.wall_s:.2f} s, peak {measured.peak_rss_mb:.0f} MB", flush=True)
    if measured.returncode != 0:
        raise BenchError(
            f"{label} failed ({measured.returncode}):\n{measured.stdout[-2000:]}\n{measured.stderr[-3000:]}"
        )
    return {
        "step": label,
        "wall_s": round(measured.wall_s, 3),
        "cpu_s": round(measured.cpu_s, 3),
        "peak_rss_mb": round(measured.peak_rss_mb, 1),
        "output": measured.stdout.strip()[-500:],
    }


def run(args) -> dict:
    started = time.time()
    info = machine_info()
    results: dict = {
        "skills": args.skills,
        "seed": args.seed,
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(started)),
        "command": " ".join([Path(sys.executable).name, "-m", "bench.run", *sys.argv[1:]]),
        "machine": info,
        "commit": head_commit(),
        "loadavg_start": os.getloadavg(),
        "settings": {
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "connections": args.connections,
            "wrk_threads": args.threads,
            "gunicorn_config": "gunicorn.conf.py (production)",
            "log_level": args.log_level or "INFO (product default: a JSON access line per request)",
        },
    }
    if args.profile:
        shutil.rmtree(Path(args.out) / f"profile-{args.skills}", ignore_errors=True)
    shm = Path("/dev/shm")
    corpus_parent = shm if shm.is_dir() and os.access(shm, os.W_OK) and not args.corpus_on_disk else None
    with contextlib.ExitStack() as stack:
        corpus_dir = Path(tempfile.mkdtemp(prefix="skills-bench-corpus-", dir=corpus_parent))
        work_dir = Path(tempfile.mkdtemp(prefix="skills-bench-"))
        if not args.keep:
            stack.callback(shutil.rmtree, corpus_dir, True)
            stack.callback(shutil.rmtree, work_dir, True)
        else:
            print(f"keeping {corpus_dir} and {work_dir}")
        repo = corpus_dir / "repo"
        print(f"corpus: {args.skills} skills, seed {args.seed} ...", end=" ", flush=True)
        # Built in a child process, so this one never holds the generated text (~11 KB a skill).
        argv = [sys.executable, "-m", "bench.corpus", "build", "--skills", str(args.skills)]
        argv += ["--seed", str(args.seed), "--out", str(repo)]
        built = run_measured(argv, dict(os.environ), timeout=1800)
        if built.returncode != 0:
            raise BenchError(f"corpus build failed:\n{built.stderr[-3000:]}")
        corpus = corpus_mod.load(repo)
        print(f"{corpus.build_seconds:.1f} s ({corpus.file_count} files, {corpus.total_bytes / 1e6:.1f} MB)")
        results["corpus"] = corpus.summary()

        db_path = work_dir / "db.sqlite3"
        env = django_env(db_path, repo, args.workers, args.worker_class, args.log_level)
        results["settings"]["gunicorn"] = gunicorn_settings(env)
        steps = []
        print("publish:")
        steps.append(publish_step("migrate (empty database)", manage("migrate", "--noinput"), env, 600))
        steps.append(
            publish_step(
                f"publish {args.skills:,} skills from empty",
                manage("publish", corpus.sha, "--repo", str(repo)),
                env,
                args.publish_timeout,
            )
        )
        change = corpus_mod.change_one(repo)
        step = publish_step(
            "publish a one-skill change on top",
            manage("publish", change["sha"], "--repo", str(repo)),
            env,
            args.publish_timeout,
        )
        step["changed"] = {key: change[key] for key in ("id", "old_version", "version")}
        steps.append(step)
        steps.append(
            publish_step(
                "publish the same SHA again (no-op)",
                manage("publish", change["sha"], "--repo", str(repo)),
                env,
                args.publish_timeout,
            )
        )
        results["publish"] = steps

        if args.profile:
            profile_publish(args, corpus, work_dir, env)

        if not args.no_serve:
            results["serve"] = serve(args, corpus, env, work_dir)
    results["loadavg_end"] = os.getloadavg()
    results["elapsed_s"] = round(time.time() - started, 1)
    return results


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="4 s load runs and 1 s warm-ups (make bench)")
    parser.add_argument("--duration", type=float, default=None, help="seconds per load run (default 10)")
    parser.add_argument(
        "--warmup", type=float, default=None, help="seconds of warm-up per operation (default 2)"
    )
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--workers", type=int, default=None, help="override gunicorn.conf.py's worker count")
    parser.add_argument(
        "--log-level", default=None, help="LOG_LEVEL for the server (default: the product's, INFO)"
    )
    parser.add_argument(
        "--worker-class", default=None, help="override gunicorn.conf.py's worker class (e.g. gthread)"
    )
    parser.add_argument("--publish-timeout", type=float, default=900)
    parser.add_argument("--no-serve", action="store_true", help="publish timings only")
    parser.add_argument(
        "--no-ceiling-middleware",
        dest="ceiling_middleware",
        action="store_false",
        help="skip the ceiling run with the registry's middleware list",
    )

    parser.add_argument(
        "--no-cold",
        dest="cold",
        action="store_false",
        help="skip the cold rows (distinct requests, answer cache off; bench/cold.py)",
    )
    parser.add_argument(
        "--rows",
        nargs="+",
        metavar="TEXT",
        help="time only the rows whose name holds one of these (e.g. '(cold' or 'resources/read'); "
        "every operation still warms the servers",
    )
    parser.add_argument(
        "--ceiling-only", action="store_true", help="measure the ceiling alone (harness check)"
    )
    parser.add_argument(
        "--profile", action="store_true", help="py-spy profiles of publish and of each operation"
    )
    parser.add_argument(
        "--corpus-on-disk", action="store_true", help="build the corpus under /tmp, not /dev/shm"
    )
    parser.add_argument("--keep", action="store_true", help="keep the corpus, database and logs")
    parser.add_argument("--out", default=str(BENCH_DIR / "out"))
    args = parser.parse_args(argv)
    if args.duration is None:
        args.duration = 4.0 if args.quick else 10.0
    if args.warmup is None:
        args.warmup = 1.0 if args.quick else 2.0
    if not 0 < args.duration <= 120 or not 0 <= args.warmup <= 30:
        parser.error("--duration must be in (0, 120] and --warmup in [0, 30]")
    if not 1 <= args.connections <= 256 or not 1 <= args.threads <= args.connections:
        parser.error("--connections must be 1..256 and --threads 1..connections")
    if not 1 <= args.skills <= 100_000:
        parser.error("--skills must be 1..100000")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.no_serve and not wrk_available():
        print(
            "wrk is not installed; the serve benchmark needs it (a low-CPU load generator).\n"
            "  Debian/Ubuntu: apt-get update && apt-get install -y wrk\n"
            "Or run the publish timings alone: python -m bench.run --no-serve",
            file=sys.stderr,
        )
        return 2
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    if args.ceiling_only:
        return ceiling_only(args)
    try:
        results = run(args)
    except BenchError as exc:
        print(f"\nbench failed: {exc}", file=sys.stderr)
        return 1
    text = report(results)
    (out_dir / f"results-{args.skills}.md").write_text(text)
    (out_dir / f"results-{args.skills}.json").write_text(json.dumps(results, indent=2, default=str) + "\n")
    print()
    print(text)
    print(f"written: {out_dir / f'results-{args.skills}.md'} and .json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
