"""Where each call's time goes: py-spy on the registry (one worker, one connection) for every
warm operation and every cold row, summed by layer (bench/layers.py) into one Markdown table
for docs/benchmarks.md ("Where the time goes, session 4").

    make bench-profile                                           # 1,000 skills
    .venv/bin/python -m bench.profile_table --corpus /dev/shm/c  # reuse a built corpus

Rows: the operations, warm (one request repeated, as clients' listings do) and cold (each
request a new one, the answer cache off: bench/cold.py). Columns: the server's CPU per
request under py-spy (user + system; indicative: py-spy stops the process for each sample),
the samples, and each layer's share of them. Only the thread holding the GIL is sampled
(py-spy --gil): Python running, not a thread waiting to run again after a write; the
kernel's share (system time: socket I/O mostly) is in no layer. Each row's collapsed stacks and summary (self
and inclusive time) land in bench/out/profile-<N>/.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from bench import corpus as corpus_mod
from bench.cold import cold_operations
from bench.layers import SERVE_LAYER_NAMES, STARTUP, UNCLASSIFIED
from bench.load import LoadResult, check_answer, operations, post_json, run_wrk
from bench.measure import BenchError
from bench.profiles import Samples, profile_one, py_spy
from bench.servers import COLD_APP, TOKEN, launched, product_probe, published_env, wait_ready
from tests.support.project import PROJECT_DIR

# Cold rows walk many distinct requests: each profiled for this long at most, as warm ones.
DEFAULT_SECONDS = 5


def table(rows: list[tuple[str, LoadResult, Samples]]) -> str:
    """One line per profiled operation: CPU ms/request, samples, and % of samples per layer."""
    extra = [name for name in (STARTUP, UNCLASSIFIED) if any(s.layers.get(name) for _, _, s in rows)]
    columns = [*SERVE_LAYER_NAMES, *extra]
    lines = [
        "| operation | CPU ms/req | of which sys | samples | " + " | ".join(columns) + " |",
        "|---|---:|---:|---:|" + "---:|" * len(columns),
    ]
    for name, result, samples in rows:
        shares = " | ".join(f"{samples.share(column):.0f}" for column in columns)
        lines.append(
            f"| {name} | {result.server_cpu_ms_per_req:.2f} | {result.server_system_ms_per_req:.2f} "
            f"| {samples.total} | {shares} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--corpus", type=Path, default=None, help="a corpus built by bench.corpus (reused)")
    parser.add_argument("--seconds", type=int, default=DEFAULT_SECONDS, help="seconds of py-spy per row")
    parser.add_argument("--out", type=Path, default=PROJECT_DIR / "bench" / "out")
    args = parser.parse_args(argv)
    if not 1 <= args.seconds <= 60:
        parser.error("--seconds must be 1..60")
    spy = py_spy()
    if not spy:
        print("py-spy is not installed: .venv/bin/pip install py-spy", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="skills-bench-profile-"))
    try:
        env = published_env(args.corpus, args.skills, work)
        corpus = corpus_mod.load(Path(env["SKILLS_REPO_PATH"]))
        out = args.out / f"profile-{len(corpus.entries)}"
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        one = {**env, "GUNICORN_WORKERS": "1"}
        rows: list[tuple[str, LoadResult, Samples]] = []
        with (
            launched("skillsite.wsgi", one, work / "registry.log") as warm,
            launched(COLD_APP, one, work / "cold.log") as cold,
        ):
            wait_ready(warm, product_probe, "registry")
            wait_ready(cold, product_probe, "registry, answer cache off")
            subjects: list[tuple[str, object, dict | list[dict]]] = []
            for op in operations(corpus):
                status, payload, _ = post_json(warm.url + op.path, op.body, TOKEN)
                problem = check_answer(op, status, payload)
                if problem:
                    raise BenchError(f"{op.name}: not a successful answer, not profiling it: {problem}")
                run_wrk(warm.url + op.path, op.body, TOKEN, 1, 1, 1, None, work, "warm")
                subjects.append((op.name, warm, op.body))
            for name, bodies in cold_operations(corpus, cold.url + "/mcp", TOKEN):
                post_json(cold.url + "/mcp", bodies[0], TOKEN)  # the index, built once
                subjects.append((name, cold, bodies))
            for name, server, body in subjects:
                profiled = profile_one(spy, server, name, body, args.seconds, out, work)  # type: ignore[arg-type]
                if profiled:
                    rows.append((name, *profiled))
    except BenchError as exc:
        print(f"profile failed: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = table(rows)
    (out / "layers.md").write_text(text)
    print()
    print(text)
    print(f"written: {out / 'layers.md'} (and each row's stacks and summary beside it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
