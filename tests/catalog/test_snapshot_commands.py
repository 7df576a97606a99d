"""manage.py publish / snapshots / prune_snapshots, in process and as real processes
(crashes, concurrent publishers, the lock timeout)."""

import re
import signal
from datetime import datetime
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from catalog.models import Blob, SkillVersion, SkillVersionFile, Snapshot
from tests.catalog.publish_support import bump, sigkill, two_skills, wait_for_pause
from tests.support.databases import SubprocessDatabase
from tests.support.repos import SkillRepo

LINE = re.compile(r"^(?P<marker>[* ]) (?P<sha>[0-9a-f]{40}) (?P<published_at>\S+) (?P<count>\d+) skills$")


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


# --- in process ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_publish_prints_what_it_did(skill_repo: SkillRepo) -> None:
    sha = two_skills(skill_repo)

    output = run("publish", sha[:10], "--repo", str(skill_repo.root))

    assert re.fullmatch(
        rf"Published {sha}: 2 skills \(2 new skill versions, 3 new blobs, \d+ bytes; first snapshot\) "
        r"in \d+\.\ds\n",
        output,
    )
    assert run("publish", sha, "--repo", str(skill_repo.root)) == f"Already active: {sha}\n"


@pytest.mark.django_db
def test_publish_defaults_to_the_configured_repository(skill_repo: SkillRepo, settings) -> None:  # type: ignore[no-untyped-def]
    settings.SKILLS_REPO_PATH = str(skill_repo.root)
    sha = two_skills(skill_repo)

    assert run("publish", "HEAD").startswith(f"Published {sha}: ")


@pytest.mark.django_db
def test_publish_fails_with_the_problems_listed(skill_repo: SkillRepo) -> None:
    good = two_skills(skill_repo)
    run("publish", good, "--repo", str(skill_repo.root))
    skill_repo.add_skill("broken", version="not-semver")
    skill_repo.commit()

    with pytest.raises(CommandError) as failed:
        run("publish", "HEAD", "--repo", str(skill_repo.root))

    assert "\nskills/broken/SKILL.md: " in str(failed.value)
    assert Snapshot.objects.get(is_active=True).sha == good


@pytest.mark.django_db
def test_publish_rollback_flag(skill_repo: SkillRepo) -> None:
    old = two_skills(skill_repo)
    run("publish", old, "--repo", str(skill_repo.root))
    run("publish", bump(skill_repo, "beta", "1.1.0", "Better.\n"), "--repo", str(skill_repo.root))

    with pytest.raises(CommandError, match="--rollback"):
        run("publish", old, "--repo", str(skill_repo.root))
    assert run("publish", old, "--repo", str(skill_repo.root), "--rollback").startswith(
        f"Rolled back to {old}: "
    )


@pytest.mark.django_db
def test_snapshots_lists_nothing_before_the_first_publish() -> None:
    assert run("snapshots") == ""


@pytest.mark.django_db
def test_snapshots_lists_the_most_recently_activated_first(skill_repo: SkillRepo) -> None:
    root = str(skill_repo.root)
    first = two_skills(skill_repo)
    second = bump(skill_repo, "beta", "1.1.0", "Better.\n")
    skill_repo.add_skill("gamma")
    third = skill_repo.commit()
    for sha in (first, second, third):
        run("publish", sha, "--repo", root)
    run("publish", first, "--repo", root, "--rollback")

    lines = run("snapshots").splitlines()

    parsed = [LINE.fullmatch(line) for line in lines]
    assert all(parsed), lines
    assert [(m["marker"], m["sha"], m["count"]) for m in parsed] == [  # type: ignore[index]
        ("*", first, "2"),
        (" ", third, "3"),
        (" ", second, "2"),
    ]
    for match in parsed:
        assert match is not None
        published_at = datetime.fromisoformat(match["published_at"])
        assert published_at == Snapshot.objects.get(sha=match["sha"]).published_at
        assert published_at.utcoffset() is not None


@pytest.mark.django_db
def test_prune_keeps_the_most_recent_snapshots_and_what_they_use(skill_repo: SkillRepo) -> None:
    root = str(skill_repo.root)
    first = two_skills(skill_repo)
    second = bump(skill_repo, "beta", "1.1.0", "Second.\n")
    third = bump(skill_repo, "beta", "1.2.0", "Third.\n")
    for sha in (first, second, third):
        run("publish", sha, "--repo", root)
    counts = (Blob.objects.count(), SkillVersion.objects.count())

    dry = run("prune_snapshots", "--keep", "2", "--dry-run")
    assert f"Would remove {first} " in dry
    assert (Blob.objects.count(), SkillVersion.objects.count()) == counts
    assert Snapshot.objects.count() == 3

    output = run("prune_snapshots", "--keep", "2")

    assert f"Removed {first} " in output
    assert "Removed 1 snapshots, 1 skill versions, 1 blobs" in output
    assert list(Snapshot.objects.order_by("sha").values_list("sha", flat=True)) == sorted([second, third])
    assert Snapshot.objects.get(is_active=True).sha == third
    # Everything the kept snapshots use is still there; alpha never changed and is shared.
    for version in SkillVersion.objects.all():
        assert Blob.objects.filter(sha256=version.skill_md_id).exists()
    for entry in SkillVersionFile.objects.all():
        assert Blob.objects.filter(sha256=entry.blob_id).exists()
    assert SkillVersion.objects.filter(skill_id="alpha").count() == 1


