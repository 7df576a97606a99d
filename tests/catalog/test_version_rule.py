"""The version rule against a base (docs/reference.md#validation): changed content needs a
greater version; and how the base's skills are read from a tree."""

import pytest

from catalog.report import BaseSkill
from catalog.trees import WorkingTree
from catalog.validation import base_skills_from_tree
from tests.catalog.tree_support import MD, base_of, codes, validate
from tests.support.repos import SkillRepo

# --- the version rule against a base ----------------------------------------------------


def test_it_accepts_a_new_skill_that_is_not_in_the_base(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("old")
    skill_repo.commit()
    skill_repo.add_skill("new", version="0.1.0")
    assert validate(skill_repo, base_of(skill_repo)).ok


def test_it_accepts_an_unchanged_skill(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", files={"references/a.md": "a\n"})
    skill_repo.commit()
    assert validate(skill_repo, base_of(skill_repo)).ok


def test_it_rejects_changed_instructions_without_a_version_bump(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", "Old steps.\n")
    skill_repo.commit()
    skill_repo.add_skill("demo", "New steps.\n")
    report = validate(skill_repo, base_of(skill_repo))
    assert codes(report) == {(MD, "version_not_bumped")}
    assert report.problems[0].message == (
        "content changed since the base revision but version 1.0.0 is not greater than 1.0.0; "
        "bump it (e.g. to 1.0.1)"
    )
    assert report.skills == []


def test_it_rejects_a_changed_supporting_file_without_a_version_bump(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", files={"references/a.md": "one\n"})
    skill_repo.commit()
    skill_repo.write("skills/demo/references/a.md", "two\n")
    assert codes(validate(skill_repo, base_of(skill_repo))) == {(MD, "version_not_bumped")}


def test_it_rejects_an_added_supporting_file_without_a_version_bump(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo")
    skill_repo.commit()
    skill_repo.add_skill("demo", files={"references/a.md": "new\n"})
    assert codes(validate(skill_repo, base_of(skill_repo))) == {(MD, "version_not_bumped")}


@pytest.mark.parametrize(
    ("old", "new"),
    [("1.0.0", "1.0.1"), ("1.0.0", "2.0.0"), ("1.0.0-rc.1", "1.0.0"), ("1.0.0-alpha", "1.0.0-beta")],
)
def test_it_accepts_changed_content_with_a_greater_version(skill_repo: SkillRepo, old: str, new: str) -> None:
    skill_repo.add_skill("demo", "Old steps.\n", version=old)
    skill_repo.commit()
    skill_repo.add_skill("demo", "New steps.\n", version=new)
    report = validate(skill_repo, base_of(skill_repo))
    assert report.ok, report.problems


def test_it_accepts_a_pure_version_bump(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo")
    skill_repo.commit()
    skill_repo.add_skill("demo", version="1.0.1")
    assert validate(skill_repo, base_of(skill_repo)).ok


@pytest.mark.parametrize(("old", "new"), [("1.0.1", "1.0.0"), ("2.0.0", "1.9.9"), ("1.0.0", "1.0.0-rc.1")])
def test_it_rejects_a_version_decrease(skill_repo: SkillRepo, old: str, new: str) -> None:
    skill_repo.add_skill("demo", version=old)
    skill_repo.commit()
    skill_repo.add_skill("demo", version=new)
    report = validate(skill_repo, base_of(skill_repo))
    assert codes(report) == {(MD, "version_decreased")}
    assert report.problems[0].message == (
        f"version {new} is lower than {old} in the base revision; versions never decrease"
    )


def test_it_treats_build_metadata_as_no_bump(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", "Old.\n", version="1.0.0+build.1")
    skill_repo.commit()
    skill_repo.add_skill("demo", "New.\n", version="1.0.0+build.2")
    assert codes(validate(skill_repo, base_of(skill_repo))) == {(MD, "version_not_bumped")}


def test_it_applies_no_version_rule_without_a_base(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", version="2.0.0")
    skill_repo.commit()
    skill_repo.add_skill("demo", "Changed.\n", version="1.0.0")
    assert validate(skill_repo).ok


def test_it_compares_against_a_base_mapping_from_any_source(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", version="1.0.0")
    report = validate(skill_repo, {"demo": BaseSkill(content_hash="0" * 64, version="1.0.0")})
    assert codes(report) == {(MD, "version_not_bumped")}


# --- base_skills_from_tree --------------------------------------------------------------


def test_base_skills_carry_the_hash_and_version_of_each_skill(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", files={"references/a.md": "a\n"}, version="1.2.3")
    skill_repo.add_skill("other")
    skill_repo.commit()
    report = validate(skill_repo)
    base = base_of(skill_repo)
    assert base == {
        skill.id: BaseSkill(skill.content_hash, skill.metadata.version) for skill in report.skills
    }
    assert base["demo"].version == "1.2.3"


def test_base_skills_include_a_skill_with_other_problems(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", files={"references/a.md": "a\n"}, files_list=[], version="1.2.3")
    skill_repo.commit()
    assert base_of(skill_repo)["demo"].version == "1.2.3"


def test_base_skills_skip_a_skill_whose_frontmatter_does_not_parse(skill_repo: SkillRepo) -> None:
    skill_repo.write(MD, "no frontmatter\n")
    skill_repo.commit()
    assert base_of(skill_repo) == {}


def test_base_skills_are_read_even_without_a_config(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo")
    skill_repo.remove("registry.config.json")
    skill_repo.commit()
    assert set(base_of(skill_repo)) == {"demo"}


def test_base_skills_of_a_working_tree(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo")
    assert set(base_skills_from_tree(WorkingTree(skill_repo.root))) == {"demo"}
