"""The standard registry most tests serve: what each skill is for is in its name.

    alpha       a reference (multi-byte text) and a script; tags review, docs; keyword diff
    beta        tag git
    gamma       tags git, release; its body mentions review
    secret-ops  required_zdr: only cleared callers ever see it; tags security, review

A suite that needs more derives it explicitly: add_standard_skills(repo, extra_files=...)
adds files to a skill, and anything else is added to the repository afterwards.
"""

from collections.abc import Mapping
from pathlib import Path

from tests.support.repos import SkillRepo

GUIDE = "# Guide\n\nRead me first: ünïcödé ✓ 🎉\n"
SCRIPT = "#!/bin/sh\necho 'hello from a script the registry never runs'\n"
RUNBOOK = "# Runbook\n"
ZDR_ID = "secret-ops"


def add_standard_skills(repo: SkillRepo, extra_files: Mapping[str, Mapping[str, str]] | None = None) -> None:
    """Write the standard skills into `repo` (not committed); `extra_files`: skill id ->
    {path: text} of more supporting files, listed in that skill's `files`."""
    extra = extra_files or {}

    def files(skill_id: str, own: Mapping[str, str]) -> dict[str, str | bytes]:
        return {**own, **extra.get(skill_id, {})}

    repo.add_skill(
        "alpha",
        body="Alpha steps: review the diff.\n",
        files=files("alpha", {"references/guide.md": GUIDE, "scripts/run.sh": SCRIPT}),
        name="Alpha",
        description="Review pull requests carefully.",
        tags=["review", "docs"],
        keywords=["diff"],
    )
    repo.add_skill(
        "beta",
        body="Beta steps.\n",
        files=files("beta", {}),
        name="Beta",
        description="Write commit messages.",
        tags=["git"],
    )
    repo.add_skill(
        "gamma",
        body="Gamma steps mention review once.\n",
        files=files("gamma", {}),
        name="Gamma",
        description="Plan releases.",
        tags=["git", "release"],
    )
    repo.add_skill(
        ZDR_ID,
        body="Secret incident steps.\n",
        files=files(ZDR_ID, {"references/runbook.md": RUNBOOK}),
        name="Secret Ops",
        description="Respond to a security incident in review.",
        tags=["security", "review"],
        required_zdr=True,
    )


def build_standard_repo(root: Path) -> SkillRepo:
    """A new repository at `root` holding the standard skills, committed on main."""
    repo = SkillRepo(root)
    add_standard_skills(repo)
    repo.commit("standard skills")
    return repo
