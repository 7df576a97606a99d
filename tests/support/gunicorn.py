"""gunicorn with the project's own gunicorn.conf.py, for the end-to-end tests, the
reliability tests, the conformance run and the benchmark.

    with GunicornServer(env, workers=2) as server:     # started, ready once /healthz answers
        httpx.post(server.mcp_url, ...)

    server = GunicornServer(env, app="bench.ceiling.wsgi:application", workers=None)
    server.launch()                                     # several servers booting side by side,
    server.wait_ready(probe, workers=3)                 # then each waited for

Several servers may share one database (multi-instance tests): start more than one with
the same environment.
"""

import json
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, Self

from tests.support.processes import children_of, free_port
from tests.support.project import GUNICORN, PROJECT_DIR


def healthz_answers(url: str) -> bool:
    """The registry's readiness probe: /healthz answers (200, or 503 before a first publish)."""
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=1) as response:
            return response.status == 200
    except urllib.error.HTTPError as error:
        return error.code == 503


class GunicornServer:
    """One gunicorn on a free loopback port, terminated on exit.

    `workers`: passed as --workers; None leaves it to gunicorn.conf.py (GUNICORN_WORKERS).
    """

    def __init__(
        self,
        env: Mapping[str, str],
        *,
        app: str = "skillsite.wsgi",
        workers: int | None = 2,
        log_path: Path | None = None,
    ) -> None:
        self.env = dict(env)
        self.app = app
        self.worker_count = workers
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.mcp_url = f"{self.url}/mcp"
        self.log_path = log_path or Path(self.env.get("TMPDIR", "/tmp")) / f"gunicorn-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None
        self._log: BinaryIO | None = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self, timeout: float = 60) -> None:
        self.launch()
        self.wait_ready(timeout=timeout)

    def launch(self) -> None:
        """Start the process without waiting for it."""
        argv = [
            GUNICORN,
            "--config",
            str(PROJECT_DIR / "gunicorn.conf.py"),
            "--bind",
            f"127.0.0.1:{self.port}",
        ]
        if self.worker_count is not None:
            argv += ["--workers", str(self.worker_count)]
        # Servers started side by side (parallel tests, several instances) would otherwise
        # all claim the one default control socket path.
        argv += ["--no-control-socket", self.app]
        self._log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            argv, cwd=PROJECT_DIR, env=self.env, stdout=self._log, stderr=subprocess.STDOUT
        )

    def wait_ready(
        self,
        probe: Callable[[str], bool] = healthz_answers,
        *,
        workers: int | None = None,
        timeout: float = 60,
    ) -> None:
        """Until `probe(url)` is true and (when given) `workers` workers are up; RuntimeError
        (with the log's tail) when gunicorn exits or the time runs out. Stops the server then."""
        assert self.process is not None, "launch() first"
        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self.stop()
                raise RuntimeError(f"gunicorn exited early:\n{self.log_tail()}")
            try:
                if probe(self.url) and (workers is None or len(self.workers()) >= workers):
                    return
            except (OSError, urllib.error.URLError) as error:
                last = error
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"gunicorn was not ready within {timeout:g} s ({last}):\n{self.log_tail()}")

    @property
    def pid(self) -> int:
        """The gunicorn master's process id."""
        assert self.process is not None, "launch() first"
        return self.process.pid

    def registry_sha(self) -> str | None:
        """The SHA /healthz says this server is serving (None before a first publish)."""
        try:
            with urllib.request.urlopen(f"{self.url}/healthz", timeout=30) as response:
                return json.load(response)["registry_sha"]
        except urllib.error.HTTPError as error:
            return json.load(error)["registry_sha"]

    def workers(self) -> list[int]:
        """The gunicorn master's children: its workers."""
        return children_of(self.process.pid) if self.process is not None else []

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.process = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


@contextmanager
def running_gunicorn(env: Mapping[str, str], log_dir: Path, workers: int = 2) -> Iterator[GunicornServer]:
    """A started GunicornServer logging into `log_dir` (one file per server)."""
    server = GunicornServer(env, workers=workers, log_path=log_dir / f"gunicorn-{time.monotonic_ns()}.log")
    server.start()
    try:
        yield server
    finally:
        server.stop()
