"""What a commit would publish that HEAD does not: the uncommitted changes under skills_dir.

`publish HEAD` reads git objects only, while `check_skills` reads the working tree; an
author who edits a skill, checks it and publishes HEAD gets "Already active" and may
believe the edit is served. uncommitted_skill_paths() lets `publish` say why it is not
(docs/reference.md#publish). It only reads (git status), is bounded in time and in the
paths it returns, and answers None wherever there is no working tree to speak of.
"""

import os
from dataclasses import dataclass

import git

from catalog.trees import TreeError, WorkingTree
from catalog.validation import read_config

# A status over a huge or slow tree must not hold a publish up: past this, say nothing.
STATUS_TIMEOUT_SECONDS = 5.0
MAX_SHOWN_PATHS = 5


@dataclass(frozen=True, slots=True)
class UncommittedSkills:
    skills_dir: str
    paths: tuple[str, ...]  # at most MAX_SHOWN_PATHS of them
    count: int  # every changed path under skills_dir

    def note(self) -> str:
        shown = ", ".join(self.paths)
        more = f" and {self.count - len(self.paths)} more" if self.count > len(self.paths) else ""
        return (
            f"note: the working tree has {self.count} uncommitted change(s) under {self.skills_dir}/ "
            f"({shown}{more}); publish reads commits only: commit them, then publish the new commit"
        )


def uncommitted_skills(repo_path: str | os.PathLike[str], sha: str) -> UncommittedSkills | None:
    """The new, modified and deleted paths under skills_dir (the working tree's config) when
    `sha` is the checked-out HEAD; None when there are none, the repository is bare, `sha`
    is not HEAD, or git does not answer in time."""
    try:
        repo = git.Repo(repo_path)
    except (git.NoSuchPathError, git.InvalidGitRepositoryError):
        return None
    try:
        if repo.bare or not repo.head.is_valid():  # bare, or no commit yet
            return None
        if repo.head.commit.hexsha != sha:
            return None  # an older commit is active: the working tree is not what it lacks
        config, _ = read_config(WorkingTree(repo.working_dir))
        if config is None:
            return None
        output = repo.git.status(
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--",
            f"{config.skills_dir}/",
            kill_after_timeout=STATUS_TIMEOUT_SECONDS,
        )
    except (git.GitCommandError, TreeError, ValueError, OSError):
        return None
    finally:
        repo.close()
    paths = _status_paths(output)
    if not paths:
        return None
    return UncommittedSkills(config.skills_dir, tuple(paths[:MAX_SHOWN_PATHS]), len(paths))


def _status_paths(output: str) -> list[str]:
    """`git status --porcelain=v1 -z`: "XY path", a rename or copy followed by its origin."""
    records = output.split("\0")
    paths: list[str] = []
    index = 0
    while index < len(records):
        record = records[index]
        index += 1
        if len(record) < 4:
            continue
        paths.append(record[3:])
        if record[0] in "RC":
            index += 1  # the origin of a rename or copy
    return sorted(paths)
