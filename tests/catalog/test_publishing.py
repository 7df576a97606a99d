"""publish(): resolve, read from git objects, validate, store content-addressed, activate."""

import hashlib
from pathlib import Path

import pytest

from catalog import checkpoints, publishing
from catalog.errors import PublishError
from catalog.hashing import content_hash
from catalog.models import Blob, SkillVersion, SkillVersionFile, Snapshot, SnapshotSkill
from catalog.publishing import Outcome, publish
from tests.catalog.publish_support import bump, publish_refusal, two_skills
from tests.support.repos import DEFAULT_CONFIG, SkillRepo

pytestmark = pytest.mark.django_db


def active_sha() -> str | None:
    return Snapshot.objects.filter(is_active=True).values_list("sha", flat=True).first()


def row_counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (Blob, SkillVersion, SkillVersionFile, Snapshot, SnapshotSkill)
    }


def test_it_stores_the_commit_byte_for_byte(skill_repo: SkillRepo) -> None:
    script = b"#!/bin/sh\necho hi\n"
    skill_repo.add_skill(
        "alpha",
        files={"references/api/auth.md": "# Auth\n\u00e9t\u00e9\n", "scripts/run.sh": script},
        tags=["docs", "api"],
        keywords=["login"],
        requires=["network"],
    )
    skill_repo.add_skill("secret", body="Only for ZDR callers.\n", required_zdr=True)
    sha = skill_repo.commit()

    result = publish(skill_repo.root, sha, published_by="ci-bot")

    assert result.outcome is Outcome.PUBLISHED
    assert (result.sha, result.skill_count, result.previous_sha) == (sha, 2, None)
    snapshot = Snapshot.objects.get(sha=sha)
    assert snapshot.is_active
    assert snapshot.published_at == result.published_at
    assert snapshot.published_by == "ci-bot"
    assert snapshot.skill_count == 2
    assert snapshot.config == DEFAULT_CONFIG
    on_disk = {
        path: (skill_repo.root / path).read_bytes()
        for path in (
            "skills/alpha/SKILL.md",
            "skills/alpha/references/api/auth.md",
            "skills/alpha/scripts/run.sh",
            "skills/secret/SKILL.md",
        )
    }
    assert snapshot.file_count == 4
    assert snapshot.total_bytes == sum(len(data) for data in on_disk.values())

    alpha = SnapshotSkill.objects.get(snapshot=snapshot, skill_id="alpha").skill_version
    skill_md = on_disk["skills/alpha/SKILL.md"]
    assert bytes(alpha.skill_md.data) == skill_md
    assert alpha.skill_md.sha256 == hashlib.sha256(skill_md).hexdigest()
    assert alpha.skill_md.size == len(skill_md)
    assert (alpha.name, alpha.version, alpha.tags, alpha.keywords, alpha.requires, alpha.required_zdr) == (
        "alpha",
        "1.0.0",
        ["docs", "api"],
        ["login"],
        ["network"],
        False,
    )
    assert alpha.instructions == "Do the thing, step by step.\n"
    files = {entry.path: entry for entry in alpha.files.select_related("blob")}
    assert sorted(files) == ["references/api/auth.md", "scripts/run.sh"]
    for path, entry in files.items():
        data = on_disk[f"skills/alpha/{path}"]
        assert bytes(entry.blob.data) == data
        assert entry.blob_id == hashlib.sha256(data).hexdigest()
        assert entry.size == entry.blob.size == len(data)
    assert files["scripts/run.sh"].executable
    assert not files["references/api/auth.md"].executable
    assert files["references/api/auth.md"].media_type == "text/markdown"
    assert alpha.content_hash == content_hash(
        skill_md, [(path, entry.blob_id) for path, entry in files.items()]
    )

    secret = SnapshotSkill.objects.get(snapshot=snapshot, skill_id="secret").skill_version
    assert secret.required_zdr
    assert bytes(secret.skill_md.data) == on_disk["skills/secret/SKILL.md"]


def test_an_invalid_commit_is_refused_and_the_previous_snapshot_stays_active(skill_repo: SkillRepo) -> None:
    good = two_skills(skill_repo)
    publish(skill_repo.root, good)
    before = row_counts()
    skill_repo.add_skill("broken", required_zrd=True)
    skill_repo.write("skills/beta/notes.txt", "not listed\n")
    bad = skill_repo.commit("typo")

    message = publish_refusal(skill_repo.root, bad)
    assert f"commit {bad} is not valid" in message
    assert "\nskills/broken/SKILL.md: " in message
    assert "\nskills/beta/notes.txt: " in message
    assert active_sha() == good
    assert row_counts() == before


def test_it_refuses_an_unknown_revision_or_a_path_that_is_no_repository(
    skill_repo: SkillRepo, tmp_path: Path
) -> None:
    two_skills(skill_repo)
    with pytest.raises(PublishError, match="unknown revision"):
        publish(skill_repo.root, "no-such-branch")
    with pytest.raises(PublishError, match="not a valid revision"):
        publish(skill_repo.root, "--help")
    with pytest.raises(PublishError, match="not a git repository"):
        publish(tmp_path / "nowhere", "HEAD")
    assert active_sha() is None


