"""catalog.reuse, through publish: skills unchanged since the active snapshot are not read
again.

Every test here looks at which paths the publish actually read from git (a spy on
GitTree), and at the verdict: reuse must never let through anything a full validation
would refuse, nor store anything a full validation would not.
"""

from collections.abc import Iterator
from typing import Any

import pytest

from catalog import discovery, publishing, reuse
from catalog.errors import PublishError
from catalog.fingerprint import rules_fingerprint
from catalog.models import Snapshot, SnapshotSkill
from catalog.publishing import Outcome, publish
from catalog.snapshots import ActiveSnapshot, read_active
from catalog.trees import GitTree, open_repo, resolve_commit
from catalog.validation import validate_tree
from tests.catalog.publish_support import bump, publish_refusal
from tests.catalog.tree_support import codes
from tests.support.repos import SkillRepo, config_with_limits

pytestmark = pytest.mark.django_db

GUIDE = "# Guide\nRead me.\n"


class GitReads:
    """Every path a GitTree of the published commit lists recursively or reads."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: list[str] = []
        real_read, real_entries = GitTree.read, GitTree.entries
        spy = self

        def read(tree: GitTree, path: str, max_bytes: int) -> bytes | None:
            spy.paths.append(path)
            return real_read(tree, path, max_bytes)

        def entries(tree: GitTree, prefix: str) -> Any:
            spy.paths.append(prefix)
            return real_entries(tree, prefix)

        monkeypatch.setattr(GitTree, "read", read)
        monkeypatch.setattr(GitTree, "entries", entries)

    def touched(self, skill_id: str) -> bool:
        """Whether anything of skills/<id>/ was listed or read (or all of skills/ at once)."""
        return any(
            path.startswith(f"skills/{skill_id}/") or path.rstrip("/") in ("skills", f"skills/{skill_id}")
            for path in self.paths
        )


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[GitReads]:
    yield GitReads(monkeypatch)


def three_skills(repo: SkillRepo) -> str:
    repo.add_skill("alpha", files={"references/guide.md": GUIDE}, tags=["docs"])
    repo.add_skill("beta", body="Beta steps.\n")
    repo.add_skill("gamma", files={"scripts/run.sh": "#!/bin/sh\necho hi\n"}, required_zdr=True)
    return repo.commit("three skills")


def version_ids(sha: str) -> dict[str, int]:
    return dict(SnapshotSkill.objects.filter(snapshot__sha=sha).values_list("skill_id", "skill_version_id"))


# --- reuse ------------------------------------------------------------------------------


def test_unchanged_skills_are_reused_without_being_read(skill_repo: SkillRepo, reads: GitReads) -> None:
    first = three_skills(skill_repo)
    publish(skill_repo.root, first)
    assert reads.touched("alpha")  # the first publish reads everything
    before = version_ids(first)
    second = bump(skill_repo, "beta", "1.1.0", "Beta, better.\n")
    reads.paths.clear()

    result = publish(skill_repo.root, second)

    assert result.outcome is Outcome.PUBLISHED
    assert (result.skill_count, result.reused_skills, result.new_skill_versions) == (3, 2, 1)
    assert not reads.touched("alpha")
    assert not reads.touched("gamma")
    assert "skills/beta/SKILL.md" in reads.paths
    after = version_ids(second)
    assert after["alpha"] == before["alpha"]
    assert after["gamma"] == before["gamma"]
    assert after["beta"] != before["beta"]
    snapshot = Snapshot.objects.get(sha=second)
    assert snapshot.rules_fingerprint == rules_fingerprint() != ""


def test_a_deleted_and_an_added_skill_are_seen(skill_repo: SkillRepo, reads: GitReads) -> None:
    publish(skill_repo.root, three_skills(skill_repo))
    skill_repo.remove("skills/gamma")
    skill_repo.add_skill("delta", body="New.\n")
    sha = skill_repo.commit("gamma out, delta in")
    reads.paths.clear()

    result = publish(skill_repo.root, sha)

    assert (result.skill_count, result.reused_skills) == (3, 2)
    assert sorted(version_ids(sha)) == ["alpha", "beta", "delta"]
    assert reads.touched("delta")
    assert not reads.touched("alpha")


# --- nothing weaker -----------------------------------------------------------------------


def test_a_changed_skill_without_a_version_bump_is_still_refused(
    skill_repo: SkillRepo, reads: GitReads
) -> None:
    published = three_skills(skill_repo)
    publish(skill_repo.root, published)
    unbumped = bump(skill_repo, "beta", "1.0.0", "Changed without a bump.\n")
    reads.paths.clear()

    refused = publish_refusal(skill_repo.root, unbumped)

    assert "\nskills/beta/SKILL.md: content changed since the base revision" in refused
    assert not reads.touched("alpha")  # refused on the incremental path, not by a full re-read
    assert Snapshot.objects.get(is_active=True).sha == published


def test_a_file_added_to_an_unchanged_skill_md_is_still_refused(skill_repo: SkillRepo) -> None:
    publish(skill_repo.root, three_skills(skill_repo))
    skill_repo.write("skills/alpha/references/extra.md", "Not listed.\n")
    sha = skill_repo.commit("an unlisted file")

    refused = publish_refusal(skill_repo.root, sha)

    assert "\nskills/alpha/references/extra.md: is not listed in the files of SKILL.md" in refused


def test_a_stray_entry_under_skills_is_still_reported(skill_repo: SkillRepo) -> None:
    publish(skill_repo.root, three_skills(skill_repo))
    skill_repo.write("skills/README.md", "Not a skill.\n")
    sha = skill_repo.commit("a stray file")

    result = publish(skill_repo.root, sha)
    assert result.reused_skills == 3
    assert result.warnings == ("skills/README.md: warning: a file outside every skill, not served",)


def test_max_skills_counts_the_unchanged_skills(skill_repo: SkillRepo) -> None:
    skill_repo.write_config(config_with_limits(max_skills=3))
    publish(skill_repo.root, three_skills(skill_repo))
    skill_repo.add_skill("delta")
    sha = skill_repo.commit("one too many")

    with pytest.raises(PublishError, match="holds 4 skills, more than max_skills"):
        publish(skill_repo.root, sha)


def assert_alpha_read_again_and_refused(skill_repo: SkillRepo, reads: GitReads, sha: str) -> None:
    """Publishing `sha` reads alpha again (nothing about it changed but the limit it is held
    to) and refuses its guide, now over that limit."""
    reads.paths.clear()
    refused = publish_refusal(skill_repo.root, sha)
    assert "\nskills/alpha/references/guide.md: is 17 bytes, more than" in refused
    assert reads.touched("alpha")


def test_a_config_change_validates_every_skill(skill_repo: SkillRepo, reads: GitReads) -> None:
    publish(skill_repo.root, three_skills(skill_repo))
    # alpha is untouched, but its reference file is now over the limit.
    skill_repo.write_config(config_with_limits(max_file_bytes=len(GUIDE) - 1))
    assert_alpha_read_again_and_refused(skill_repo, reads, skill_repo.commit("smaller files"))

    skill_repo.write_config(config_with_limits(max_file_bytes=4096))
    loosened = skill_repo.commit("larger files")
    reads.paths.clear()
    result = publish(skill_repo.root, loosened)
    assert (result.skill_count, result.reused_skills) == (3, 0)
    assert reads.touched("alpha") and reads.touched("gamma")


def test_commits_both_without_a_config_reuse_unchanged_skills(skill_repo: SkillRepo, reads: GitReads) -> None:
    # Both are governed by the built-in defaults, which are code the fingerprint covers.
    skill_repo.remove("registry.config.json")
    publish(skill_repo.root, three_skills(skill_repo))
    second = bump(skill_repo, "beta", "1.1.0", "Beta, better.\n")
    reads.paths.clear()

    result = publish(skill_repo.root, second)

    assert (result.skill_count, result.reused_skills) == (3, 2)
    assert not reads.touched("alpha") and not reads.touched("gamma")


def test_adding_a_config_validates_every_skill(skill_repo: SkillRepo, reads: GitReads) -> None:
    skill_repo.remove("registry.config.json")
    publish(skill_repo.root, three_skills(skill_repo))
    skill_repo.write_config({"limits": {"max_file_bytes": len(GUIDE) - 1}})
    assert_alpha_read_again_and_refused(skill_repo, reads, skill_repo.commit("a config of our own"))


def test_a_change_of_the_validation_code_validates_every_skill(
    skill_repo: SkillRepo, reads: GitReads, monkeypatch: pytest.MonkeyPatch
) -> None:
    publish(skill_repo.root, three_skills(skill_repo))
    sha = bump(skill_repo, "beta", "1.1.0", "Beta, better.\n")
    monkeypatch.setattr(publishing, "rules_fingerprint", lambda: "f" * 64)
    reads.paths.clear()

    result = publish(skill_repo.root, sha)

    assert result.reused_skills == 0
    assert reads.touched("alpha")
    assert Snapshot.objects.get(sha=sha).rules_fingerprint == "f" * 64


def test_a_snapshot_of_unknown_rules_is_never_trusted(skill_repo: SkillRepo, reads: GitReads) -> None:
    first = three_skills(skill_repo)
    publish(skill_repo.root, first)
    Snapshot.objects.filter(sha=first).update(rules_fingerprint="")  # stored before fingerprints existed
    sha = bump(skill_repo, "beta", "1.1.0", "Beta, better.\n")
    reads.paths.clear()

    assert publish(skill_repo.root, sha).reused_skills == 0
    assert reads.touched("alpha")


def test_a_rollback_validates_every_skill(skill_repo: SkillRepo, reads: GitReads) -> None:
    old = three_skills(skill_repo)
    new = bump(skill_repo, "beta", "1.1.0", "Beta, better.\n")
    publish(skill_repo.root, new)
    reads.paths.clear()

    result = publish(skill_repo.root, old, rollback=True)

    assert (result.outcome, result.reused_skills) == (Outcome.PUBLISHED, 0)
    assert reads.touched("alpha") and reads.touched("gamma")
    # Forward again: checked like any forward move (against the snapshot the rollback
    # stored, so incrementally), then reactivated.
    reads.paths.clear()
    forward = publish(skill_repo.root, new)
    assert (forward.outcome, forward.reused_skills) == (Outcome.REACTIVATED, 2)
    assert reads.touched("beta") and not reads.touched("alpha")


def test_an_active_commit_missing_from_the_repository_reuses_nothing(skill_repo: SkillRepo) -> None:
    # A forward publish refuses such a commit before validating (only --rollback gets past
    # that, and a rollback reuses nothing), so this checks the guard on its own.
    first = three_skills(skill_repo)
    publish(skill_repo.root, first)
    second = bump(skill_repo, "beta", "1.1.0", "Beta, better.\n")
    active = read_active()
    assert active is not None
    skills = reuse.active_skills(active.id)
    fingerprint = rules_fingerprint()
    git_repo = open_repo(skill_repo.root)
    with GitTree(git_repo, resolve_commit(git_repo, second)) as tree:
        assert set(reuse.reusable_skills(tree, active, skills, fingerprint)) == {
            "skills/alpha",
            "skills/gamma",
        }
        missing = ActiveSnapshot(active.id, "0123456789" * 4, active.published_at)
        assert reuse.reusable_skills(tree, missing, skills, fingerprint) == {}
    git_repo.close()


# --- the same snapshot as a full validation ---------------------------------------------------


def snapshot_rows(sha: str) -> dict[str, Any]:
    snapshot = Snapshot.objects.get(sha=sha)
    rows = list(
        SnapshotSkill.objects.filter(snapshot=snapshot)
        .order_by("id")
        .values_list("skill_id", "skill_version_id", "skill_version__content_hash")
    )
    return {
        "skill_count": snapshot.skill_count,
        "file_count": snapshot.file_count,
        "total_bytes": snapshot.total_bytes,
        "config": snapshot.config,
        "rules_fingerprint": snapshot.rules_fingerprint,
        "rows": rows,
    }


def test_the_stored_snapshot_is_the_one_a_full_validation_stores(
    skill_repo: SkillRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = "# Shared\nSame bytes in two skills.\n"
    skill_repo.add_skill("alpha", files={"references/shared.md": shared, "templates/t.txt": "t\n"})
    skill_repo.add_skill("beta", files={"references/copy.md": shared})
    skill_repo.add_skill("gamma", files={"scripts/run.py": "print(1)\n"}, required_zdr=True)
    skill_repo.add_skill("omega")
    base = skill_repo.commit("four skills")
    publish(skill_repo.root, base)
    skill_repo.add_skill("beta", "Beta, better.\n", {"references/copy.md": shared}, version="1.1.0")
    skill_repo.remove("skills/gamma")
    skill_repo.add_skill("delta", files={"references/d.md": "D.\n"})
    middle = skill_repo.commit("beta changed, gamma gone, delta new")
    skill_repo.add_skill("omega", body="Omega, again.\n", version="2.0.0")
    newest = skill_repo.commit("omega changed")

    # Incrementally: base -> middle -> newest, each reusing from the one before.
    assert publish(skill_repo.root, middle).reused_skills == 2
    assert publish(skill_repo.root, newest).reused_skills == 3
    incremental = {sha: snapshot_rows(sha) for sha in (middle, newest)}

    # The same commits again, every skill validated.
    assert publish(skill_repo.root, base, rollback=True).outcome is Outcome.REACTIVATED
    Snapshot.objects.filter(sha__in=[middle, newest]).delete()
    monkeypatch.setattr(publishing, "reusable_skills", lambda *args: {})
    assert publish(skill_repo.root, middle).reused_skills == 0
    assert publish(skill_repo.root, newest).reused_skills == 0
    full = {sha: snapshot_rows(sha) for sha in (middle, newest)}

    assert incremental == full


# --- validate_tree(known_valid=...) ------------------------------------------------------------


def commit_tree(repo: SkillRepo, rev: str = "HEAD") -> GitTree:
    git_repo = open_repo(repo.root)
    return GitTree(git_repo, resolve_commit(git_repo, rev))


def test_known_valid_skills_are_counted_but_never_read(skill_repo: SkillRepo, reads: GitReads) -> None:
    three_skills(skill_repo)
    full = validate_tree(commit_tree(skill_repo))
    reads.paths.clear()

    report = validate_tree(
        commit_tree(skill_repo), known_valid={"skills/alpha", "skills/gamma", "skills/absent"}
    )

    assert report.ok and full.ok
    assert report.known_valid == ["skills/alpha", "skills/gamma"]  # only those present
    assert [skill.id for skill in report.skills] == ["beta"]
    assert report.skills == [skill for skill in full.skills if skill.id == "beta"]
    assert not reads.touched("alpha") and not reads.touched("gamma")
    assert full.known_valid == []


def test_known_valid_never_hides_a_tree_wide_problem(skill_repo: SkillRepo) -> None:
    skill_repo.write_config(config_with_limits(max_skills=2))
    three_skills(skill_repo)
    skill_repo.write("skills/notes.txt", "stray\n")
    skill_repo.commit()

    report = validate_tree(
        commit_tree(skill_repo), known_valid={"skills/alpha", "skills/beta", "skills/gamma"}
    )

    # Refused whole by the count (its warnings, such as the stray file, not computed).
    assert codes(report) == {("skills", "too_many_skills")}
    assert report.known_valid == ["skills/alpha", "skills/beta", "skills/gamma"]


@pytest.mark.parametrize("list_each_max", [0, 64])
def test_both_listings_give_the_full_verdict_on_the_rest(
    skill_repo: SkillRepo, monkeypatch: pytest.MonkeyPatch, list_each_max: int
) -> None:
    three_skills(skill_repo)
    skill_repo.add_skill("delta", required_zrd=True)
    skill_repo.write("skills/beta/notes.txt", "not listed\n")
    skill_repo.write("skills/stray.md", "stray\n")
    skill_repo.commit()
    full = validate_tree(commit_tree(skill_repo))
    monkeypatch.setattr(discovery, "_LIST_EACH_MAX", list_each_max)

    report = validate_tree(commit_tree(skill_repo), known_valid={"skills/alpha"})

    assert report.problems == full.problems
    assert report.skills == [skill for skill in full.skills if skill.id != "alpha"]
    assert report.known_valid == ["skills/alpha"]


def test_a_skills_dir_that_is_no_directory_is_still_reported(skill_repo: SkillRepo) -> None:
    skill_repo.remove("skills")
    skill_repo.write("skills", "a file\n")
    skill_repo.commit()

    report = validate_tree(commit_tree(skill_repo), known_valid={"skills/alpha"})

    assert codes(report) == {("skills", "skills_dir_not_directory")}
    assert report.known_valid == []
