"""catalog.rules on their own: each rule answers for one entry, file or skill, under one config."""

import pytest

from catalog.config import config_from_dict
from catalog.report import WARNING
from catalog.rules import Rules, kind_problem, media_type_for
from catalog.skillfile import parse_skill_file
from catalog.trees import EntryKind
from tests.catalog.tree_support import MD
from tests.support.repos import config_with_limits
from tests.support.skillmd import skill_md


def rules(**limits: int) -> Rules:
    return Rules(config_from_dict(config_with_limits(**limits)))


def codes_of(problems: list) -> list[str]:
    return sorted(problem.code for problem in problems)


def test_a_listed_file_in_a_support_folder_with_an_allowed_extension_passes() -> None:
    assert rules().placement_problems("references/a.md", "p", frozenset({"references/a.md"})) == []


def test_placement_names_every_problem_of_one_file() -> None:
    problems = rules().placement_problems("notes.exe", "skills/demo/notes.exe", frozenset())
    assert codes_of(problems) == ["disallowed_extension", "disallowed_location", "unlisted_file"]
    assert {problem.path for problem in problems} == {"skills/demo/notes.exe"}


def test_script_extensions_are_allowed_only_under_scripts() -> None:
    assert rules().placement_problems("scripts/run.sh", "p", None) == []
    assert codes_of(rules().placement_problems("references/run.sh", "p", None)) == ["disallowed_extension"]


def test_an_unknown_listing_reports_no_unlisted_file() -> None:
    assert rules().placement_problems("references/a.md", "p", None) == []


def test_a_malformed_path_is_invalid_path() -> None:
    assert "invalid_path" in codes_of(rules().placement_problems("references//a.md", "p", None))


def test_the_skill_wide_limits_are_inclusive() -> None:
    at_limit = rules(max_files_per_skill=2, max_skill_total_bytes=100)
    assert at_limit.budget_problems(MD, 2, 100) == []
    assert codes_of(at_limit.budget_problems(MD, 3, 101)) == ["skill_too_large", "too_many_files"]


def test_max_skills_is_inclusive() -> None:
    assert rules(max_skills=2).skill_count_problem(2) is None
    problem = rules(max_skills=2).skill_count_problem(3)
    assert problem is not None and (problem.path, problem.code) == ("skills", "too_many_skills")


def test_kind_problem_names_the_entry() -> None:
    assert kind_problem("skills/a/b", EntryKind.SYMLINK).path == "skills/a/b"


def test_skill_md_problems_include_a_directory_name_mismatch() -> None:
    parsed = parse_skill_file(skill_md("other").encode())
    assert codes_of(rules().skill_md_problems(MD, parsed, "demo")) == ["id_mismatch"]
    assert rules().skill_md_problems(MD, parsed, "other") == []


def test_a_registry_skill_named_by_a_title_is_warned_it_is_not_native() -> None:
    parsed = parse_skill_file(skill_md("demo", name="Demo skill").encode())
    [problem] = rules().skill_md_problems(MD, parsed, "demo")
    assert (problem.path, problem.code, problem.severity) == (MD, "not_native_name", WARNING)
    assert "'Demo skill'" in problem.message and "set name: demo" in problem.message


def test_a_skill_named_by_its_id_is_native_in_both_dialects() -> None:
    registry = parse_skill_file(skill_md("demo", name="demo").encode())
    assert rules().skill_md_problems(MD, registry, "demo") == []
    open_dialect = parse_skill_file(b"---\nname: demo\ndescription: Do it.\n---\nSteps.\n")
    assert rules().skill_md_problems(MD, open_dialect, "demo") == []


def test_the_listing_is_unknown_when_skill_md_is_unusable() -> None:
    assert Rules.listed_files(None) is None
    parsed = parse_skill_file(skill_md("demo", files="references/a.md").encode())
    assert Rules.listed_files(parsed) is None
    parsed = parse_skill_file(skill_md("demo", files=["references/a.md"]).encode())
    assert Rules.listed_files(parsed) == frozenset({"references/a.md"})


def test_missing_listed_files_are_named_on_skill_md() -> None:
    problems = Rules.missing_listed_files(MD, ["references/a.md", "references/b.md"], {"references/a.md"})
    assert [(p.path, p.code) for p in problems] == [(MD, "listed_file_missing")]
    assert "'references/b.md'" in problems[0].message


def test_a_file_is_served_as_text_and_marked_executable_only_under_scripts() -> None:
    script = Rules.validated_file("scripts/run.py", "skills/demo/scripts/run.py", b"print(1)\n")
    reference = Rules.validated_file("references/a.md", "skills/demo/references/a.md", b"# A\n")
    assert (script.media_type, script.executable, script.size) == ("text/x-python", True, 9)
    assert (reference.media_type, reference.executable) == ("text/markdown", False)
    assert script.source == "skills/demo/scripts/run.py"


@pytest.mark.parametrize(
    ("path", "media_type"),
    [
        ("references/a.md", "text/markdown"),
        ("references/a.txt", "text/plain"),
        ("scripts/a.sh", "text/x-shellscript"),
        ("scripts/a.py", "text/x-python"),
        ("scripts/a.js", "text/javascript"),
        ("scripts/a.ts", "text/typescript"),
        ("scripts/a.rb", "text/x-ruby"),
        ("scripts/A.MD", "text/markdown"),
        ("references/a.csv", "text/csv"),
    ],
)
def test_media_type_follows_the_extension(path: str, media_type: str) -> None:
    assert media_type_for(path) == media_type
