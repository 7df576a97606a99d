"""One interface over "a working directory" and "a git commit's tree".

Validation runs the same rules on both: check_skills on the working tree
(uncommitted edits included), publish on a commit read from git objects only.
Paths are repository-relative POSIX strings ("skills/foo/SKILL.md").
"""

import enum
import os
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import git
from gitdb.exc import BadName, BadObject


class EntryKind(enum.Enum):
    FILE = "file"
    SYMLINK = "symlink"
    SUBMODULE = "submodule"
    OTHER = "other"  # a device, socket, fifo or nested repository: never content


@dataclass(frozen=True, slots=True)
class TreeEntry:
    path: str
    kind: EntryKind
    size: int


class TreeError(Exception):
    """The tree itself cannot be read (not a repository, unknown revision, ...)."""


class Tree(Protocol):
    label: str

    def entries(self, prefix: str) -> list[TreeEntry]:
        """Every non-directory entry whose path starts with `prefix`, sorted by path."""
        ...

    def read(self, path: str, max_bytes: int) -> bytes | None:
        """The file's bytes, at most max_bytes + 1 of them (so a caller can tell it is too big).

        None when there is no regular file at `path`.
        """
        ...


class WorkingTree:
    """A directory on disk. In a git work tree, what `git add -A` would commit:
    tracked files still present plus untracked files that are not ignored."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise TreeError(f"{root}: not a directory")
        self.label = f"working tree {self.root}"

    def entries(self, prefix: str) -> list[TreeEntry]:
        listed = self._git_paths(prefix)
        paths = listed if listed is not None else self._walk_paths(prefix)
        result = []
        for rel, is_gitlink in sorted(paths.items()):
            if is_gitlink:
                result.append(TreeEntry(rel, EntryKind.SUBMODULE, 0))
                continue
            try:
                info = (self.root / rel).lstat()
            except FileNotFoundError:
                continue  # deleted in the work tree but not yet staged: gone at the next commit
            result.append(TreeEntry(rel, _kind_of(info.st_mode), info.st_size))
        return result

    def read(self, path: str, max_bytes: int) -> bytes | None:
        full = self.root / path
        try:
            # O_NOFOLLOW: a symlink swapped in after listing is refused, never followed.
            fd = os.open(full, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            return handle.read(max_bytes + 1)

    def _git_paths(self, prefix: str) -> dict[str, bool] | None:
        """Paths from git's own index and ignore rules, or None outside a git work tree."""
        if not (self.root / ".git").exists():
            return None
        try:
            staged = _git(self.root, "ls-files", "-z", "--stage", "--", prefix)
            others = _git(self.root, "ls-files", "-z", "--others", "--exclude-standard", "--", prefix)
        except (OSError, subprocess.CalledProcessError):
            return None
        paths: dict[str, bool] = {}
        for record in filter(None, staged.split("\0")):
            meta, _, rel = record.partition("\t")
            paths[rel] = meta.startswith("160000")
        for rel in filter(None, others.split("\0")):
            # git lists a nested repository as "dir/": it is never a plain file.
            paths[rel.rstrip("/")] = rel.endswith("/")
        return {rel: flag for rel, flag in paths.items() if rel.startswith(prefix)}

    def _walk_paths(self, prefix: str) -> dict[str, bool]:
        top = self.root / prefix
        paths: dict[str, bool] = {}
        if not top.is_dir() or top.is_symlink():
            return paths
        for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
            here = Path(dirpath)
            for name in list(dirnames):
                if (here / name).is_symlink():
                    filenames.append(name)  # report the link itself; never descend into it
                    dirnames.remove(name)
            for name in filenames:
                paths[(here / name).relative_to(self.root).as_posix()] = False
        return paths


class GitTree:
    """A commit's tree, read from git objects only: the work tree never leaks in."""

    def __init__(self, repo: git.Repo, commit: git.Commit) -> None:
        self.repo = repo
        self.commit = commit
        self.sha = commit.hexsha
        self.label = f"commit {commit.hexsha}"
        self._blobs: dict[str, git.Blob] = {}

    def entries(self, prefix: str) -> list[TreeEntry]:
        top = prefix.rstrip("/")
        try:
            tree = self.commit.tree / top if top else self.commit.tree
        except KeyError:
            return []
        if not isinstance(tree, git.Tree):
            return [self._entry(tree)] if tree.path.startswith(prefix) else []
        result = [self._entry(item) for item in tree.traverse() if not isinstance(item, git.Tree)]
        return sorted(result, key=lambda entry: entry.path)

    def read(self, path: str, max_bytes: int) -> bytes | None:
        blob = self._blobs.get(path)
        if blob is None:
            try:
                item = self.commit.tree / path
            except KeyError:
                return None
            if not isinstance(item, git.Blob) or item.mode & 0o170000 != 0o100000:
                return None
            blob = item
        return blob.data_stream.read(max_bytes + 1)

    def _entry(self, item: object) -> TreeEntry:
        if isinstance(item, git.Blob):
            kind = item.mode & 0o170000
            if kind == 0o120000:
                return TreeEntry(item.path, EntryKind.SYMLINK, 0)
            if kind == 0o100000:
                self._blobs[item.path] = item
                return TreeEntry(item.path, EntryKind.FILE, item.size)
            return TreeEntry(item.path, EntryKind.OTHER, 0)
        return TreeEntry(item.path, EntryKind.SUBMODULE, 0)  # type: ignore[attr-defined]


def open_repo(path: str | os.PathLike[str]) -> git.Repo:
    try:
        return git.Repo(path)
    except (git.NoSuchPathError, git.InvalidGitRepositoryError):
        raise TreeError(f"{path}: not a git repository") from None


def resolve_commit(repo: git.Repo, rev: str) -> git.Commit:
    """A revision (full or abbreviated SHA, branch, tag, HEAD~1, ...) to its commit."""
    if not rev or rev.startswith("-") or any(ch.isspace() for ch in rev):
        raise TreeError(f"{rev!r}: not a valid revision")
    try:
        commit = repo.commit(rev)
        # GitPython hands back the all-zero SHA without looking it up; reading its tree
        # makes git confirm the commit exists before anyone relies on it.
        commit.tree  # noqa: B018
        return commit
    except (BadName, BadObject, ValueError, git.GitCommandError):
        raise TreeError(f"{rev!r}: unknown revision in {repo.working_dir or repo.git_dir}") from None


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True, encoding="utf-8"
    ).stdout


def _kind_of(mode: int) -> EntryKind:
    if stat.S_ISLNK(mode):
        return EntryKind.SYMLINK
    if stat.S_ISREG(mode):
        return EntryKind.FILE
    if stat.S_ISDIR(mode):
        return EntryKind.SUBMODULE  # a directory listed as a path is a gitlink checkout
    return EntryKind.OTHER
