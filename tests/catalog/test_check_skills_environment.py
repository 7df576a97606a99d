"""check_skills needs nothing from the environment (docs/reference.md#check_skills): an
author runs it on a laptop, in a fresh clone, with no DJANGO_SECRET_KEY, no database and
no network. Run here as a subprocess with an empty environment, as `env -i` would."""

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.project import MANAGE, PROJECT_DIR
from tests.support.repos import SkillRepo

# Python's audit events for every way this process could reach a database or the network.
WATCHED_EVENTS = ("socket.connect", "socket.getaddrinfo", "socket.gethostbyname", "sqlite3.connect")
# manage.py under an audit hook that reports those events on stderr.
AUDITED_MANAGE = f"""
import runpy, sys
def report(event, args):
    if event in {WATCHED_EVENTS!r}:
        sys.stderr.write("AUDIT " + event + "\\n")
sys.addaudithook(report)
sys.argv = [{MANAGE!r}, *sys.argv[1:]]
runpy.run_path({MANAGE!r}, run_name="__main__")
"""


@pytest.fixture
def fresh_clone(make_repo: Callable[..., SkillRepo], tmp_path: Path) -> Path:
    """A plain `git clone` of a skills repository without registry.config.json."""
    source = make_repo()
    source.remove("registry.config.json")
    source.add_skill("alpha", files={"references/guide.md": "# Guide\n"})
    source.add_skill("beta")
    source.commit()
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(source.root), str(clone)], check=True)
    return clone


def empty_environment(home: Path, **extra: str) -> dict[str, str]:
    """What `env -i PATH=/usr/bin:/bin HOME=...` leaves."""
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), **extra}


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


def test_it_runs_with_an_empty_environment_on_a_fresh_clone(fresh_clone: Path, tmp_path: Path) -> None:
    done = run(
        [sys.executable, MANAGE, "check_skills", "--repo", str(fresh_clone)],
        empty_environment(tmp_path),
        tmp_path,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert (
        done.stdout == "registry.config.json: not found; using the built-in defaults\nOK: 2 skills valid.\n"
    )


def test_it_prints_its_problems_with_an_empty_environment(fresh_clone: Path, tmp_path: Path) -> None:
    (fresh_clone / "skills" / "beta" / "notes.txt").write_text("unlisted\n")
    done = run(
        [sys.executable, MANAGE, "check_skills", "--repo", str(fresh_clone), "--format", "json"],
        empty_environment(tmp_path),
        tmp_path,
    )
    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    assert document["config"] == "defaults"
    assert {problem["path"] for problem in document["problems"]} == {"skills/beta/notes.txt"}


def test_it_takes_the_version_rule_base_with_an_empty_environment(fresh_clone: Path, tmp_path: Path) -> None:
    (fresh_clone / "skills" / "alpha" / "references" / "guide.md").write_text("# Guide, changed\n")
    done = run(
        [sys.executable, MANAGE, "check_skills", "--repo", str(fresh_clone), "--base", "origin/main"],
        empty_environment(tmp_path),
        tmp_path,
    )
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines()[1].startswith("skills/alpha/SKILL.md: content changed since the base")


def test_it_opens_no_database_and_no_network_connection(fresh_clone: Path, tmp_path: Path) -> None:
    database_dir = tmp_path / "database"
    database_dir.mkdir()
    env = empty_environment(tmp_path, DATABASE_URL=f"sqlite:///{database_dir / 'registry.sqlite3'}")
    done = run(
        [sys.executable, "-c", AUDITED_MANAGE, "check_skills", "--repo", str(fresh_clone), "--base", "HEAD"],
        env,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "AUDIT" not in done.stderr
    assert done.stdout.endswith("OK: 2 skills valid.\n")
    assert list(database_dir.iterdir()) == []


def test_the_audit_hook_sees_a_database_connection() -> None:
    # The check above is only as good as its hook: a command that does open the database
    # (migrate's plan) must show up.
    probe = run(
        [sys.executable, "-c", AUDITED_MANAGE, "showmigrations", "--plan"],
        empty_environment(PROJECT_DIR, DJANGO_SECRET_KEY="probe", DATABASE_URL="sqlite:///:memory:"),
        PROJECT_DIR,
    )
    assert "AUDIT sqlite3.connect" in probe.stderr
