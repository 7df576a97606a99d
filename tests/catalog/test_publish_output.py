"""What `publish` tells a person (docs/reference.md#publish): the human lines on stdout and
no JSON log line among them unless -v 2 asks; "Already active" says when the working tree
holds skill changes that only a commit would publish."""

import json
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import git
import pytest
from django.core.management import call_command

from catalog.uncommitted import MAX_SHOWN_PATHS
from tests.catalog.publish_support import two_skills
from tests.support.databases import TempDatabase
from tests.support.repos import SkillRepo


def _json_lines(text: str) -> list[dict[str, object]]:
    found = []
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            found.append(entry)
    return found


@pytest.fixture
def database(tmp_path: Path) -> Iterator[TempDatabase]:
    with TempDatabase(tmp_path / "database") as temp:
        temp.manage_ok("migrate", "--noinput", "-v", "0")
        yield temp


def test_publish_prints_human_lines_on_stdout_and_no_json_log_line(
    database: TempDatabase, skill_repo: SkillRepo
) -> None:
    sha = two_skills(skill_repo)

    done = database.manage(
        "publish", "HEAD", "--repo", str(skill_repo.root), LOG_FORMAT="json", LOG_LEVEL="INFO"
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Published {sha}: 2 skills (")
    assert _json_lines(done.stderr) == [] and _json_lines(done.stdout) == []
    assert done.stderr == ""


@pytest.mark.parametrize(("flags", "env"), [(["-v", "2"], {}), ([], {"LOG_LEVEL": "DEBUG"})])
def test_publish_writes_its_json_log_line_when_asked(
    database: TempDatabase, skill_repo: SkillRepo, flags: list[str], env: dict[str, str]
) -> None:
    sha = two_skills(skill_repo)

    done = database.manage(
        "publish", "HEAD", "--repo", str(skill_repo.root), *flags, LOG_FORMAT="json", **env
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Published {sha}: ")
    logged = [entry for entry in _json_lines(done.stderr) if entry["logger"] == "catalog.publishing"]
    assert len(logged) == 1 and sha in str(logged[0]["message"])


def _publish(repo: Path | str, rev: str = "HEAD") -> str:
    out = StringIO()
    call_command("publish", rev, "--repo", str(repo), stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_already_active_names_the_uncommitted_skill_changes_a_commit_would_publish(
    skill_repo: SkillRepo,
) -> None:
    sha = two_skills(skill_repo)
    _publish(skill_repo.root)
    skill_repo.add_skill("gamma")  # new, untracked
    alpha = skill_repo.root / "skills/alpha/SKILL.md"
    skill_repo.write("skills/alpha/SKILL.md", alpha.read_text() + "More.\n")  # modified
    skill_repo.remove("skills/beta/SKILL.md")  # deleted
    skill_repo.write("notes.txt", "outside skills_dir: not a skill change\n")

    lines = _publish(skill_repo.root).splitlines()

    assert lines[0] == f"Already active: {sha}"
    assert lines[1] == (
        "note: the working tree has 3 uncommitted change(s) under skills/ (skills/alpha/SKILL.md, "
        "skills/beta/SKILL.md, skills/gamma/SKILL.md); publish reads commits only: commit them, "
        "then publish the new commit"
    )
    assert len(lines) == 2


@pytest.mark.django_db
def test_already_active_lists_a_bounded_number_of_uncommitted_paths(skill_repo: SkillRepo) -> None:
    two_skills(skill_repo)
    _publish(skill_repo.root)
    for number in range(MAX_SHOWN_PATHS + 3):
        skill_repo.add_skill(f"extra-{number}")

    note = _publish(skill_repo.root).splitlines()[1]

    assert f"has {MAX_SHOWN_PATHS + 3} uncommitted change(s)" in note
    assert note.count("SKILL.md") == MAX_SHOWN_PATHS and "and 3 more" in note


@pytest.mark.django_db
def test_already_active_says_nothing_more_for_a_clean_tree_or_an_older_commit(skill_repo: SkillRepo) -> None:
    old = two_skills(skill_repo)
    assert _publish(skill_repo.root).startswith("Published")
    assert _publish(skill_repo.root) == f"Already active: {old}\n"

    skill_repo.add_skill("gamma")
    # HEAD is not the active commit here: the working tree is not what `old` lacks.
    skill_repo.commit()
    skill_repo.add_skill("delta")
    assert _publish(skill_repo.root, old) == f"Already active: {old}\n"


@pytest.mark.django_db
def test_already_active_from_a_bare_repository_says_nothing_more(
    skill_repo: SkillRepo, tmp_path: Path
) -> None:
    sha = two_skills(skill_repo)
    bare = tmp_path / "bare.git"
    git.Repo.clone_from(str(skill_repo.root), str(bare), bare=True).close()
    _publish(bare)
    skill_repo.add_skill("gamma")  # uncommitted in the other clone, which is not the one published

    assert _publish(bare) == f"Already active: {sha}\n"
