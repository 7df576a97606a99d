"""Publishing under load (docs/reference.md#commands, #mcp-methods): while 8 client threads read
through gunicorn, another process switches the active snapshot between two commits 20 times. No
request fails, and every answer is exactly the content of the revision its own `registry_sha`
names: a publish in the middle of a request never mixes revisions, and no worker serves stale
or half-switched content."""

import hashlib
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.databases import SubprocessDatabase
from tests.support.e2e import server_env
from tests.support.gunicorn import running_gunicorn
from tests.support.integrity import integrity_problems, snapshots
from tests.support.mcp import HttpMcp
from tests.support.project import PROJECT_DIR
from tests.support.repos import SkillRepo

pytestmark = pytest.mark.reliability

CLIENT_THREADS = 8
PUBLISHES = 20
SKILLS = [f"load-{n}" for n in range(6)]
DATA_FILE = "references/data.md"
SCRIPT_FILE = "scripts/tool.sh"
# Bounds, so that a hung server fails the test instead of the suite's time budget.
LOAD_DEADLINE_SECONDS = 180


@dataclass(frozen=True)
class SkillContent:
    version: str
    description: str
    body: str
    files: dict[str, str]


def revision_content(label: str, version: str, topical: set[int]) -> dict[str, SkillContent]:
    """Every skill of one revision; the skills in `topical` mention the search topic."""
    skills = {}
    for n, skill_id in enumerate(SKILLS):
        topic = " Covers the lattice topic." if n in topical else ""
        skills[skill_id] = SkillContent(
            version=version,
            description=f"Revision {label} of skill {n}.{topic}",
            body="".join(f"Revision {label}, step {step} of skill {n}.\n" for step in range(1 + n * 7)),
            files={
                DATA_FILE: f"# Data {label}{n}\n" + f"revision {label} row {n}\n" * (40 * (n + 1)),
                SCRIPT_FILE: f"#!/bin/sh\necho 'revision {label} tool {n}'\n",
            },
        )
    return skills


def commit_revision(repo: SkillRepo, content: dict[str, SkillContent]) -> str:
    for skill_id, skill in content.items():
        repo.add_skill(
            skill_id, body=skill.body, files=skill.files, version=skill.version, description=skill.description
        )
    return repo.commit(f"skills at {next(iter(content.values())).version}")


def manifest(skill: SkillContent) -> list[dict[str, Any]]:
    return [
        {
            "path": path,
            "size": len(text.encode()),
            "sha256": hashlib.sha256(text.encode()).hexdigest(),
            "media_type": "text/markdown" if path.endswith(".md") else "text/x-shellscript",
            "executable": path.startswith("scripts/"),
        }
        for path, text in sorted(skill.files.items())
    ]


class Expectations:
    """What each request must answer under each revision, computed from what was committed."""

    def __init__(self, revisions: dict[str, dict[str, SkillContent]], topical: dict[str, set[int]]) -> None:
        self.revisions = revisions
        self.topical = topical

    def check(self, kind: str, arguments: dict[str, Any], answer: dict[str, Any]) -> str:
        """The registry_sha of `answer`, once its content is that revision's; else AssertionError."""
        sha = answer["registry_sha"]
        assert sha in self.revisions, f"unknown registry_sha {sha}"
        content = self.revisions[sha]
        if kind == "skills_get":
            skill = content[arguments["id"]]
            assert answer["metadata"]["id"] == arguments["id"]
            assert answer["metadata"]["version"] == skill.version
            assert answer["metadata"]["description"] == skill.description
            assert answer["instructions"] == skill.body
            assert answer["files"] == manifest(skill)
        elif kind == "skills_get_file":
            text = content[arguments["id"]].files[arguments["path"]]
            assert answer["text"] == text
            assert answer["size"] == len(text.encode())
            assert answer["sha256"] == hashlib.sha256(text.encode()).hexdigest()
            assert answer["next_cursor"] is None
        elif kind == "skills_search":
            expected = [SKILLS[n] for n in sorted(self.topical[sha])]
            assert [hit["id"] for hit in answer["results"]] == expected
            for hit in answer["results"]:
                skill = content[hit["id"]]
                assert hit["version"] == skill.version
                assert hit["description"] == skill.description
                assert hit["match_reasons"] == [{"rule": "description", "term": "lattice"}]
                assert hit["excerpt"] in skill.description
        else:
            raise AssertionError(kind)
        return sha


