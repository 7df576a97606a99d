"""One interface over "a working directory" and "a git commit's tree".

Validation runs the same rules on both: check_skills on the working tree
(uncommitted edits included), publish on a commit read from git objects only.
Paths are repository-relative POSIX strings ("skills/foo/SKILL.md").
"""

import enum
import os
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import git
from gitdb.exc import BadName, BadObject


class EntryKind(enum.Enum):
    FILE = "file"
    SYMLINK = "symlink"
    SUBMODULE = "submodule"
    OTHER = "other"  # a device, socket, fifo or nested repository: never content
    DIRECTORY = "directory"  # only from Tree.children(): entries() lists files, never folders


@dataclass(frozen=True, slots=True)
class TreeEntry:
    path: str
    kind: EntryKind
    size: int
    # The git object id (a tree's for a DIRECTORY) when the tree knows it: GitTree.children()
    # sets it, so a caller can tell an unchanged directory without reading it.
    oid: str | None = field(default=None, compare=False)


class TreeError(Exception):
    """The tree itself cannot be read (not a repository, unknown revision, ...)."""


class Tree(Protocol):
    label: str

    def entries(self, prefix: str) -> list[TreeEntry]:
        """Every non-directory entry whose path starts with `prefix`, sorted by path."""
        ...

    def children(self, directory: str) -> list[TreeEntry]:
        """The entries directly inside `directory` ("" for the root), sorted by path: files as
        entries() reports them, sub-directories as DIRECTORY. [] when it is no directory."""
        ...

    def read(self, path: str, max_bytes: int) -> bytes | None:
        """The file's bytes, at most max_bytes + 1 of them (so a caller can tell it is too big).

        None when there is no regular file at `path`.
        """
        ...


