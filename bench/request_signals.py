"""Django's request_started and request_finished, sent alone, in instructions (callgrind):
Django's own receivers against skillsite/request_signals.py's (docs/benchmarks.md,
"Request signals, session 5").

    for n in 200 1000; do valgrind --tool=callgrind --callgrind-out-file=/tmp/rs.django.$n \
        .venv/bin/python -m bench.request_signals $n django; done      # then `registry`
    grep summary /tmp/rs.django.200.1 /tmp/rs.django.1000.1

Each run's count between callgrind_control's zero and dump is its `.1` file's `summary:`;
(1000's − 200's) / 800 is one request's two sends.

Production settings, a SQLite file from DATABASE_URL (default /tmp/request-signals.sqlite3),
its connection opened first, as a request that read the active snapshot leaves it.
"""

import os
import subprocess
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "skillsite.settings")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-request-signals-key")
os.environ.setdefault("DATABASE_URL", "sqlite:////tmp/request-signals.sqlite3")


def callgrind(option: str) -> None:
    subprocess.run(["callgrind_control", option, str(os.getpid())], capture_output=True, check=False)


def main() -> None:
    import django

    django.setup()
    from django.core import signals
    from django.db import connection

    from skillsite.request_signals import install

    repetitions, receivers = int(sys.argv[1]), sys.argv[2]
    if receivers == "registry":
        assert install()
    connection.ensure_connection()
    for _ in range(5):
        signals.request_started.send(sender=None)
        signals.request_finished.send(sender=None)
    callgrind("-z")
    for _ in range(repetitions):
        signals.request_started.send(sender=None)
        signals.request_finished.send(sender=None)
    callgrind("-d")


if __name__ == "__main__":
    main()
