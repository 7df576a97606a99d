"""The one path rule (catalog.paths): what validation refuses to publish is exactly what the
retrieval tools call INVALID_PATH (docs/reference.md#skill-format, #tools)."""

import pytest

from catalog.paths import is_well_formed_path, path_problem
from mcpapi.tools import is_well_formed_path as tools_accept
from tests.catalog.tree_support import codes, validate
from tests.support.repos import SkillRepo

MALFORMED = ["/a", "a/../b", "a/./b", "a\\b", "a%b", "a\0b", "", "a//b", "a/", "..", "."]
WELL_FORMED = ["references/api/auth.md", "a..b/c.md", "references/.notes.md", "SKILL.md"]


def test_path_problem_accepts_a_nested_relative_path() -> None:
    assert path_problem("references/api/auth.md") is None


@pytest.mark.parametrize("path", ["/a", "a/../b", "a/./b", "a\\b", "a%b", "a\0b", "", "a//b"])
def test_path_problem_rejects_what_retrieval_would_call_invalid(path: str) -> None:
    assert path_problem(path) is not None


@pytest.mark.parametrize(
    ("path", "why"),
    [("references//a.md", "has an empty segment"), ("references/a.md/", "has an empty segment")],
)
def test_an_empty_segment_or_a_trailing_slash_is_malformed(path: str, why: str) -> None:
    assert (path_problem(path) or "").startswith(why)
    assert not is_well_formed_path(path)


@pytest.mark.parametrize("path", MALFORMED + WELL_FORMED)
def test_validation_and_the_tools_refuse_the_same_paths(path: str) -> None:
    assert is_well_formed_path(path) is (path not in MALFORMED)
    assert tools_accept(path) is is_well_formed_path(path)


def test_a_listed_path_with_an_empty_segment_is_not_publishable(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", files_list=["references//a.md"])
    report = validate(skill_repo)
    assert codes(report) == {("skills/demo/SKILL.md", "invalid_path")}
    assert "has an empty segment ('//' or a trailing '/')" in report.problems[0].message