def test_it_reads_git_objects_and_ignores_the_dirty_working_tree(skill_repo: SkillRepo) -> None:
    sha = two_skills(skill_repo)
    committed = (skill_repo.root / "skills/alpha/SKILL.md").read_bytes()
    skill_repo.add_skill("alpha", body="Uncommitted edit.\n", version="9.0.0")
    skill_repo.add_skill("untracked", body="Never committed.\n")
    skill_repo.write("skills/beta/SKILL.md", "garbage that would not validate")

    result = publish(skill_repo.root, "HEAD")

    assert result.sha == sha
    ids = set(SnapshotSkill.objects.filter(snapshot__sha=sha).values_list("skill_id", flat=True))
    assert ids == {"alpha", "beta"}
    alpha = SkillVersion.objects.get(snapshot_skills__snapshot__sha=sha, skill_id="alpha")
    assert bytes(alpha.skill_md.data) == committed
    assert alpha.version == "1.0.0"


def test_abbreviated_shas_branches_and_tags_resolve_to_the_full_sha(skill_repo: SkillRepo) -> None:
    first = two_skills(skill_repo)
    assert publish(skill_repo.root, first[:8]).sha == first
    second = bump(skill_repo, "beta", "1.1.0", "Beta, better.\n")
    assert publish(skill_repo.root, "main").sha == second
    skill_repo.git("tag", "v3")
    third = bump(skill_repo, "beta", "1.2.0", "Beta, best.\n")
    skill_repo.git("tag", "-f", "v3")
    assert publish(skill_repo.root, "v3").sha == third
    assert active_sha() == third


def test_republishing_the_active_sha_is_a_no_op(skill_repo: SkillRepo) -> None:
    sha = two_skills(skill_repo)
    first = publish(skill_repo.root, sha)
    before = row_counts()

    again = publish(skill_repo.root, sha, rollback=True)

    assert again.outcome is Outcome.ALREADY_ACTIVE
    assert again.summary() == f"Already active: {sha}"
    assert Snapshot.objects.get(sha=sha).published_at == first.published_at
    assert again.published_at == first.published_at
    assert row_counts() == before


def test_an_ancestor_is_refused_unless_rolling_back(skill_repo: SkillRepo) -> None:
    old = two_skills(skill_repo)
    publish(skill_repo.root, old)
    new = bump(skill_repo, "beta", "1.1.0", "Beta, better.\n")
    published_new = publish(skill_repo.root, new)

    refused = publish_refusal(skill_repo.root, old)
    assert f"{old} is an ancestor of the active snapshot {new}" in refused
    assert "--rollback" in refused
    assert active_sha() == new

    rolled = publish(skill_repo.root, old, rollback=True)

    assert rolled.outcome is Outcome.REACTIVATED
    assert rolled.summary().startswith(f"Rolled back to {old}: 2 skills")
    assert active_sha() == old
    assert Snapshot.objects.get(sha=old).published_at == rolled.published_at > published_new.published_at
    # Forward again: a descendant of the active snapshot needs no flag, and is not stored twice.
    forward = publish(skill_repo.root, new)
    assert forward.outcome is Outcome.REACTIVATED
    assert active_sha() == new
    assert Snapshot.objects.count() == 2


def test_rolling_back_to_an_ancestor_never_published_stores_it(skill_repo: SkillRepo) -> None:
    old = two_skills(skill_repo)
    new = bump(skill_repo, "beta", "1.1.0", "Beta, better.\n")
    publish(skill_repo.root, new)

    result = publish(skill_repo.root, old, rollback=True)

    assert result.outcome is Outcome.PUBLISHED
    assert active_sha() == old


def test_another_branch_is_refused_unless_rolling_back(skill_repo: SkillRepo) -> None:
    base = two_skills(skill_repo)
    skill_repo.git("checkout", "-q", "-b", "other")
    side = bump(skill_repo, "alpha", "2.0.0", "Side branch.\n", files_list=["references/guide.md"])
    skill_repo.git("checkout", "-q", "main")
    main = bump(skill_repo, "beta", "1.1.0", "Main branch.\n")
    publish(skill_repo.root, base)
    publish(skill_repo.root, main)

    with pytest.raises(PublishError, match=f"{side} is not a descendant of the active snapshot {main}"):
        publish(skill_repo.root, "other")
    assert active_sha() == main

    assert publish(skill_repo.root, "other", rollback=True).sha == side
    assert active_sha() == side


def test_an_active_snapshot_from_another_repository_is_not_an_ancestor(
    skill_repo: SkillRepo, tmp_path: Path
) -> None:
    publish(skill_repo.root, two_skills(skill_repo))
    elsewhere = SkillRepo(tmp_path / "elsewhere")
    other = bump(elsewhere, "gamma", "1.0.0", "Gamma.\n")

    with pytest.raises(PublishError, match="is not a commit of this repository"):
        publish(elsewhere.root, other)
    assert publish(elsewhere.root, other, switch_repository=True).sha == other


