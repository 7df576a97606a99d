"""Helpers shared by the catalog tests: real git repositories, validated through real trees."""

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from catalog.report import BaseSkill, ValidationReport
from catalog.trees import GitTree, WorkingTree, open_repo, resolve_commit
from catalog.validation import base_skills_from_tree, validate_tree
from tests.support.repos import SkillRepo
from tests.support.skillmd import skill_md

# The SKILL.md of the skill "demo", where most single-skill tests put their problem.
MD = "skills/demo/SKILL.md"


def validate(repo: SkillRepo, base: Mapping[str, BaseSkill] | None = None) -> ValidationReport:
    return validate_tree(WorkingTree(repo.root), base)


def valid_paths(repo: SkillRepo) -> list[str]:
    """The paths of the skills of `repo`'s working tree, which must validate cleanly."""
    report = validate(repo)
    assert report.ok, report.problems
    return [skill.metadata.path for skill in report.skills]


def validate_commit(repo: SkillRepo, rev: str = "HEAD") -> ValidationReport:
    git_repo = open_repo(repo.root)
    return validate_tree(GitTree(git_repo, resolve_commit(git_repo, rev)))


def base_of(repo: SkillRepo, rev: str = "HEAD") -> dict[str, BaseSkill]:
    git_repo = open_repo(repo.root)
    return base_skills_from_tree(GitTree(git_repo, resolve_commit(git_repo, rev)))


def codes(report: ValidationReport) -> set[tuple[str, str]]:
    """(path, code) of every problem: what most assertions are about."""
    return {(problem.path, problem.code) for problem in report.problems}


def skill_md_of_size(skill_id: str, size: int, **fields: Any) -> str:
    """A valid SKILL.md of exactly `size` bytes (the body is padded)."""
    head = skill_md(skill_id, body="", **fields)
    padding = size - len(head.encode("utf-8")) - 1
    assert padding > 0, "size too small for the frontmatter"
    return head + "x" * padding + "\n"


def symlink(repo: SkillRepo, path: str, target: str) -> None:
    link = repo.root / path
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, link)


def nested_repository(repo: SkillRepo, path: str) -> Path:
    """A git repository inside the work tree: `git add -A` records it as a gitlink (submodule)."""
    inner = repo.root / path
    inner.mkdir(parents=True)
    for args in (
        ("init", "-q"),
        (
            "-c",
            "user.email=t@example.invalid",
            "-c",
            "user.name=T",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ),
    ):
        subprocess.run(["git", "-C", str(inner), *args], check=True, capture_output=True)
    return inner
