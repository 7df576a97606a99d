"""What resolving the active snapshot costs: `catalog.index.active_view`, which every /mcp
request that reads skills calls once (on SQLite a `PRAGMA data_version` while nothing was
committed, else one raw query; the index and the view kept in memory).

    valgrind --tool=callgrind --instr-atstart=no .venv/bin/python -m bench.active_view --calls 2000
    valgrind --tool=callgrind --instr-atstart=no .venv/bin/python -m bench.active_view --calls 1000

callgrind counts the instructions of the counted calls only (the setup, a fresh SQLite
database with the bundled skills published, is not instrumented); the difference of the two
counts over 1,000 is one call's.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from bench.view_overhead import _setup, callgrind


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        _setup(Path(work) / "db.sqlite3")
        from catalog.index import active_view

        for _ in range(100):  # the index built, the connection open
            active_view(False)
        callgrind("on")
        for _ in range(args.calls):
            active_view(False)
        callgrind("off")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
