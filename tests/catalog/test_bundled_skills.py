"""The skills bundled in this repository (skills/) pass validation and cover the format's features."""

from pathlib import Path

import pytest

from catalog.report import ValidationReport
from catalog.trees import WorkingTree
from catalog.validation import validate_tree
from tests.support.project import PROJECT_DIR


@pytest.fixture(scope="module")
def report() -> ValidationReport:
    return validate_tree(WorkingTree(PROJECT_DIR))


def test_bundled_skills_are_valid(report: ValidationReport) -> None:
    problems = "\n".join(f"{p.path}: [{p.code}] {p.message}" for p in report.problems)
    assert report.ok, f"bundled skills do not validate:\n{problems}"


def test_at_least_six_skills(report: ValidationReport) -> None:
    on_disk = sorted(p.name for p in (PROJECT_DIR / "skills").iterdir() if p.is_dir())
    assert len(report.skills) >= 6
    assert sorted(skill.id for skill in report.skills) == on_disk


def test_at_least_one_zdr_skill(report: ValidationReport) -> None:
    assert any(skill.metadata.required_zdr for skill in report.skills)
    assert any(not skill.metadata.required_zdr for skill in report.skills)


def test_supporting_files_cover_every_folder_kind(report: ValidationReport) -> None:
    paths = [f.path for skill in report.skills for f in skill.files]
    for folder in ("references/", "templates/", "scripts/"):
        assert any(path.startswith(folder) for path in paths), f"no bundled file under {folder}"
    scripts = [path for path in paths if path.startswith("scripts/")]
    assert any(path.endswith((".py", ".sh")) for path in scripts)
    assert any(path.count("/") >= 2 for path in paths), "no supporting file in a nested folder"


def test_frontmatter_features_are_exercised(report: ValidationReport) -> None:
    assert all(skill.metadata.tags for skill in report.skills)
    assert all(skill.metadata.keywords for skill in report.skills)
    assert any(skill.metadata.requires for skill in report.skills)


@pytest.mark.parametrize("skill_dir", sorted((PROJECT_DIR / "skills").iterdir()), ids=lambda p: p.name)
def test_instructions_mention_every_supporting_file(skill_dir: Path, report: ValidationReport) -> None:
    """A listed file nobody is told about is never fetched: the body must point to each one."""
    skill = next(s for s in report.skills if s.id == skill_dir.name)
    assert skill.instructions.strip()
    for f in skill.files:
        assert f.path in skill.instructions, f"{skill.id}: instructions never mention {f.path}"


def test_every_bundled_skill_is_named_by_its_id(report: ValidationReport) -> None:
    """Native skills: the MCP skills extension lists (skills/list) only skills whose name is their id."""
    assert [skill.metadata.name for skill in report.skills] == [skill.id for skill in report.skills]
    assert not [problem for problem in report.problems if problem.code == "not_native_name"]
