"""`make run` serves the repository SKILLS_REPO_PATH names (README, "Two commands"): it
publishes that repository's HEAD, also over a database that served the bundled skills before."""

import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.databases import TempDatabase
from tests.support.processes import free_port
from tests.support.project import PROJECT_DIR
from tests.support.repos import SkillRepo

pytestmark = pytest.mark.e2e


@pytest.fixture
def make_run(tmp_path: Path) -> Iterator[Callable[..., tuple[str, str]]]:
    """Start `make run` with extra environment; (its URL, its output so far) once /healthz
    serves `expect_sha`. Stopped (its whole process group) at the end of the test."""
    started: list[subprocess.Popen[str]] = []
    log = tmp_path / "make-run.log"

    def start(env: dict[str, str], expect_sha: str, timeout: float = 120) -> tuple[str, str]:
        port = free_port()
        with open(log, "w") as output:
            process = subprocess.Popen(
                # -o: never reinstall the virtualenv from inside the suite.
                ["make", "-o", ".venv/.installed-run", "run", "HOST=127.0.0.1", f"PORT={port}"],
                cwd=PROJECT_DIR,
                env=env,
                stdout=output,
                stderr=subprocess.STDOUT,
                text=True,
                start_new_session=True,
            )
        started.append(process)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert process.poll() is None, f"make run exited:\n{log.read_text()}"
            try:
                health = httpx.get(f"{url}/healthz", timeout=2)
                if health.status_code == 200 and health.json().get("registry_sha") == expect_sha:
                    return url, log.read_text()
            except httpx.TransportError:
                pass
            time.sleep(0.3)
        raise AssertionError(f"make run did not serve {expect_sha} within {timeout}s:\n{log.read_text()}")

    yield start
    for process in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)


def test_make_run_serves_the_repository_skills_repo_path_names(
    make_repo: Callable[..., SkillRepo], make_run: Callable[..., tuple[str, str]], tmp_path: Path
) -> None:
    team = make_repo()
    team.remove("registry.config.json")
    team.add_skill("team-release", body="Our release steps.\n")
    head = team.commit()
    with TempDatabase(tmp_path / "database") as database:
        # An earlier `make run` served the bundled skills from this same database.
        database.manage_ok("migrate", "--noinput")
        database.manage_ok("publish", "HEAD", "--repo", str(PROJECT_DIR))

        url, output = make_run(database.env(SKILLS_REPO_PATH=str(team.root)), head)

        assert f"Published {head}: 1 skills" in output
        assert "of another repository" in output
        # Migrations in one line (this database was migrated before: none of them now).
        assert re.search(r"^database ready \(\d+ migrations applied, 0 of them now\)$", output, re.M)
        assert "Applying " not in output and "Operations to perform" not in output
        assert "1 skill published; the token below sees 1\n" in output
        token = next(
            line.partition("=")[2].strip("'")
            for line in (PROJECT_DIR / "var" / "local.env").read_text().splitlines()
            if line.startswith("export SKILLS_READ_TOKENS=")
        )
        listed = httpx.post(
            f"{url}/mcp",
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"},
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "skills_list", "arguments": {}},
            },
            timeout=10,
        ).json()
        ids = [skill["id"] for skill in listed["result"]["structuredContent"]["skills"]]
        assert ids == ["team-release"]


def test_make_run_stops_before_the_banner_when_the_address_is_taken(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            ["make", "-o", ".venv/.installed-run", "run", "HOST=127.0.0.1", f"PORT={port}"],
            cwd=PROJECT_DIR,
            env={**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite3'}"},
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode != 0
    assert f"make run: 127.0.0.1:{port} is already in use" in done.stderr
    assert f"make run PORT={port + 1}" in done.stderr
    # Neither the banner nor gunicorn was reached (gunicorn logs "Listening at" once bound).
    everything = done.stdout + done.stderr
    assert "Skills Registry serving" not in everything and "Starting gunicorn" not in everything
    assert done.stderr.strip().splitlines()[0].startswith("make run: 127.0.0.1:")
    assert not (tmp_path / "unused.sqlite3").exists(), "nothing after the check ran"
