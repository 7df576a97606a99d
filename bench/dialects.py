"""What each dialect costs: check_skills and publish over the same number of skills written in
the registry dialect, the open one, or half of each (docs/benchmarks.md).

    python -m bench.dialects --skills 1000 --runs 5 [--dialects registry,open,mixed]

For each dialect, one seeded corpus (bench/corpus.py --dialect), then `--runs` rounds of
  check    manage.py check_skills --repo <corpus>              (the working tree)
  publish  manage.py publish <sha> --repo <corpus>             (a first publish, fresh database)
  change   manage.py publish <sha of one changed skill> ...    (on top of that snapshot)
each timed by GNU time (user + system CPU, and wall), every process started afresh. The
medians are printed as a Markdown table, the exit codes beside them: a step that refused
the corpus (exit 1) did different work, and the table says so rather than hide it. The
machine may be shared: the CPU figures are what to compare, the wall ones are for scale.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from bench import corpus as corpus_mod
from bench.measure import Measured, run_measured
from bench.servers import manage

STEPS = ("check", "publish", "change")


def environment(database: Path) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(database.parent),
        "DJANGO_SECRET_KEY": "bench-dialects",
        "DATABASE_URL": f"sqlite:///{database}",
        "LOG_FORMAT": "plain",
        "LOG_LEVEL": "WARNING",
    }


def measure_dialect(
    dialect: str, skills: int, runs: int, work: Path, template: Path
) -> dict[str, list[Measured]]:
    repo = work / f"{dialect}-corpus"
    corpus = corpus_mod.build(repo, skills, dialect=dialect)
    changed = corpus_mod.change_one(repo)
    # check_skills and the first publish see the corpus as built; the change is its own commit.
    corpus_mod.git(repo, "checkout", "-q", corpus.sha)
    results: dict[str, list[Measured]] = {step: [] for step in STEPS}
    for run in range(runs):
        database = work / f"{dialect}-{run}.sqlite3"
        shutil.copyfile(template, database)
        env = environment(database)
        results["check"].append(run_measured(manage("check_skills", "--repo", str(repo)), env, 600))
        results["publish"].append(run_measured(manage("publish", corpus.sha, "--repo", str(repo)), env, 600))
        results["change"].append(
            run_measured(manage("publish", changed["sha"], "--repo", str(repo)), env, 600)
        )
    return results


def table(measured: dict[str, dict[str, list[Measured]]], skills: int, runs: int) -> str:
    lines = [
        f"| {skills:,} skills, median of {runs} | CPU s (user+sys) | wall s | exit |",
        "|---|---|---|---|",
    ]
    for dialect, steps in measured.items():
        for step, runs_of_step in steps.items():
            cpu = statistics.median(m.cpu_s for m in runs_of_step)
            wall = statistics.median(m.wall_s for m in runs_of_step)
            spread = f"{min(m.cpu_s for m in runs_of_step):.2f}-{max(m.cpu_s for m in runs_of_step):.2f}"
            codes = sorted({m.returncode for m in runs_of_step})
            lines.append(
                f"| {dialect}: {step} | {cpu:.2f} ({spread}) | {wall:.2f} | {', '.join(map(str, codes))} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dialects", default="registry,open,mixed")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-dialects-") as tmp:
        work = Path(tmp)
        template = work / "migrated.sqlite3"
        migrated = run_measured(manage("migrate", "--noinput"), environment(template), 600)
        if migrated.returncode != 0:
            raise SystemExit(f"migrate failed:\n{migrated.stderr[-2000:]}")
        measured = {
            dialect: measure_dialect(dialect, args.skills, args.runs, work, template)
            for dialect in args.dialects.split(",")
        }
    print(table(measured, args.skills, args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
