"""A registry app with the cyclic collector's work counted in each worker: bench/gc_cost.py's server.

    BENCH_GC_STATS_DIR=/dev/shm/gc BENCH_GC_APP=bench.cold_app.wsgi \\
        gunicorn --config gunicorn.conf.py bench.gc_app:application

The app named by BENCH_GC_APP (default skillsite.wsgi, the product's) is served unchanged, with
bench/gc_counters.py's counters around it. gunicorn imports this module in each worker (there is
no preload_app), so the counters' writer thread runs in the worker.
"""

import importlib
import os
from pathlib import Path

from bench.gc_counters import install

application = install(
    importlib.import_module(os.environ.get("BENCH_GC_APP", "skillsite.wsgi")).application,
    Path(os.environ["BENCH_GC_STATS_DIR"]),
)
