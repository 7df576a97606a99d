"""What one access line costs: `mcpapi.access_log.write` alone, with the production logging
configuration (the JSON formatter, the console handler) writing into /dev/null.

    .venv/bin/python -m bench.access_line [--lines 20000]
    valgrind --tool=callgrind --instr-atstart=no \
        .venv/bin/python -m bench.access_line --callgrind --lines 2000

Without --callgrind: CPU microseconds per line (time.process_time, median of 5 runs). With it,
callgrind counts the instructions of the timed lines only; the difference of two counts (e.g.
2,000 and 1,000 lines) over 1,000 is the instructions of one line, which no other load moves.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench.view_overhead import callgrind


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--callgrind", action="store_true")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as work:
        from bench.inprocess import configure

        configure(Path(work) / "db.sqlite3", {"SKILLS_READ_TOKENS": "bench-token"})
        sink = open(os.devnull, "w")  # kept open for the life of the process
        for handler in logging.getLogger().handlers:
            if isinstance(handler, logging.StreamHandler):
                handler.setStream(sink)

        from accounts.callers import ENV_READ_CALLER
        from mcpapi import access_log
        from mcpapi.outcome import Outcome

        outcome = Outcome(
            200, b"{}", rpc_method="tools/call", tool="skills_get", registry_sha="0" * 40, era="legacy"
        )

        def run(lines: int) -> float:
            started = time.process_time()
            for _ in range(lines):
                access_log.write("0123456789abcdef0123456789abcdef", ENV_READ_CALLER, outcome, 0.42)
            return (time.process_time() - started) / lines * 1e6

        run(200)
        if args.callgrind:
            callgrind("on")
            run(args.lines)
            callgrind("off")
            return 0
        figures = [run(args.lines) for _ in range(5)]
        print(f"{statistics.median(figures):.2f} µs a line (runs: {', '.join(f'{x:.2f}' for x in figures)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
