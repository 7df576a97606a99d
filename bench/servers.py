"""The servers the bench runs: the registry and the ceiling under gunicorn with the production
gunicorn.conf.py (tests/support/gunicorn.py), their environment and readiness probes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from bench import corpus as corpus_mod
from bench.load import get_status, post_json
from bench.measure import BenchError, run_measured
from tests.support.gunicorn import GunicornServer
from tests.support.project import PROJECT_DIR

TOKEN = "bench-static-read-token"
CEILING_APP = "bench.ceiling.wsgi:application"
CEILING_MW = "ceiling + product middleware"
# The registry with its answer cache off, for the cold rows (bench/cold.py).
COLD_APP = "bench.cold_app.wsgi:application"

_GUNICORN_KEYS = ("workers", "worker_class", "threads", "keepalive", "timeout")
# The worker classes that serve GUNICORN_THREADS requests at once per worker.
THREADED_WORKERS = ("gthread", "skillsite.worker.HeadDeadlineWorker")


def gunicorn_settings(env: dict) -> dict:
    """What gunicorn.conf.py resolves to under `env` (it reads GUNICORN_* variables)."""
    code = (
        "import json, runpy, sys; conf = runpy.run_path(sys.argv[1]); "
        f"print(json.dumps({{key: conf.get(key) for key in {_GUNICORN_KEYS!r}}}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(PROJECT_DIR / "gunicorn.conf.py")],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    if result.returncode != 0:
        raise BenchError(f"gunicorn.conf.py does not load: {result.stderr.strip()[-500:]}")
    settings = json.loads(result.stdout)
    # gunicorn's own defaults for what the file leaves out.
    defaults = {"workers": 1, "worker_class": "sync", "threads": 1, "keepalive": 2, "timeout": 30}
    return {key: defaults[key] if settings.get(key) is None else settings[key] for key in _GUNICORN_KEYS}


@contextmanager
def launched(app: str, env: dict, log_path: Path) -> Iterator[GunicornServer]:
    """gunicorn started (not yet ready: several servers boot side by side), stopped for sure on exit."""
    server = GunicornServer(env, app=app, workers=None, log_path=log_path)
    server.launch()
    try:
        yield server
    finally:
        server.stop()


def wait_ready(
    server: GunicornServer, probe: Callable[[str], bool], label: str, timeout: float = 60.0
) -> None:
    """Until `probe` answers and every worker gunicorn.conf.py asks for has booted."""
    try:
        server.wait_ready(probe, workers=int(gunicorn_settings(server.env)["workers"]), timeout=timeout)
    except RuntimeError as exc:
        raise BenchError(f"{label}: {exc}; see {server.log_path}") from None


def django_env(
    db_path: Path,
    repo: Path,
    workers: int | None,
    worker_class: str | None = None,
    log_level: str | None = None,
) -> dict:
    """The registry's environment: production settings (DEBUG off, the default logging: one JSON
    access line per /mcp request), a fresh SQLite file, the bench's static read token."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "GUNICORN_", "SKILLS_", "DATABASE_", "CACHE_", "GITHUB_", "MCP_"))
    }
    env.update(
        {
            "DJANGO_SECRET_KEY": "bench-secret-key-not-for-production-0123456789",
            "DJANGO_DEBUG": "false",
            "DATABASE_URL": f"sqlite:///{db_path}",
            "SKILLS_REPO_PATH": str(repo),
            "SKILLS_READ_TOKENS": TOKEN,
        }
    )
    if workers:
        env["GUNICORN_WORKERS"] = str(workers)
    if worker_class:
        env["GUNICORN_WORKER_CLASS"] = worker_class
    if log_level:
        env["LOG_LEVEL"] = log_level
    return env


def published_env(corpus_root: Path | None, skills: int, work: Path) -> dict:
    """The registry's environment on a fresh database with `corpus_root` (built when None) published."""
    if corpus_root is None:
        corpus_root = work / "repo"
        argv = [
            sys.executable,
            "-m",
            "bench.corpus",
            "build",
            "--skills",
            str(skills),
            "--out",
            str(corpus_root),
        ]
        built = run_measured(argv, dict(os.environ), timeout=1800)
        if built.returncode != 0:
            raise BenchError(f"corpus build failed:\n{built.stderr[-3000:]}")
    corpus = corpus_mod.load(corpus_root)
    env = django_env(work / "db.sqlite3", corpus_root, None)
    for argv in (manage("migrate", "--noinput"), manage("publish", corpus.sha, "--repo", str(corpus_root))):
        step = run_measured(argv, env, timeout=900)
        if step.returncode != 0:
            raise BenchError(f"{argv[2]} failed:\n{step.stderr[-3000:]}")
    return env


def manage(*args: str) -> list[str]:
    return [sys.executable, str(PROJECT_DIR / "manage.py"), *args]


def ceiling_probe(url: str) -> bool:
    status, _, _ = post_json(url + "/mcp", {"ping": 1}, TOKEN, timeout=5)
    return status == 200


def product_probe(url: str) -> bool:
    return get_status(url + "/healthz") == 200
