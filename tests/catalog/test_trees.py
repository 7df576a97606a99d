"""WorkingTree (what `git add -A` would commit) and GitTree (a commit, from git objects only)."""

from pathlib import Path

import pytest

from catalog.trees import EntryKind, GitTree, TreeEntry, TreeError, WorkingTree, open_repo, resolve_commit
from tests.catalog.tree_support import nested_repository, symlink
from tests.support.repos import SkillRepo


def git_tree(repo: SkillRepo, rev: str = "HEAD") -> GitTree:
    git_repo = open_repo(repo.root)
    return GitTree(git_repo, resolve_commit(git_repo, rev))


def paths(entries: list[TreeEntry]) -> list[str]:
    return [entry.path for entry in entries]


def kinds(entries: list[TreeEntry]) -> dict[str, EntryKind]:
    return {entry.path: entry.kind for entry in entries}


# --- WorkingTree ------------------------------------------------------------------------


def test_working_tree_lists_tracked_and_untracked_files_sorted_with_sizes(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/b/SKILL.md", "bb")
    skill_repo.commit()
    skill_repo.write("skills/a/SKILL.md", "a")  # untracked, not ignored
    entries = WorkingTree(skill_repo.root).entries("skills/")
    assert entries == [
        TreeEntry("skills/a/SKILL.md", EntryKind.FILE, 1),
        TreeEntry("skills/b/SKILL.md", EntryKind.FILE, 2),
    ]


def test_working_tree_reads_uncommitted_edits(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/a/SKILL.md", "committed")
    skill_repo.commit()
    skill_repo.write("skills/a/SKILL.md", "edited")
    assert WorkingTree(skill_repo.root).read("skills/a/SKILL.md", 100) == b"edited"


def test_working_tree_excludes_ignored_files(skill_repo: SkillRepo) -> None:
    skill_repo.write(".gitignore", "*.log\n")
    skill_repo.write("skills/a/SKILL.md", "x")
    skill_repo.write("skills/a/debug.log", "noise")
    assert paths(WorkingTree(skill_repo.root).entries("skills/")) == ["skills/a/SKILL.md"]


def test_working_tree_excludes_a_tracked_file_deleted_from_disk(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/a/SKILL.md", "x")
    skill_repo.write("skills/a/references/old.md", "old")
    skill_repo.commit()
    skill_repo.remove("skills/a/references/old.md")
    tree = WorkingTree(skill_repo.root)
    assert paths(tree.entries("skills/")) == ["skills/a/SKILL.md"]
    assert tree.read("skills/a/references/old.md", 100) is None


def test_working_tree_reports_a_symlink_and_never_follows_it(skill_repo: SkillRepo) -> None:
    skill_repo.write("secret.txt", "do not serve")
    symlink(skill_repo, "skills/a/references/link.md", "../../../secret.txt")
    tree = WorkingTree(skill_repo.root)
    assert kinds(tree.entries("skills/")) == {"skills/a/references/link.md": EntryKind.SYMLINK}
    assert tree.read("skills/a/references/link.md", 100) is None


def test_working_tree_reports_a_nested_repository_as_a_submodule(skill_repo: SkillRepo) -> None:
    nested_repository(skill_repo, "skills/a/references/sub")
    assert kinds(WorkingTree(skill_repo.root).entries("skills/")) == {
        "skills/a/references/sub": EntryKind.SUBMODULE
    }


def test_working_tree_returns_at_most_one_byte_over_the_limit(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/a/SKILL.md", "0123456789")
    tree = WorkingTree(skill_repo.root)
    assert tree.read("skills/a/SKILL.md", 4) == b"01234"
    assert tree.read("skills/a/SKILL.md", 10) == b"0123456789"


def test_working_tree_walks_a_plain_directory_outside_git(tmp_path: Path) -> None:
    (tmp_path / "skills/a/references").mkdir(parents=True)
    (tmp_path / "skills/a/SKILL.md").write_text("x")
    (tmp_path / "skills/a/references/r.md").write_text("r")
    (tmp_path / "skills/a/references/link.md").symlink_to("r.md")
    tree = WorkingTree(tmp_path)
    assert kinds(tree.entries("skills/")) == {
        "skills/a/SKILL.md": EntryKind.FILE,
        "skills/a/references/link.md": EntryKind.SYMLINK,
        "skills/a/references/r.md": EntryKind.FILE,
    }
    assert tree.read("skills/a/references/r.md", 10) == b"r"


def test_working_tree_rejects_a_path_that_is_not_a_directory(tmp_path: Path) -> None:
    with pytest.raises(TreeError, match="not a directory"):
        WorkingTree(tmp_path / "missing")


# --- GitTree ----------------------------------------------------------------------------


def test_git_tree_reads_the_commit_not_the_dirty_work_tree(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/a/SKILL.md", "committed")
    skill_repo.commit()
    skill_repo.write("skills/a/SKILL.md", "edited and longer")
    skill_repo.write("skills/b/SKILL.md", "untracked")
    tree = git_tree(skill_repo)
    assert tree.entries("skills/") == [TreeEntry("skills/a/SKILL.md", EntryKind.FILE, len("committed"))]
    assert tree.read("skills/a/SKILL.md", 100) == b"committed"
    assert tree.read("skills/b/SKILL.md", 100) is None


def test_git_tree_still_has_a_file_deleted_from_the_work_tree(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/a/SKILL.md", "x")
    skill_repo.commit()
    skill_repo.remove("skills/a/SKILL.md")
    assert git_tree(skill_repo).read("skills/a/SKILL.md", 10) == b"x"


def test_git_tree_reads_an_older_commit(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/a/SKILL.md", "one")
    first = skill_repo.commit()
    skill_repo.write("skills/a/SKILL.md", "two")
    skill_repo.commit()
    assert git_tree(skill_repo, first[:7]).read("skills/a/SKILL.md", 10) == b"one"
    assert git_tree(skill_repo, "HEAD").read("skills/a/SKILL.md", 10) == b"two"


def test_git_tree_reports_symlinks_and_submodules(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/a/SKILL.md", "x")
    symlink(skill_repo, "skills/a/references/link.md", "../SKILL.md")
    nested_repository(skill_repo, "skills/a/references/sub")
    skill_repo.commit()
    tree = git_tree(skill_repo)
    assert kinds(tree.entries("skills/")) == {
        "skills/a/SKILL.md": EntryKind.FILE,
        "skills/a/references/link.md": EntryKind.SYMLINK,
        "skills/a/references/sub": EntryKind.SUBMODULE,
    }
    assert tree.read("skills/a/references/link.md", 100) is None


def test_git_tree_lists_only_under_the_prefix(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/a/SKILL.md", "x")
    skill_repo.write("other/file.md", "y")
    skill_repo.commit()
    tree = git_tree(skill_repo)
    assert paths(tree.entries("skills/")) == ["skills/a/SKILL.md"]
    assert tree.entries("nothing/") == []
    assert paths(tree.entries("registry.config.json")) == ["registry.config.json"]


def test_git_tree_returns_at_most_one_byte_over_the_limit(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/a/SKILL.md", "0123456789")
    skill_repo.commit()
    assert git_tree(skill_repo).read("skills/a/SKILL.md", 4) == b"01234"


def test_git_tree_children_lists_one_level_with_object_ids(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/a/SKILL.md", "a")
    skill_repo.write("skills/a/references/x.md", "x")
    skill_repo.write("skills/b/SKILL.md", "b")
    skill_repo.write("skills/stray.md", "s")
    symlink(skill_repo, "skills/link", "a")
    first = skill_repo.commit()
    skill_repo.write("skills/b/SKILL.md", "b, changed")
    skill_repo.commit()

    before, after = git_tree(skill_repo, first), git_tree(skill_repo)

    assert kinds(after.children("skills")) == {
        "skills/a": EntryKind.DIRECTORY,
        "skills/b": EntryKind.DIRECTORY,
        "skills/link": EntryKind.SYMLINK,
        "skills/stray.md": EntryKind.FILE,
    }
    assert after.children("skills/") == after.children("skills")
    assert [entry.size for entry in after.children("skills") if entry.path == "skills/stray.md"] == [1]
    ids_before = {entry.path: entry.oid for entry in before.children("skills")}
    ids_after = {entry.path: entry.oid for entry in after.children("skills")}
    assert ids_before["skills/a"] == ids_after["skills/a"]  # unchanged directory, same tree id
    assert ids_before["skills/b"] != ids_after["skills/b"]
    assert all(len(oid or "") == 40 for oid in ids_after.values())
    assert kinds(after.children("")) == {
        "registry.config.json": EntryKind.FILE,
        "skills": EntryKind.DIRECTORY,
    }
    assert paths(after.children("skills/a")) == ["skills/a/SKILL.md", "skills/a/references"]
    assert after.children("skills/stray.md") == []
    assert after.children("nothing") == []
    # children() learns the blob ids, so reading a listed file needs no second lookup.
    config = (skill_repo.root / "registry.config.json").read_bytes()
    assert after.read("registry.config.json", 100_000) == config


def test_working_tree_children_match_the_commit(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/a/SKILL.md", "a")
    skill_repo.write("skills/a/references/x.md", "x")
    skill_repo.write("skills/stray.md", "s")
    skill_repo.commit()
    tree = WorkingTree(skill_repo.root)
    for directory in ("", "skills", "skills/a", "skills/stray.md", "nothing"):
        assert tree.children(directory) == git_tree(skill_repo).children(directory), directory


def test_open_repo_rejects_a_directory_that_is_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(TreeError, match="not a git repository"):
        open_repo(tmp_path)


@pytest.mark.parametrize("rev", ["nope", "", "-x", "HEAD extra", "0" * 40])
def test_resolve_commit_rejects_an_unknown_or_malformed_revision(skill_repo: SkillRepo, rev: str) -> None:
    skill_repo.commit()
    with pytest.raises(TreeError):
        resolve_commit(open_repo(skill_repo.root), rev)


def test_resolve_commit_accepts_an_abbreviated_sha(skill_repo: SkillRepo) -> None:
    sha = skill_repo.commit()
    assert resolve_commit(open_repo(skill_repo.root), sha[:7]).hexsha == sha
