"""Helpers for the publishing tests: repositories with a few skills, and publishes stopped
at a crash point (the databases they run on: tests/support/databases.py)."""

import queue
import signal
import subprocess
import threading
import time
from os import PathLike

import pytest

from catalog.checkpoints import PAUSE_MARKER
from catalog.errors import PublishError
from catalog.publishing import publish
from tests.support.repos import SkillRepo


def two_skills(repo: SkillRepo) -> str:
    """Commit alpha (with a reference file) and beta; return the commit SHA."""
    repo.add_skill("alpha", files={"references/guide.md": "# Guide\nRead me.\n"}, tags=["docs"])
    repo.add_skill("beta", body="Beta steps.\n")
    return repo.commit("two skills")


def bump(repo: SkillRepo, skill_id: str, version: str, body: str, **fields: object) -> str:
    """Commit a new version of one skill; return the commit SHA."""
    repo.add_skill(skill_id, body=body, version=version, **fields)
    return repo.commit(f"{skill_id} {version}")


def publish_refusal(repo_root: str | PathLike[str], rev: str, **options: bool) -> str:
    """What publish() says when it refuses `rev` (a test fails if it publishes)."""
    with pytest.raises(PublishError) as refused:
        publish(repo_root, rev, **options)
    return str(refused.value)


def wait_for_pause(process: subprocess.Popen[str], point: str, timeout: float = 90) -> None:
    """Block until `process` says it stopped at crash point `point` (its stderr keeps being
    drained by a reader thread, which owns it from then on)."""
    lines: queue.Queue[str] = queue.Queue()
    assert process.stderr is not None
    stderr = process.stderr
    threading.Thread(target=lambda: [lines.put(line) for line in stderr], daemon=True).start()
    deadline = time.monotonic() + timeout
    seen: list[str] = []
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.2)
        except queue.Empty:
            if process.poll() is not None:
                break
            continue
        seen.append(line)
        if line.strip() == f"{PAUSE_MARKER}{point}":
            return
    raise AssertionError(f"publish never paused at {point}; stderr: {''.join(seen)}")


def sigkill(process: subprocess.Popen[str]) -> None:
    """SIGKILL: no handler, no cleanup, no rollback by the process itself."""
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    if process.stdout is not None:
        process.stdout.close()
    assert process.returncode == -signal.SIGKILL
