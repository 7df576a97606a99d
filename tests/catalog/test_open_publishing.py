"""Publishing repositories shaped like the public ones (tests/support/open_repos.py): what is
stored (frontmatter as written, path, omitted files, null versions), what the content hash
covers, and the incremental publish with category folders (moved skills, new categories)."""

import json

import pytest

from catalog.hashing import content_hash, sha256_hex
from catalog.models import SkillVersion, SnapshotSkill
from catalog.publishing import publish
from catalog.storage import metadata_columns, metadata_from_row
from tests.catalog.publish_support import publish_refusal
from tests.catalog.test_reuse import GitReads, reads  # noqa: F401 - the fixture
from tests.support.open_repos import CATALOG, FIXTURES, MIXED, PLUGINS, OpenFixture
from tests.support.repos import SkillRepo

pytestmark = pytest.mark.django_db


def rows(sha: str) -> dict[str, SnapshotSkill]:
    return {
        row.skill_id: row
        for row in SnapshotSkill.objects.filter(snapshot__sha=sha).select_related("skill_version")
    }


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda fixture: fixture.name)
def test_each_fixture_publishes_with_its_paths_versions_and_omitted_files(
    skill_repo: SkillRepo, fixture: OpenFixture
) -> None:
    sha = fixture.build(skill_repo)
    result = publish(skill_repo.root, sha)
    stored = rows(sha)
    assert sorted(stored) == sorted(skill.id for skill in fixture.skills)
    assert result.skill_count == len(fixture.skills)
    for skill in fixture.skills:
        row = stored[skill.id]
        assert row.path == skill.path
        version = row.skill_version
        assert (version.version, version.required_zdr) == (skill.version, skill.required_zdr)
        assert {entry["path"] for entry in row.omitted} == set(skill.omitted)
        for entry in row.omitted:
            assert skill.omitted[entry["path"]] in entry["reason"]
        served = fixture.served(skill)
        files = {f.path: f for f in version.files.all()}
        assert set(files) == set(served)
        assert {path for path, f in files.items() if f.executable} == fixture.executable(skill)
        # The content hash covers SKILL.md and the served files, never what was left out.
        expected = content_hash(
            fixture.raw(skill, "SKILL.md"), ((p, sha256_hex(b)) for p, b in served.items())
        )
        assert version.content_hash == expected
    warned = {line.split(": warning: ")[0] for line in result.warnings}
    assert fixture.strays <= warned


def test_the_frontmatter_is_stored_as_written_in_both_dialects(skill_repo: SkillRepo) -> None:
    sha = MIXED.build(skill_repo)
    publish(skill_repo.root, sha)
    stored = rows(sha)
    ledger = stored["ledger-export"].skill_version.frontmatter
    assert ledger.startswith('{"schema_version":1,"id":"ledger-export","name":"Ledger export"')
    assert json.loads(ledger)["files"] == ["references/columns.md"]
    handbook = json.loads(stored["staff-handbook"].skill_version.frontmatter)
    assert handbook["metadata"] == {"required_zdr": "true", "version": "1.4.0", "author": "hr"}


def test_vendor_keys_are_stored_as_written_dates_as_iso_strings(skill_repo: SkillRepo) -> None:
    sha = PLUGINS.build(skill_repo)
    publish(skill_repo.root, sha)
    front = json.loads(rows(sha)["code-audit"].skill_version.frontmatter)
    assert list(front) == [
        "name",
        "description",
        "argument-hint",
        "user-invocable",
        "disable-model-invocation",
        "model",
        "context",
        "triggers",
        "date",
    ]
    assert (front["user-invocable"], front["triggers"], front["date"]) == (
        False,
        ["audit", "review"],
        "2026-01-15",
    )


def test_the_metadata_of_a_row_reads_back_whole(skill_repo: SkillRepo) -> None:
    sha = MIXED.build(skill_repo)
    publish(skill_repo.root, sha)
    row = SnapshotSkill.objects.filter(snapshot__sha=sha, skill_id="payroll-notes")
    values = row.values_list("path", *metadata_columns("skill_version__")).get()
    meta = metadata_from_row(values[1:], values[0])
    assert (meta.id, meta.version, meta.required_zdr, meta.path) == (
        "payroll-notes",
        "1.0.0",
        True,
        "skills/payroll-notes",
    )