def requests_cycle() -> list[tuple[str, dict[str, Any]]]:
    cycle: list[tuple[str, dict[str, Any]]] = []
    for skill_id in SKILLS:
        cycle.append(("skills_get", {"id": skill_id}))
        cycle.append(("skills_get_file", {"id": skill_id, "path": DATA_FILE}))
        cycle.append(("skills_get_file", {"id": skill_id, "path": SCRIPT_FILE}))
        cycle.append(("skills_search", {"query": "lattice"}))
    return cycle


def test_switching_snapshots_under_load_never_fails_or_mixes_revisions(
    subprocess_db: SubprocessDatabase, tmp_path: Path
) -> None:
    repo = SkillRepo(tmp_path / "repo")
    topical = {"A": {0, 1, 2}, "B": {3, 4, 5}}
    content_a = revision_content("A", "1.0.0", topical["A"])
    content_b = revision_content("B", "2.0.0", topical["B"])
    sha_a = commit_revision(repo, content_a)
    sha_b = commit_revision(repo, content_b)
    expectations = Expectations(
        {sha_a: content_a, sha_b: content_b}, {sha_a: topical["A"], sha_b: topical["B"]}
    )

    env = server_env(subprocess_db)
    first = subprocess_db.manage("publish", sha_a, "--repo", str(repo.root))
    assert first.returncode == 0, first.stderr
    with running_gunicorn(env, tmp_path, workers=2) as server:
        stop = threading.Event()
        seen: Counter[str] = Counter()
        transitions = Counter[str]()
        failures: list[str] = []
        lock = threading.Lock()

        def client(offset: int) -> None:
            http = HttpMcp(server.mcp_url)
            cycle = requests_cycle()
            turn = offset
            previous = None
            try:
                while not stop.is_set():
                    kind, arguments = cycle[turn % len(cycle)]
                    turn += 1
                    try:
                        answer = http.call(kind, **arguments)
                        sha = expectations.check(kind, arguments, answer)
                    except (AssertionError, httpx.HTTPError, KeyError, ValueError) as exc:
                        with lock:
                            failures.append(f"{kind} {arguments}: {type(exc).__name__}: {str(exc)[:300]}")
                        continue
                    with lock:
                        seen[sha] += 1
                        if previous is not None and previous != sha:
                            transitions[sha] += 1
                    previous = sha
            finally:
                http.close()

        threads = [threading.Thread(target=client, args=(n * 5,), daemon=True) for n in range(CLIENT_THREADS)]
        for thread in threads:
            thread.start()
        started = time.monotonic()
        try:
            publisher = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "tests.support.publish_loop",
                    "--repo",
                    str(repo.root),
                    "--times",
                    str(PUBLISHES),
                    "--pause",
                    "0.25",
                    sha_b,
                    sha_a,
                ],
                env=env,
                cwd=PROJECT_DIR,
                capture_output=True,
                text=True,
                timeout=LOAD_DEADLINE_SECONDS,
            )
            # A few more requests after the last switch, so the final state is read too.
            time.sleep(0.5)
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=60)
        elapsed = time.monotonic() - started

    assert publisher.returncode == 0, publisher.stderr
    lines = publisher.stdout.splitlines()
    assert len(lines) == PUBLISHES, publisher.stdout
    assert lines[0].startswith(f"Published {sha_b}: ")
    assert all(line.startswith(("Rolled back to ", "Reactivated ")) for line in lines[1:]), lines
    assert failures == [], f"{len(failures)} failed requests, e.g.:\n" + "\n".join(failures[:10])
    # The test proved something only if the clients really saw the registry switch under them.
    assert set(seen) == {sha_a, sha_b}, seen
    assert sum(transitions.values()) >= 4, (transitions, seen, elapsed)
    assert snapshots(subprocess_db.url) == {sha_a: True, sha_b: False}  # the last switch was to A
    assert integrity_problems(subprocess_db.url) == []