@pytest.mark.django_db
def test_prune_always_keeps_the_active_snapshot(skill_repo: SkillRepo) -> None:
    root = str(skill_repo.root)
    first = two_skills(skill_repo)
    second = bump(skill_repo, "beta", "1.1.0", "Second.\n")
    run("publish", first, "--repo", root)
    run("publish", second, "--repo", root)
    run("publish", first, "--repo", root, "--rollback")

    run("prune_snapshots", "--keep", "1")

    assert list(Snapshot.objects.values_list("sha", "is_active")) == [(first, True)]
    assert SkillVersion.objects.count() == 2
    assert Blob.objects.count() == 3


@pytest.mark.django_db
def test_prune_refuses_to_keep_nothing() -> None:
    with pytest.raises(CommandError, match="at least 1"):
        run("prune_snapshots", "--keep", "0")


# --- real processes ------------------------------------------------------------------------


def active_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("*")]


@pytest.mark.reliability
@pytest.mark.parametrize("point", ["blobs", "skills", "activate"])
def test_a_publish_killed_before_activation_changes_nothing(
    point: str, subprocess_db: SubprocessDatabase, skill_repo: SkillRepo
) -> None:
    db, root = subprocess_db, str(skill_repo.root)
    old = two_skills(skill_repo)
    assert db.manage("publish", old, "--repo", root).returncode == 0
    before = db.row_counts()
    new = bump(skill_repo, "beta", "1.1.0", "Better.\n", files={"references/new.md": "New file.\n"})

    process = db.start("publish", new, "--repo", root, SKILLS_PUBLISH_PAUSE_AT=point)
    try:
        wait_for_pause(process, point)
    finally:
        sigkill(process)
    assert process.returncode == -signal.SIGKILL

    lines = db.snapshot_lines()
    assert len(lines) == 1 and lines[0].startswith(f"* {old} ")
    assert db.row_counts() == before

    again = db.manage("publish", new, "--repo", root)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(f"Published {new}: 2 skills (1 new skill versions, 2 new blobs")
    lines = db.snapshot_lines()
    assert [line[:42] for line in lines] == [f"* {new}", f"  {old}"]


@pytest.mark.reliability
def test_two_concurrent_publishes_end_with_one_consistent_active_snapshot(
    subprocess_db: SubprocessDatabase, skill_repo: SkillRepo
) -> None:
    db, root = subprocess_db, str(skill_repo.root)
    assert db.manage("publish", two_skills(skill_repo), "--repo", root).returncode == 0
    older = bump(skill_repo, "beta", "1.1.0", "Better.\n")
    newer = bump(skill_repo, "beta", "1.2.0", "Best.\n")
    # Whoever takes the lock first holds it a moment, so the other one really waits on it.
    pause = {"SKILLS_PUBLISH_PAUSE_AT": "blobs", "SKILLS_PUBLISH_PAUSE_SECONDS": "1"}

    processes = {sha: db.start("publish", sha, "--repo", root, **pause) for sha in (older, newer)}
    outcomes = {
        sha: (*process.communicate(timeout=120), process.returncode) for sha, process in processes.items()
    }

    newer_out, _newer_err, newer_code = outcomes[newer]
    assert newer_code == 0 and newer_out.startswith(f"Published {newer}: ")
    older_out, older_err, older_code = outcomes[older]
    if older_code == 0:  # it won the race, then the newer one moved past it
        assert older_out.startswith(f"Published {older}: ")
    else:  # it lost, and the newer one must not be overwritten by an older build
        assert f"{older} is an ancestor of the active snapshot {newer}" in older_err
    assert [line.split()[1] for line in active_lines(db.snapshot_lines())] == [newer]


@pytest.mark.reliability
def test_two_concurrent_publishes_of_the_same_commit_store_it_once(
    subprocess_db: SubprocessDatabase, skill_repo: SkillRepo
) -> None:
    db, root = subprocess_db, str(skill_repo.root)
    sha = two_skills(skill_repo)
    pause = {"SKILLS_PUBLISH_PAUSE_AT": "blobs", "SKILLS_PUBLISH_PAUSE_SECONDS": "1"}

    processes = [db.start("publish", sha, "--repo", root, **pause) for _ in range(2)]
    outputs = sorted(process.communicate(timeout=120)[0] for process in processes)

    assert [process.returncode for process in processes] == [0, 0]
    assert outputs[0] == f"Already active: {sha}\n"
    assert outputs[1].startswith(f"Published {sha}: ")
    lines = db.snapshot_lines()
    assert len(lines) == 1 and lines[0].startswith(f"* {sha} ")


@pytest.mark.reliability
def test_a_publish_waiting_too_long_for_the_lock_gives_up_cleanly(
    subprocess_db: SubprocessDatabase, skill_repo: SkillRepo
) -> None:
    db, root = subprocess_db, str(skill_repo.root)
    first = two_skills(skill_repo)
    assert db.manage("publish", first, "--repo", root).returncode == 0
    second = bump(skill_repo, "beta", "1.1.0", "Better.\n")
    third = bump(skill_repo, "beta", "1.2.0", "Best.\n")

    holder = db.start("publish", second, "--repo", root, SKILLS_PUBLISH_PAUSE_AT="activate")
    try:
        wait_for_pause(holder, "activate")
        waiter = db.manage("publish", third, "--repo", root, PUBLISH_LOCK_TIMEOUT_SECONDS="0.5")
    finally:
        sigkill(holder)

    assert waiter.returncode == 1
    assert "held the publish lock for more than 0.5s" in waiter.stderr
    assert active_lines(db.snapshot_lines())[0].startswith(f"* {first} ")
    assert db.manage("publish", third, "--repo", root).returncode == 0