def test_a_binary_file_added_keeps_the_content_but_not_the_omitted_list(skill_repo: SkillRepo) -> None:
    first = CATALOG.build(skill_repo)
    publish(skill_repo.root, first)
    skill_repo.write("skills/design/sketch-notes/photo.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF")
    second = skill_repo.commit("a photo")
    result = publish(skill_repo.root, second)
    before, after = rows(first)["sketch-notes"], rows(second)["sketch-notes"]
    assert before.skill_version_id == after.skill_version_id
    assert (before.omitted, after.omitted) == (
        [],
        [{"path": "photo.jpg", "reason": "binary (it holds a NUL byte)"}],
    )
    assert result.new_skill_versions == 0


def test_unchanged_skills_in_categories_are_reused_unread(skill_repo: SkillRepo, reads: GitReads) -> None:  # noqa: F811
    publish(skill_repo.root, CATALOG.build(skill_repo))
    before = rows(skill_repo.git("rev-parse", "HEAD"))
    skill_repo.write("skills/design/sketch-notes/extra.md", "More.\n")
    sha = skill_repo.commit("one changed skill")
    reads.paths.clear()

    result = publish(skill_repo.root, sha)

    assert (result.skill_count, result.reused_skills, result.new_skill_versions) == (6, 5, 1)
    assert not any(path.startswith("skills/.curated") for path in reads.paths)
    after = rows(sha)
    assert after["poster-kit"].skill_version_id == before["poster-kit"].skill_version_id
    assert after["poster-kit"].omitted == before["poster-kit"].omitted != []
    assert after["poster-kit"].path == "skills/.curated/poster-kit"


def test_a_moved_skill_is_validated_again_at_its_new_path(skill_repo: SkillRepo) -> None:
    publish(skill_repo.root, CATALOG.build(skill_repo))
    skill_repo.git("mv", "skills/design/server-guide", "skills/.system/server-guide")
    sha = skill_repo.commit("moved")

    result = publish(skill_repo.root, sha)

    assert (result.reused_skills, result.new_skill_versions) == (5, 0)  # same content, same row
    assert rows(sha)["server-guide"].path == "skills/.system/server-guide"


def test_a_new_category_and_a_clash_with_a_reused_skill_are_seen(skill_repo: SkillRepo) -> None:

    publish(skill_repo.root, CATALOG.build(skill_repo))
    skill_repo.write("skills/extra/fresh/SKILL.md", "---\nname: fresh\ndescription: New.\n---\nGo.\n")
    result = publish(skill_repo.root, skill_repo.commit("a new category"))
    assert (result.skill_count, result.reused_skills) == (7, 6)

    skill_repo.write(
        "skills/extra/poster-kit/SKILL.md", "---\nname: poster-kit\ndescription: Again.\n---\nGo.\n"
    )
    message = publish_refusal(skill_repo.root, skill_repo.commit("an id used twice"))
    assert "skills/.curated/poster-kit/SKILL.md: id 'poster-kit' is used by the skills at" in message
    assert "skills/extra/poster-kit/SKILL.md: id 'poster-kit' is used by the skills at" in message


def test_a_skill_md_added_above_a_reused_skill_refuses_both(skill_repo: SkillRepo) -> None:
    from catalog.errors import PublishError

    publish(skill_repo.root, CATALOG.build(skill_repo))
    skill_repo.write("skills/design/SKILL.md", "---\nname: design\ndescription: All of it.\n---\nGo.\n")
    with pytest.raises(PublishError, match="inside the skill at skills/design"):
        publish(skill_repo.root, skill_repo.commit("a skill above two skills"))


def test_null_versions_are_stored_as_null(skill_repo: SkillRepo) -> None:
    publish(skill_repo.root, CATALOG.build(skill_repo))
    assert SkillVersion.objects.filter(skill_id="house-tone").values_list("version", flat=True).get() is None
