"""catalog.snapshots: the active row, the listing's lines and what a prune reports."""

from datetime import UTC, datetime

import pytest

from catalog.publishing import publish
from catalog.snapshots import PruneResult, StoredSnapshot, read_active, snapshot_lines
from tests.catalog.publish_support import bump, two_skills
from tests.support.repos import SkillRepo

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
OLD = StoredSnapshot("a" * 40, WHEN, False, 3, "ci")


def test_a_snapshot_line_is_marker_sha_time_and_skill_count() -> None:
    assert OLD.line("*") == f"* {'a' * 40} 2026-01-02T03:04:05+00:00 3 skills"
    assert StoredSnapshot("b" * 40, None, False, 0, "").line(" ") == f"  {'b' * 40} - 0 skills"


def test_a_prune_reports_each_removed_snapshot_then_the_totals() -> None:
    result = PruneResult(
        kept=[OLD], removed=[OLD], removed_skill_versions=2, removed_blobs=3, removed_blob_bytes=40
    )
    assert result.lines() == [
        f"Removed {'a' * 40} 2026-01-02T03:04:05+00:00 3 skills",
        "Removed 1 snapshots, 2 skill versions, 3 blobs (40 bytes); kept 1 snapshots.",
    ]
    dry = PruneResult(kept=[OLD], removed=[], dry_run=True)
    assert dry.lines() == ["Would remove 0 snapshots, 0 skill versions, 0 blobs (0 bytes); kept 1 snapshots."]


@pytest.mark.django_db
def test_the_listing_marks_the_active_snapshot_most_recent_first(skill_repo: SkillRepo) -> None:
    assert read_active() is None
    assert snapshot_lines() == []
    first = publish(skill_repo.root, two_skills(skill_repo))
    second = publish(skill_repo.root, bump(skill_repo, "beta", "1.1.0", "Beta, better.\n"))

    active = read_active()
    assert active is not None and (active.sha, active.published_at) == (second.sha, second.published_at)
    lines = snapshot_lines()
    assert [line[:42] for line in lines] == [f"* {second.sha}", f"  {first.sha}"]
    assert lines[0].endswith(" 2 skills")
