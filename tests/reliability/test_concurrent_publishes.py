"""Concurrent publishes (docs/reference.md#commands: publishes are serialized; an older build
never overwrites a newer one). Four `manage.py publish` processes start at once, for four
different commits; each either succeeds or is refused with a clear reason, exactly one
consistent snapshot ends up active, and the database passes every integrity check."""

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.databases import SubprocessDatabase, query
from tests.support.integrity import active_sha, integrity_problems, snapshots
from tests.support.project import MANAGE
from tests.support.repos import SkillRepo

pytestmark = pytest.mark.reliability

# Whoever takes the publish lock holds it a moment at this point, so the others really wait.
HOLD = {"SKILLS_PUBLISH_PAUSE_AT": "activate", "SKILLS_PUBLISH_PAUSE_SECONDS": "0.5"}
ANCESTOR = "is an ancestor of the active snapshot"
OTHER_BRANCH = "is not a descendant of the active snapshot"


def base(repo: SkillRepo) -> str:
    repo.add_skill("shared", body="Shared steps.\n", files={"references/shared.md": "Shared.\n"})
    repo.add_skill("moving", body="Moving steps, take 0.\n")
    return repo.commit("base")


def step(repo: SkillRepo, n: int, label: str) -> str:
    """A commit on the current branch: `moving` at a new version, and a skill of its own."""
    repo.add_skill(
        "moving",
        body=f"Moving steps, {label} take {n}.\n",
        version=f"1.{n}.0",
        files={"references/take.md": f"{label} take {n}\n"},
    )
    repo.add_skill(f"{label}-{n}", body=f"Only in {label} {n}.\n")
    return repo.commit(f"{label} {n}")


def publish_all_at_once(db: SubprocessDatabase, repo: SkillRepo, shas: list[str]) -> dict[str, tuple]:
    """Start one publish per commit at the same moment; sha -> (exit code, stdout, stderr)."""
    env = db.env(**HOLD)
    processes = {
        sha: subprocess.Popen(
            [sys.executable, MANAGE, "publish", sha, "--repo", str(repo.root)],
            env=env,
            cwd=db.workdir,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for sha in shas
    }
    results = {}
    for sha, process in processes.items():
        out, err = process.communicate(timeout=300)
        results[sha] = (process.returncode, out, err)
    return results


def check_outcomes(results: dict[str, tuple], allowed_reasons: tuple[str, ...]) -> list[str]:
    """Each process succeeded or was refused for one of `allowed_reasons`; the published SHAs."""
    published = []
    for sha, (code, out, err) in results.items():
        if code == 0:
            assert out.startswith(f"Published {sha}: "), (sha, out, err)
            published.append(sha)
        else:
            assert code == 1, (sha, code, err)
            assert any(f"{sha} {reason}" in err for reason in allowed_reasons), (sha, err)
            assert "Traceback" not in err, err
    return published


def check_database(db: SubprocessDatabase, expected_active: str, published: list[str], base_sha: str) -> None:
    stored = snapshots(db.url)
    assert active_sha(db.url) == expected_active
    # A refused publish stores nothing; a successful one stores exactly its commit.
    assert set(stored) == {base_sha, *published}
    assert integrity_problems(db.url) == []


def published_base(db: SubprocessDatabase, tmp_path: Path) -> tuple[SkillRepo, str]:
    """A new repository whose first commit is published: (the repository, that commit)."""
    repo = SkillRepo(tmp_path / "repo")
    first = base(repo)
    assert db.manage("publish", first, "--repo", str(repo.root)).returncode == 0
    return repo, first


def activation_order(db: SubprocessDatabase) -> list[str]:
    return [sha for (sha,) in query(db.url, "SELECT sha FROM catalog_snapshot ORDER BY published_at")]


def test_four_publishes_of_a_chain_at_once_end_on_the_newest(
    subprocess_db: SubprocessDatabase, tmp_path: Path
) -> None:
    db = subprocess_db
    repo, first = published_base(db, tmp_path)
    chain = [step(repo, n, "main") for n in range(1, 5)]  # c1 < c2 < c3 < c4

    results = publish_all_at_once(db, repo, chain)

    published = check_outcomes(results, (ANCESTOR,))
    # The newest descends from everything: it can never be refused, and nothing overwrites it.
    assert chain[-1] in published
    check_database(db, chain[-1], published, first)
    # Whatever got published was published in ancestry order.
    assert activation_order(db) == [first] + [sha for sha in chain if sha in published]


def test_four_publishes_on_two_branches_at_once_end_on_one_branch_tip(
    subprocess_db: SubprocessDatabase, tmp_path: Path
) -> None:
    db = subprocess_db
    repo, first = published_base(db, tmp_path)
    main = [step(repo, n, "main") for n in (1, 2)]
    repo.git("checkout", "-q", "-b", "side", first)
    side = [step(repo, n, "side") for n in (3, 4)]

    results = publish_all_at_once(db, repo, [*main, *side])

    published = check_outcomes(results, (ANCESTOR, OTHER_BRANCH))
    # One branch won: every published commit is on it, and its tip is active.
    winner = main if set(published) <= set(main) else side
    assert set(published) <= set(winner), (published, main, side)
    assert winner[-1] in published
    check_database(db, winner[-1], published, first)
