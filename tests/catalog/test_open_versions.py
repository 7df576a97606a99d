"""Versions in the open dialect (docs/reference.md#validation): optional; without one the
content hash identifies the content and no bump is required; once given, a version never
disappears or decreases. The registry dialect's rule is unchanged (tests/catalog/test_validation.py)."""

import pytest

from tests.catalog.tree_support import MD, base_of, codes, validate
from tests.support.repos import SkillRepo
from tests.support.skillmd import skill_md


def open_md(body: str = "Steps.\n", **extra: str) -> str:
    lines = "".join(f"{key}: {value}\n" for key, value in extra.items())
    return f"---\nname: demo\ndescription: The demo skill.\n{lines}---\n{body}"


def change(repo: SkillRepo, text: str) -> set[tuple[str, str]]:
    """Commit the current SKILL.md as the base, write `text`, and validate against the base:
    the errors found."""
    repo.commit()
    base = base_of(repo)
    repo.write(MD, text)
    return {(problem.path, problem.code) for problem in validate(repo, base).errors}


def test_without_a_version_content_changes_freely(skill_repo: SkillRepo) -> None:
    skill_repo.write(MD, open_md())
    assert change(skill_repo, open_md("Other steps.\n")) == set()
    base = base_of(skill_repo)
    assert base["demo"].version is None


def test_a_first_version_may_be_given_at_any_time(skill_repo: SkillRepo) -> None:
    skill_repo.write(MD, open_md())
    assert change(skill_repo, open_md(version='"0.1.0"')) == set()


@pytest.mark.parametrize(
    "unversioned",
    [open_md("New steps.\n"), open_md("New steps.\n", metadata='{version: "1.0"}')],
    ids=["key removed", "metadata.version not semver"],
)
def test_a_version_once_given_must_not_disappear(skill_repo: SkillRepo, unversioned: str) -> None:
    skill_repo.write(MD, open_md(version='"1.2.0"'))
    assert change(skill_repo, unversioned) == {(MD, "version_removed")}


def test_a_metadata_version_is_a_version_like_any_other(skill_repo: SkillRepo) -> None:
    skill_repo.write(MD, open_md(metadata='{version: "1.2.0"}'))
    assert change(skill_repo, open_md("More.\n", metadata='{version: "1.2.0"}')) == {
        (MD, "version_not_bumped")
    }
    assert change(skill_repo, open_md("More.\n", metadata='{version: "1.1.0"}')) == {
        (MD, "version_decreased")
    }
    assert change(skill_repo, open_md("More.\n", version='"1.2.1"')) == set()


@pytest.mark.parametrize(("new", "code"), [("1.2.0", "version_not_bumped"), ("1.1.9", "version_decreased")])
def test_a_given_version_follows_the_bump_rule(skill_repo: SkillRepo, new: str, code: str) -> None:
    skill_repo.write(MD, open_md(version='"1.2.0"'))
    assert change(skill_repo, open_md("Changed.\n", version=f'"{new}"')) == {(MD, code)}


def test_a_skill_moved_between_dialects_keeps_its_version_history(skill_repo: SkillRepo) -> None:
    skill_repo.write(MD, skill_md("demo", version="2.0.0"))
    assert change(skill_repo, open_md(version='"2.0.0"')) == {(MD, "version_not_bumped")}
    assert change(skill_repo, open_md()) == {(MD, "version_removed")}
    assert change(skill_repo, open_md(version='"2.1.0"')) == set()


def test_a_skill_moved_to_a_category_keeps_its_version_history(skill_repo: SkillRepo) -> None:
    skill_repo.write(MD, open_md(version='"1.0.0"'))
    skill_repo.commit()
    base = base_of(skill_repo)
    skill_repo.remove("skills/demo")
    skill_repo.write("skills/team/demo/SKILL.md", open_md())
    assert codes(validate(skill_repo, base)) == {("skills/team/demo/SKILL.md", "version_removed")}


@pytest.mark.django_db(transaction=True)
def test_publish_refuses_a_version_that_disappears(skill_repo: SkillRepo) -> None:
    from catalog.errors import PublishError
    from catalog.publishing import publish

    skill_repo.write(MD, open_md(version='"1.0.0"'))
    publish(skill_repo.root, skill_repo.commit())
    skill_repo.write(MD, open_md("Steps, rewritten.\n"))
    with pytest.raises(PublishError, match="a version once given must not disappear"):
        publish(skill_repo.root, skill_repo.commit())
