"""catalog.storage: rows written in bounded batches, and only bytes that match their hash."""

import pytest

from catalog.errors import PublishError
from catalog.models import Blob, SkillVersion, Snapshot
from catalog.storage import chunks, store_snapshot
from catalog.trees import WorkingTree
from catalog.validation import validate_tree
from tests.support.repos import SkillRepo


def test_chunks_cut_any_iterable_into_bounded_lists() -> None:
    assert list(chunks(range(5), 2)) == [[0, 1], [2, 3], [4]]
    assert list(chunks([], 3)) == []


@pytest.mark.django_db
def test_a_snapshot_is_stored_inactive_with_its_totals(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("alpha", files={"references/a.md": "a\n"})
    tree = WorkingTree(skill_repo.root)
    report = validate_tree(tree)

    snapshot_id, counts = store_snapshot(tree, report, "c" * 40, {}, "f" * 64)

    snapshot = Snapshot.objects.get(id=snapshot_id)
    assert (snapshot.is_active, snapshot.skill_count, snapshot.file_count) == (False, 1, 2)
    assert snapshot.rules_fingerprint == "f" * 64
    assert (counts.new_skill_versions, counts.new_blobs) == (1, 2)
    # The same content again: nothing new is stored.
    _, again = store_snapshot(tree, report, "d" * 40, {}, "f" * 64)
    assert (again.new_skill_versions, again.new_blobs) == (0, 0)
    assert (SkillVersion.objects.count(), Blob.objects.count()) == (1, 2)


@pytest.mark.django_db
def test_bytes_that_changed_since_validation_are_never_stored(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("alpha", files={"references/a.md": "a\n"})
    tree = WorkingTree(skill_repo.root)
    report = validate_tree(tree)
    skill_repo.write("skills/alpha/references/a.md", "b\n")  # same size, other bytes

    with pytest.raises(PublishError, match=r"references/a\.md: its bytes changed between validation"):
        store_snapshot(tree, report, "c" * 40, {}, "")