def children_from_entries(entries: list[TreeEntry], directory: str) -> list[TreeEntry]:
    """Tree.children() derived from a recursive listing of `directory`: for a tree that has
    no cheaper way to list one level."""
    prefix = directory.strip("/") + "/" if directory.strip("/") else ""
    found: dict[str, TreeEntry] = {}
    for entry in entries:
        if not entry.path.startswith(prefix):
            continue
        name, sep, _ = entry.path[len(prefix) :].partition("/")
        if sep:
            found.setdefault(name, TreeEntry(prefix + name, EntryKind.DIRECTORY, 0))
        else:
            found[name] = entry
    return sorted(found.values(), key=lambda entry: entry.path)


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

    def children(self, directory: str) -> list[TreeEntry]:
        prefix = directory.strip("/")
        return children_from_entries(self.entries(prefix + "/" if prefix else ""), prefix)

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
            pathspec = prefix or "."  # git refuses an empty pathspec
            staged = _git(self.root, "ls-files", "-z", "--stage", "--", pathspec)
            others = _git(self.root, "ls-files", "-z", "--others", "--exclude-standard", "--", pathspec)
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
    """A commit's tree, read from git objects only: the work tree never leaks in.

    One `git ls-tree` lists a prefix with sizes, and one long-lived
    `git cat-file --batch` streams the blobs: per-object lookups through
    GitPython cost three round trips each, ten times slower on large repos.
    """

    def __init__(self, repo: git.Repo, commit: git.Commit) -> None:
        self.repo = repo
        self.sha = commit.hexsha
        self.label = f"commit {commit.hexsha}"
        self._git_dir = str(repo.git_dir)
        self._oids: dict[str, str] = {}
        self._children: dict[str, tuple[TreeEntry, ...]] = {}
        self._cat: subprocess.Popen[bytes] | None = None

    def entries(self, prefix: str) -> list[TreeEntry]:
        result = []
        for mode, oid, size, path in self._ls_tree(prefix.rstrip("/") or ".", recursive=True):
            if not path.startswith(prefix):
                continue
            kind = _git_mode_kind(mode)
            if kind is EntryKind.FILE:
                self._oids[path] = oid
            result.append(TreeEntry(path, kind, size if kind is EntryKind.FILE else 0))
        return sorted(result, key=lambda entry: entry.path)

    def children(self, directory: str) -> list[TreeEntry]:
        """One level of the tree, with object ids: a sub-directory's id names its whole
        content (names, modes and bytes), so equal ids mean identical directories."""
        directory = directory.strip("/")
        cached = self._children.get(directory)
        if cached is not None:
            return list(cached)
        prefix = directory + "/" if directory else ""
        result = []
        # "dir/" lists what is inside dir (nothing when dir is a file); "." lists the root.
        for mode, oid, size, path in self._ls_tree(prefix or ".", recursive=False):
            if not path.startswith(prefix) or "/" in path[len(prefix) :]:
                continue
            kind = EntryKind.DIRECTORY if mode == _TREE_MODE else _git_mode_kind(mode)
            if kind is EntryKind.FILE:
                self._oids[path] = oid
            result.append(TreeEntry(path, kind, size if kind is EntryKind.FILE else 0, oid))
        result.sort(key=lambda entry: entry.path)
        self._children[directory] = tuple(result)
        return result

    def read(self, path: str, max_bytes: int) -> bytes | None:
        oid = self._oids.get(path)
        if oid is None:
            found = [row for row in self._ls_tree(path, recursive=False) if row[3] == path]
            if not found or _git_mode_kind(found[0][0]) is not EntryKind.FILE:
                return None
            oid = found[0][1]
        return self._cat_file(oid, max_bytes + 1)

    def close(self) -> None:
        if self._cat is not None:
            self._cat.stdin.close()  # type: ignore[union-attr]
            self._cat.wait()
            self._cat.stdout.close()  # type: ignore[union-attr]
            self._cat = None

    def __enter__(self) -> "GitTree":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if self._cat is not None and self._cat.poll() is None:
            self._cat.kill()

    def _ls_tree(self, pathspec: str, *, recursive: bool) -> list[tuple[str, str, int, str]]:
        args = ["ls-tree", "-z", "--long", "--full-tree"] + (["-r"] if recursive else [])
        out = subprocess.run(
            [
                "git",
                "--literal-pathspecs",
                "--git-dir",
                self._git_dir,
                *args,
                self.sha,
                "--",
                pathspec,
            ],
            check=True,
            capture_output=True,
        ).stdout
        rows = []
        for record in filter(None, out.split(b"\0")):
            meta, _, raw_path = record.partition(b"\t")
            mode, _type, oid, size = meta.split()
            rows.append(
                (
                    mode.decode(),
                    oid.decode(),
                    int(size) if size != b"-" else 0,
                    raw_path.decode("utf-8", "surrogateescape"),
                )
            )
        return rows

    def _cat_file(self, oid: str, limit: int) -> bytes:
        """At most `limit` bytes of a blob; the rest is drained in chunks, never held."""
        if self._cat is None:
            self._cat = subprocess.Popen(
                ["git", "--git-dir", self._git_dir, "cat-file", "--batch"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
        stdin, stdout = self._cat.stdin, self._cat.stdout
        assert stdin is not None and stdout is not None
        stdin.write(oid.encode() + b"\n")
        stdin.flush()
        header = stdout.readline().split()
        if len(header) != 3 or header[1] != b"blob":
            raise TreeError(f"{self.label}: object {oid} is not a readable blob")
        size = int(header[2])
        data = stdout.read(min(size, limit))
        remaining = size - len(data)
        while remaining > 0:
            remaining -= len(stdout.read(min(remaining, 1 << 20)))
        stdout.read(1)  # the newline after every object
        return data


_TREE_MODE = "040000"


def _git_mode_kind(mode: str) -> EntryKind:
    if mode in ("100644", "100755"):
        return EntryKind.FILE
    if mode == "120000":
        return EntryKind.SYMLINK
    if mode == "160000":
        return EntryKind.SUBMODULE
    return EntryKind.OTHER


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
