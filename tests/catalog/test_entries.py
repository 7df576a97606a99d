"""catalog.entries: what a snapshot's index holds, as compact as it can (docs/benchmarks.md,
"Memory, session 4"), with the same answers: instructions packed, small manifests scanned,
one dict by id for both clearances' views with the hidden skills masked."""

import dataclasses
from datetime import UTC, datetime

import pytest

from catalog.entries import FILES_SCANNED, FileEntry, SkillEntry, SnapshotIndex, SnapshotRef
from tests.catalog.search_support import skill

REF = SnapshotRef("a" * 40, datetime(2026, 1, 1, tzinfo=UTC))


def with_files(count: int) -> SkillEntry:
    files = tuple(
        FileEntry(f"references/{number:03}.md", number, "2" * 64, "text/markdown", False)
        for number in range(count)
    )
    return dataclasses.replace(skill("alpha"), files=files, instructions="Steps.\n")


@pytest.mark.parametrize(
    "body",
    [
        "",
        "Steps.\n",
        "An em dash \u2014 and \U0001f680.\n" * 500,
        "a lone surrogate \udc80 kept\n",
        "x" * 100_000,
    ],
)
def test_instructions_read_back_exactly(body: str) -> None:
    assert dataclasses.replace(skill("alpha"), instructions=body).instructions == body


def test_instructions_are_kept_packed() -> None:
    body = "## Deploy\n\nRun the migrations, then roll back if the checks fail.\n" * 100

    entry = dataclasses.replace(skill("alpha"), instructions=body)

    assert len(entry._instructions_packed) < len(body.encode()) // 10


def test_two_entries_of_the_same_skill_are_equal() -> None:
    body = "Steps \u2014 one, two.\n" * 50

    assert dataclasses.replace(skill("alpha"), instructions=body) == dataclasses.replace(
        skill("alpha"), instructions=body
    )
    assert dataclasses.replace(skill("alpha"), instructions=body) != dataclasses.replace(
        skill("alpha"), instructions=body + "More.\n"
    )


@pytest.mark.parametrize("count", [0, 1, FILES_SCANNED, FILES_SCANNED + 1, 40])
def test_every_listed_file_is_found_by_exactly_its_path(count: int) -> None:
    entry = with_files(count)

    for listed in entry.files:
        assert entry.file(listed.path) is listed
    assert entry.file("references/missing.md") is None
    assert entry.file("references/000.MD") is None  # no normalisation
    assert entry.file("SKILL.md") is None


def test_only_a_manifest_past_the_scanned_size_keeps_a_dict() -> None:
    assert with_files(FILES_SCANNED)._files_by_path is None
    assert with_files(FILES_SCANNED + 1)._files_by_path is not None


def snapshot() -> SnapshotIndex:
    return SnapshotIndex(
        REF,
        config=None,  # type: ignore[arg-type]
        skills=[
            skill("beta"),
            skill("zeta", required_zdr=True),
            skill("alpha"),
            skill("omega", required_zdr=True),
        ],
    )


def test_an_uncleared_view_holds_no_zdr_skill_not_even_as_a_count() -> None:
    uncleared = snapshot().visible(False)

    assert [found.id for found in uncleared.skills] == ["alpha", "beta"]
    assert len(uncleared) == 2
    assert uncleared.get("zeta") is None and uncleared.get("omega") is None
    assert uncleared.get("alpha") is not None


def test_a_cleared_view_holds_every_skill() -> None:
    cleared = snapshot().visible(True)

    assert [found.id for found in cleared.skills] == ["alpha", "beta", "omega", "zeta"]
    assert len(cleared) == 4
    assert all(cleared.get(found) is not None for found in ("alpha", "beta", "omega", "zeta"))


def test_both_views_share_every_entry_and_one_dict_by_id() -> None:
    index = snapshot()
    cleared, uncleared = index.visible(True), index.visible(False)

    assert uncleared._by_id is cleared._by_id
    assert all(uncleared.get(found.id) is cleared.get(found.id) for found in uncleared.skills)


def test_without_hidden_skills_both_views_share_one_tuple() -> None:
    index = SnapshotIndex(REF, None, [skill("alpha"), skill("beta")])  # type: ignore[arg-type]

    assert index.visible(False).skills is index.visible(True).skills
