"""What each warm /mcp call costs over ping, in instructions (callgrind), in this one process.

    .venv/bin/python -m bench.warm_calls --corpus /tmp/c1000 [--requests 250 --fewer 50]
    .venv/bin/python -m bench.warm_calls --corpus /tmp/c1000 --rows ping,skills_search

The corpus (bench/corpus.py build) is published once into a SQLite file; then, for each row,
this module runs itself twice under `valgrind --tool=callgrind --instr-atstart=no`, each run
sending the row's request 100 times uninstrumented (the index built, the answer kept) and then
`--requests` or `--fewer` times instrumented, through django.test.Client and the whole
middleware stack, the access line written into /dev/null. The difference of the two counts
over the difference in requests is one warm request, a figure no other load on the machine
moves (docs/benchmarks.md, "The floor, session 4"). What is there before the instrumented
requests is frozen out of the collector's reach (gc.freeze), as under gunicorn, where a warm
request sets off no collection. The rows are bench/load.py's (the
requests `make bench` times; the registry dialect's corpus has no native skill, so no
skills-extension row).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import corpus as corpus_mod
from bench.load import MCP_HEADERS, PING, operations

PROJECT_DIR = Path(__file__).resolve().parent.parent
TOKEN = "bench-static-read-token"
ENV = {"SKILLS_READ_TOKENS": TOKEN, "MCP_RATE_LIMIT_PER_MINUTE": "0"}
WARM_UP = 100


def bodies(corpus: Path) -> dict[str, dict[str, Any]]:
    """Each row's request, by name (ping first)."""
    rows = {operation.name: operation.body for operation in operations(corpus_mod.load(corpus))}
    return rows


def _configure(db_path: Path) -> None:
    from bench.inprocess import configure

    configure(db_path, ENV)
    import logging

    sink = open(os.devnull, "w")  # kept open for the life of the process
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(sink)


def _send(client: Any, body: bytes, requests: int) -> bytes:
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": MCP_HEADERS["Accept"]}
    headers["MCP-Protocol-Version"] = MCP_HEADERS["MCP-Protocol-Version"]
    response = None
    for _ in range(requests):
        response = client.post("/mcp", data=body, content_type="application/json", headers=headers)
    assert response is not None and response.status_code == 200, response
    return bytes(response.content)


def child(db_path: Path, body: bytes, requests: int) -> None:
    """Under valgrind: warm up, then count `requests` requests and nothing else."""
    _configure(db_path)
    from django.test import Client

    client = Client()
    answer = json.loads(_send(client, body, WARM_UP))
    assert "error" not in answer and not answer["result"].get("isError"), answer
    # django.test.Client leaves garbage behind on every request (gunicorn does not, "The floor,
    # session 4"): without this, the collections it sets off walk the whole index, and a row
    # that reads skills would count them (~180,000 instructions a request) where ping does not.
    gc.collect()
    gc.freeze()
    _callgrind("on")
    _send(client, body, requests)
    _callgrind("off")


def _callgrind(state: str) -> None:
    subprocess.run(
        ["callgrind_control", "--instr=" + state, str(os.getpid())], check=False, capture_output=True
    )


def count(db_path: Path, body: dict[str, Any], requests: int, work: Path) -> int:
    """The instructions of `requests` warm requests of `body`."""
    out = work / f"cg.{time.monotonic_ns()}"
    subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={out}",
            sys.executable,
            "-m",
            "bench.warm_calls",
            "--child",
            str(db_path),
            "--body",
            json.dumps(body),
            "--requests",
            str(requests),
        ],
        check=True,
        cwd=PROJECT_DIR,
        capture_output=True,
    )
    totals = [line for line in out.read_text().splitlines() if line.startswith(("totals:", "summary:"))]
    out.unlink()
    return int(totals[-1].split()[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, help="a corpus built by bench.corpus build")
    parser.add_argument("--requests", type=int, default=250)
    parser.add_argument("--fewer", type=int, default=50)
    parser.add_argument("--rows", default="", help="comma-separated row names (default: all)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--body", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        child(args.child, args.body.encode(), args.requests)
        return 0
    if args.corpus is None:
        parser.error("--corpus is required")
    rows = bodies(args.corpus)
    wanted = [name for name in rows if not args.rows or name in args.rows.split(",") or name == PING]
    with tempfile.TemporaryDirectory() as work_dir:
        work = Path(work_dir)
        db_path = work / "db.sqlite3"
        subprocess.run(
            [sys.executable, "-c", _PUBLISH, str(db_path), str(args.corpus)],
            check=True,
            cwd=PROJECT_DIR,
            env={**os.environ, **ENV},
        )
        print(f"instructions per warm request ({args.requests} less {args.fewer} requests, callgrind)")
        floor = None
        for name in wanted:
            more = count(db_path, rows[name], args.requests, work)
            less = count(db_path, rows[name], args.fewer, work)
            each = (more - less) / (args.requests - args.fewer)
            floor = each if floor is None else floor
            print(f"| {name} | {each:,.0f} | {each - floor:+,.0f} |", flush=True)
    return 0


_PUBLISH = """
import sys
from pathlib import Path
from bench.inprocess import configure, migrate_and_publish
configure(Path(sys.argv[1]), {})
migrate_and_publish(Path(sys.argv[2]))
"""


if __name__ == "__main__":
    raise SystemExit(main())
