"""catalog.discovery: which directories are skills, in both dialects (category folders, depth,
nested skills, ids used twice, strays)."""

import pytest

from catalog import discovery
from catalog.config import config_from_dict
from catalog.discovery import list_skills
from catalog.rules import Rules
from catalog.trees import WorkingTree
from tests.catalog.tree_support import (
    codes,
    nested_repository,
    symlink,
    valid_paths,
    validate,
    validate_commit,
)
from tests.support.repos import DEFAULT_CONFIG, SkillRepo
from tests.support.skillmd import skill_md

RULES = Rules(config_from_dict(DEFAULT_CONFIG))


def open_md(name: str, **extra: str) -> str:
    lines = "".join(f"{key}: {value}\n" for key, value in extra.items())
    return f"---\nname: {name}\ndescription: The {name} skill.\n{lines}---\nSteps.\n"


def paths(repo: SkillRepo) -> list[str]:
    return [skill_dir.path for skill_dir in list_skills(WorkingTree(repo.root), RULES).skill_dirs]


def test_skills_are_found_in_category_folders_of_any_name(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/flat/SKILL.md", open_md("flat"))
    skill_repo.write("skills/.curated/pdf/SKILL.md", open_md("pdf"))
    skill_repo.write("skills/.system/tone/SKILL.md", open_md("tone"))
    skill_repo.write("skills/claude.ai/deploy/SKILL.md", open_md("deploy"))
    skill_repo.write("skills/(beta)/x/early/SKILL.md", open_md("early"))
    assert paths(skill_repo) == [
        "skills/(beta)/x/early",
        "skills/.curated/pdf",
        "skills/.system/tone",
        "skills/claude.ai/deploy",
        "skills/flat",
    ]
    report = validate(skill_repo)
    assert report.ok, report.problems
    assert {skill.metadata.path for skill in report.skills} == set(paths(skill_repo))


def test_a_registry_skill_may_sit_in_a_category_too(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/team/demo/SKILL.md", skill_md("demo"))
    assert valid_paths(skill_repo) == ["skills/team/demo"]


def test_skills_sit_at_most_four_folders_down(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/a/b/c/four/SKILL.md", open_md("four"))
    skill_repo.write("skills/a/b/c/d/five/SKILL.md", open_md("five"))
    report = validate(skill_repo)
    assert [skill.id for skill in report.skills] == ["four"]
    assert codes(report) == {("skills/a/b/c/d/five/SKILL.md", "skill_too_deep")}
    assert "5 folders below skills/" in report.problems[0].message


def test_everything_below_a_skill_belongs_to_it_at_any_depth(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/deep/SKILL.md", open_md("deep"))
    skill_repo.write("skills/deep/scripts/a/b/c/d/e/f/schema.xsd", "<x/>\n")
    [skill_dir] = list_skills(WorkingTree(skill_repo.root), RULES).skill_dirs
    assert [rel for rel, _ in skill_dir.entries] == ["SKILL.md", "scripts/a/b/c/d/e/f/schema.xsd"]


def test_a_skill_inside_a_skill_refuses_the_outer_one(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/outer/SKILL.md", open_md("outer"))
    skill_repo.write("skills/outer/examples/inner/SKILL.md", open_md("inner"))
    report = validate(skill_repo)
    assert report.skills == []
    assert codes(report) == {("skills/outer/examples/inner/SKILL.md", "nested_skill")}
    assert "inside the skill at skills/outer" in report.problems[0].message


def test_two_skills_with_one_id_are_both_refused_each_naming_both(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/a/notes/SKILL.md", open_md("notes"))
    skill_repo.write("skills/b/notes/SKILL.md", open_md("notes"))
    skill_repo.write("skills/other/SKILL.md", open_md("other"))
    report = validate(skill_repo)
    assert [skill.id for skill in report.skills] == ["other"]
    assert codes(report) == {
        ("skills/a/notes/SKILL.md", "duplicate_id"),
        ("skills/b/notes/SKILL.md", "duplicate_id"),
    }
    for problem in report.problems:
        assert "skills/a/notes" in problem.message and "skills/b/notes" in problem.message


def test_an_id_used_by_both_dialects_is_refused_in_both(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/x/demo/SKILL.md", skill_md("demo"))
    skill_repo.write("skills/y/demo/SKILL.md", open_md("demo"))
    assert {code for _, code in codes(validate(skill_repo))} == {"duplicate_id"}


def test_strays_are_warnings_one_per_file_or_per_folder_without_a_skill(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/README.md", "# Skills\n")
    skill_repo.write("skills/bundle.zip", b"PK\x03\x04\0\0")
    skill_repo.write("skills/kit/.claude-plugin/plugin.json", "{}\n")
    skill_repo.write("skills/kit/evals/a/case.yaml", "a: 1\n")
    skill_repo.write("skills/kit/evals/b.json", "{}\n")
    skill_repo.write("skills/kit/README.md", "# Kit\n")
    skill_repo.write("skills/kit/skills/one/SKILL.md", open_md("one"))
    report = validate(skill_repo)
    assert report.ok and [skill.id for skill in report.skills] == ["one"]
    assert {(p.path, p.code, p.severity) for p in report.problems} == {
        ("skills/README.md", "stray_entry", "warning"),
        ("skills/bundle.zip", "stray_entry", "warning"),
        ("skills/kit/.claude-plugin", "stray_entry", "warning"),
        ("skills/kit/evals", "stray_entry", "warning"),
        ("skills/kit/README.md", "stray_entry", "warning"),
    }
    evals = next(p for p in report.problems if p.path == "skills/kit/evals")
    assert "2 entries" in evals.message


def test_a_skill_md_directly_in_skills_dir_is_a_stray(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/SKILL.md", open_md("skills"))
    report = validate(skill_repo)
    assert report.skills == [] and codes(report) == {("skills/SKILL.md", "stray_entry")} and report.ok


def test_symlinks_and_submodules_outside_skills_are_strays_never_followed(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/real/SKILL.md", open_md("real"))
    symlink(skill_repo, "skills/alias", "real")
    symlink(skill_repo, "skills/cat/outside", "../../elsewhere")
    nested_repository(skill_repo, "skills/vendored")
    skill_repo.commit()
    for report in (validate(skill_repo), validate_commit(skill_repo)):
        assert [skill.id for skill in report.skills] == ["real"]
        assert codes(report) == {
            ("skills/alias", "stray_entry"),
            ("skills/cat", "stray_entry"),
            ("skills/vendored", "stray_entry"),
        }
        assert report.ok


@pytest.mark.parametrize("found", ["skill.md", "Skill.md", "SKILL.MD"])
def test_a_skill_md_in_another_case_is_an_error_saying_how_to_fix_it(
    skill_repo: SkillRepo, found: str
) -> None:
    skill_repo.write(f"skills/demo/{found}", open_md("demo"))
    skill_repo.write("skills/demo/notes.md", "notes\n")
    report = validate(skill_repo)
    assert codes(report) == {(f"skills/demo/{found}", "missing_skill_md")} and not report.ok
    assert report.problems[0].message.startswith(f"found {found}; rename it to SKILL.md")


def test_a_lowercase_skill_md_beside_skill_md_is_just_a_file(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/demo/SKILL.md", open_md("demo"))
    skill_repo.write("skills/demo/skill.md", "an old copy\n")
    report = validate(skill_repo)
    assert report.ok and [f.path for f in report.skills[0].files] == ["skill.md"]


def test_a_dot_named_skills_dir_is_walked(make_repo) -> None:
    repo = make_repo(dict(DEFAULT_CONFIG, skills_dir=".agents"))
    repo.write(".agents/.team/demo/SKILL.md", open_md("demo"))
    assert valid_paths(repo) == [".agents/.team/demo"]


# --- known_valid with categories ------------------------------------------------------------------


def test_known_valid_skills_in_categories_are_skipped(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/a/one/SKILL.md", open_md("one"))
    skill_repo.write("skills/a/two/SKILL.md", open_md("two"))
    skill_repo.write("skills/b/three/SKILL.md", open_md("three"))
    listing = list_skills(WorkingTree(skill_repo.root), RULES, known_valid={"skills/a/one"})
    assert [skill_dir.path for skill_dir in listing.skill_dirs] == ["skills/a/two", "skills/b/three"]
    assert listing.known_valid == ["skills/a/one"]


@pytest.mark.parametrize("list_each_max", [0, 64])
def test_a_known_valid_skill_that_became_nested_or_a_duplicate_is_listed_whole(
    skill_repo: SkillRepo, monkeypatch: pytest.MonkeyPatch, list_each_max: int
) -> None:
    monkeypatch.setattr(discovery, "_LIST_EACH_MAX", list_each_max)
    skill_repo.write("skills/a/SKILL.md", open_md("a"))
    skill_repo.write("skills/a/one/SKILL.md", open_md("one"))
    skill_repo.write("skills/b/two/SKILL.md", open_md("two"))
    skill_repo.write("skills/c/two/SKILL.md", open_md("two"))
    full = validate(skill_repo)
    for known in ({"skills/a/one"}, {"skills/b/two"}):
        listing = list_skills(WorkingTree(skill_repo.root), RULES, known_valid=known)
        assert listing.known_valid == []
    report = validate_commit_known(skill_repo, {"skills/a/one", "skills/b/two"})
    assert report.problems == full.problems and report.known_valid == []


def validate_commit_known(repo: SkillRepo, known: set[str]):
    from catalog.validation import validate_tree

    return validate_tree(WorkingTree(repo.root), known_valid=known)
