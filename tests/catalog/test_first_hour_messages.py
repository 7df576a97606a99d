"""The messages a first-time author meets (issue 16), as both check_skills and publish print
them: each names the file, the value and the fix (docs/reference.md#validation)."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from catalog.registry_dialect import MAX_NAME_CHARS
from tests.catalog.test_check_skills import check
from tests.support.repos import SkillRepo
from tests.support.skillmd import skill_md

SKILL = "skills/demo/SKILL.md"
THREE_NUMBERS = "a version is three numbers MAJOR.MINOR.PATCH such as 1.0.0"


def _publish_problems(repo: SkillRepo) -> list[str]:
    repo.commit()
    with pytest.raises(CommandError) as refused:
        call_command("publish", "HEAD", "--repo", str(repo.root), stdout=StringIO())
    return str(refused.value).splitlines()[1:]


def _both(repo: SkillRepo) -> list[str]:
    """The problem lines of check_skills (working tree), which publish (the commit) must repeat."""
    code, out, _ = check(repo)
    assert code == 1
    lines = out.splitlines()
    assert _publish_problems(repo) == lines
    return lines


@pytest.mark.django_db
def test_an_unquoted_version_number_is_told_to_be_three_numbers(skill_repo: SkillRepo) -> None:
    skill_repo.write(SKILL, skill_md("demo").replace('version: "1.0.0"', "version: 1.0"))

    assert _both(skill_repo) == [
        f"{SKILL}: version 1.0 is a YAML number, not a version; {THREE_NUMBERS}: write three numbers "
        "(version: 1.0.0, which YAML reads as text); quoting 1.0 is not enough"
    ]


@pytest.mark.django_db
def test_a_quoted_two_number_version_is_told_the_three_numbers_to_write(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", version="1.0")

    assert _both(skill_repo) == [
        f"{SKILL}: version '1.0' is not a semantic version; {THREE_NUMBERS}: write version: 1.0.0"
    ]


@pytest.mark.django_db
def test_an_over_long_name_is_told_its_length_and_the_limit(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", name="N" * (MAX_NAME_CHARS + 7))

    assert _both(skill_repo) == [
        f"{SKILL}: name must be one line of 1 to {MAX_NAME_CHARS} characters; "
        f"it has {MAX_NAME_CHARS + 7} (shorten it by 7)"
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("found", ["skill.md", "Skill.md", "SKILL.MD"])
def test_a_skill_md_in_another_case_is_told_to_be_renamed(skill_repo: SkillRepo, found: str) -> None:
    skill_repo.add_skill("other")
    skill_repo.write(f"skills/demo/{found}", skill_md("demo"))

    assert _both(skill_repo) == [
        f"skills/demo/{found}: found {found}; rename it to SKILL.md (in capitals) to make this folder a skill"
    ]