def test_the_version_rule_compares_with_the_active_snapshot(skill_repo: SkillRepo) -> None:
    published = two_skills(skill_repo)
    publish(skill_repo.root, published)
    unbumped = bump(skill_repo, "beta", "1.0.0", "Changed without a bump.\n")

    refused = publish_refusal(skill_repo.root, unbumped)
    assert "\nskills/beta/SKILL.md: " in refused
    assert active_sha() == published

    # Against the active snapshot (1.0.0), not the parent commit: 1.1.0 twice is still a bump.
    bump(skill_repo, "beta", "1.1.0", "First change.\n")
    again = bump(skill_repo, "beta", "1.1.0", "Second change, same version.\n")
    assert publish(skill_repo.root, again).sha == again


def test_rollback_skips_the_version_rule(skill_repo: SkillRepo) -> None:
    publish(skill_repo.root, two_skills(skill_repo))
    downgraded = bump(skill_repo, "beta", "0.9.0", "Older version number.\n")

    with pytest.raises(PublishError):
        publish(skill_repo.root, downgraded)
    assert publish(skill_repo.root, downgraded, rollback=True).sha == downgraded


def test_unchanged_contents_are_stored_once(skill_repo: SkillRepo) -> None:
    shared = "# Shared\nSame bytes in two skills.\n"
    skill_repo.add_skill("alpha", files={"references/shared.md": shared})
    skill_repo.add_skill("beta", files={"references/copy.md": shared})
    first = publish(skill_repo.root, skill_repo.commit())
    # Three blobs: two SKILL.md files and one shared file.
    assert (first.new_skill_versions, first.new_blobs) == (2, 3)
    assert Blob.objects.count() == 3

    second_sha = bump(skill_repo, "beta", "1.1.0", "Beta, better.\n", files_list=["references/copy.md"])
    second = publish(skill_repo.root, second_sha)

    assert (second.new_skill_versions, second.new_blobs) == (1, 1)
    assert Blob.objects.count() == 4
    assert SkillVersion.objects.count() == 3
    alpha_versions = set(
        SnapshotSkill.objects.filter(skill_id="alpha").values_list("skill_version_id", flat=True)
    )
    assert len(alpha_versions) == 1
    assert SnapshotSkill.objects.count() == 4


def test_a_failure_while_storing_leaves_nothing_behind(
    skill_repo: SkillRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = two_skills(skill_repo)
    publish(skill_repo.root, old)
    before = row_counts()
    new = bump(skill_repo, "beta", "1.1.0", "Beta, better.\n", files={"references/new.md": "New.\n"})

    def explode(name: str) -> None:
        if name == "skills":
            raise RuntimeError("disk full")

    monkeypatch.setattr(checkpoints, "reached", explode)
    with pytest.raises(RuntimeError, match="disk full"):
        publish(skill_repo.root, new)

    assert active_sha() == old
    assert row_counts() == before


def another_publish_wins_the_race(monkeypatch: pytest.MonkeyPatch, repo: SkillRepo, sha: str) -> None:
    """The next publish, while it validates, loses a race: `sha` is published meanwhile (once)."""
    real_validate = publishing.validate_tree
    raced: list[str] = []

    def validate_while_another_publishes(tree, base_skills, **kwargs):  # type: ignore[no-untyped-def]
        if not raced:
            raced.append("x")
            publish(repo.root, sha)
        return real_validate(tree, base_skills, **kwargs)

    monkeypatch.setattr(publishing, "validate_tree", validate_while_another_publishes)


def beta_bumped_twice(repo: SkillRepo) -> tuple[str, str]:
    """Alpha and beta published, then beta 1.1.0 and beta 1.2.0 committed: two candidates."""
    publish(repo.root, two_skills(repo))
    return bump(repo, "beta", "1.1.0", "Beta, better.\n"), bump(repo, "beta", "1.2.0", "Beta, best.\n")


def test_a_publish_that_lost_the_race_checks_again_against_the_winner(
    skill_repo: SkillRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    middle, newest = beta_bumped_twice(skill_repo)
    another_publish_wins_the_race(monkeypatch, skill_repo, middle)  # while newest is being validated
    result = publish(skill_repo.root, newest)

    assert result.outcome is Outcome.PUBLISHED
    assert result.previous_sha == middle  # checked again, against the winner
    assert active_sha() == newest


def test_an_older_build_that_lost_the_race_is_refused(
    skill_repo: SkillRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    older, newer = beta_bumped_twice(skill_repo)
    another_publish_wins_the_race(monkeypatch, skill_repo, newer)
    with pytest.raises(PublishError, match=f"{older} is an ancestor of the active snapshot {newer}"):
        publish(skill_repo.root, older)
    assert active_sha() == newer
    assert not Snapshot.objects.filter(sha=older).exists()


def test_the_publisher_defaults_to_the_github_actor(
    skill_repo: SkillRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTOR", "octocat")
    sha = two_skills(skill_repo)
    publish(skill_repo.root, sha)
    assert Snapshot.objects.get(sha=sha).published_by == "octocat"
    monkeypatch.delenv("GITHUB_ACTOR")
    assert "@" in publishing.default_publisher()
