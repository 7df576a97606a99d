"""The read side: the active snapshot and its per-request view, revisions by prefix, the
cached in-memory index and search indexes, blobs."""

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from catalog import index
from catalog.config import CEILINGS, ConfigError, config_from_dict
from catalog.index import (
    BlobNotFound,
    SnapshotIndex,
    SnapshotNotFound,
    SnapshotRef,
    SnapshotView,
    active_snapshot,
    active_view,
    find_snapshot,
    load_index,
    read_blob,
)
from catalog.models import Snapshot
from catalog.publishing import publish
from catalog.snapshots import prune_snapshots
from tests.catalog.publish_support import bump, two_skills
from tests.support.repos import DEFAULT_CONFIG, SkillRepo


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    index.clear_index_cache()
    yield
    index.clear_index_cache()


def stored_snapshot(sha: str) -> Snapshot:
    """A bare snapshot row (no skills), for the lookups that only read the snapshot table."""
    return Snapshot.objects.create(
        sha=sha,
        published_at=datetime(2026, 1, 1, tzinfo=UTC),
        skill_count=0,
        file_count=0,
        total_bytes=0,
        config=DEFAULT_CONFIG,
    )


@pytest.mark.django_db
def test_there_is_no_active_snapshot_before_the_first_publish() -> None:
    assert active_snapshot() is None


@pytest.mark.django_db
def test_the_active_snapshot_is_read_fresh_on_every_call(skill_repo: SkillRepo) -> None:
    first = publish(skill_repo.root, two_skills(skill_repo))
    assert active_snapshot() == SnapshotRef(first.sha, first.published_at)

    second = publish(skill_repo.root, bump(skill_repo, "beta", "1.1.0", "Beta, better.\n"))

    assert active_snapshot() == SnapshotRef(second.sha, second.published_at)


@pytest.mark.django_db
def test_find_snapshot_takes_a_full_sha_or_a_unique_prefix() -> None:
    sha = "abcdef0" + "1" * 33
    stored_snapshot(sha)
    stored_snapshot("abcdef9" + "2" * 33)
    expected = SnapshotRef(sha, datetime(2026, 1, 1, tzinfo=UTC))

    assert find_snapshot(sha) == expected
    assert find_snapshot("abcdef01") == expected
    assert find_snapshot("abcdef0") == expected
    assert find_snapshot("ABCDEF01") == expected  # case-insensitive, as people paste SHAs
    assert find_snapshot(sha.upper()) == expected


@pytest.mark.django_db
@pytest.mark.parametrize(
    "revision",
    [
        "abcdef",  # too short
        "abcdef0",  # ambiguous: both stored snapshots start with it
        "ABCDEF0",  # ambiguous in upper case too
        "abcdef01\n",
        " abcdef01",
        "abcdefg1",
        "abcdef" + "0" * 35,  # 41 chars
        "0123456789",  # unknown
        "",
    ],
)
def test_find_snapshot_refuses_malformed_unknown_and_ambiguous_revisions(revision: str) -> None:
    stored_snapshot("abcdef0" + "1" * 33)
    stored_snapshot("abcdef0" + "2" * 33)
    assert find_snapshot(revision) is None


@pytest.mark.django_db
def test_find_snapshot_finds_an_inactive_snapshot(skill_repo: SkillRepo) -> None:
    old = publish(skill_repo.root, two_skills(skill_repo))
    publish(skill_repo.root, bump(skill_repo, "beta", "1.1.0", "Beta, better.\n"))

    assert find_snapshot(old.sha[:7]) == SnapshotRef(old.sha, old.published_at)


@pytest.mark.django_db
def test_the_index_holds_the_snapshot_and_hides_zdr_skills_from_uncleared_callers(
    skill_repo: SkillRepo,
) -> None:
    config = {**DEFAULT_CONFIG, "file_page_bytes": 1024, "pagination": {"default_limit": 7, "max_limit": 9}}
    skill_repo.write_config(config)
    skill_repo.add_skill(
        "alpha",
        files={"scripts/run.sh": "echo hi\n", "references/b.md": "B\n", "references/a/z.md": "Z\n"},
        tags=["docs"],
    )
    skill_repo.add_skill("zeta", body="Secret steps.\n", required_zdr=True)
    result = publish(skill_repo.root, skill_repo.commit())
    skill_md = (skill_repo.root / "skills/alpha/SKILL.md").read_bytes()

    snapshot_index = load_index(active_snapshot())  # type: ignore[arg-type]

    assert snapshot_index.ref == SnapshotRef(result.sha, result.published_at)
    assert snapshot_index.config.file_page_bytes == 1024
    assert snapshot_index.config.pagination.default_limit == 7
    everyone = snapshot_index.visible(True)
    assert [skill.id for skill in everyone.skills] == ["alpha", "zeta"]
    assert [skill.id for skill in snapshot_index.visible(False).skills] == ["alpha"]
    assert snapshot_index.visible(False).get("zeta") is None
    alpha = everyone.get("alpha")
    assert alpha is not None
    assert alpha.tags == ("docs",)
    assert alpha.instructions == "Do the thing, step by step.\n"
    assert alpha.skill_md_size == len(skill_md)
    assert read_blob(alpha.skill_md_sha256) == skill_md
    assert [entry.path for entry in alpha.files] == ["references/a/z.md", "references/b.md", "scripts/run.sh"]
    run = alpha.file("scripts/run.sh")
    assert run is not None and run.executable and run.size == 8
    assert read_blob(run.sha256) == b"echo hi\n"


@pytest.mark.django_db
def test_equal_values_of_a_snapshot_are_one_object(skill_repo: SkillRepo) -> None:
    """Each database row brings its own strings: the index keeps one of each (memory)."""
    for skill_id in ("alpha", "beta"):
        skill_repo.add_skill(skill_id, files={"references/guide.md": f"{skill_id}\n"}, tags=["docs", "ops"])
    publish(skill_repo.root, skill_repo.commit())

    alpha, beta = load_index(active_snapshot()).visible(True).skills  # type: ignore[arg-type]

    assert alpha.tags == beta.tags == ("docs", "ops") and alpha.tags is beta.tags
    [alpha_file], [beta_file] = alpha.files, beta.files
    assert alpha_file.sha256 != beta_file.sha256
    assert alpha_file.path is beta_file.path and alpha_file.media_type is beta_file.media_type


@pytest.mark.django_db
def test_read_blob_raises_for_an_unknown_hash() -> None:
    with pytest.raises(BlobNotFound):
        read_blob("0" * 64)


@pytest.mark.django_db
def test_the_index_is_built_once_per_sha(skill_repo: SkillRepo, django_assert_num_queries) -> None:  # type: ignore[no-untyped-def]
    publish(skill_repo.root, two_skills(skill_repo))
    ref = active_snapshot()
    assert ref is not None
    first = load_index(ref)

    with django_assert_num_queries(0):
        assert load_index(ref) is first


@pytest.mark.django_db
def test_a_rollback_moves_published_at_without_a_rebuild(
    skill_repo: SkillRepo, django_assert_num_queries
) -> None:  # type: ignore[no-untyped-def]
    old = two_skills(skill_repo)
    publish(skill_repo.root, old)
    before = load_index(active_snapshot())  # type: ignore[arg-type]
    publish(skill_repo.root, bump(skill_repo, "beta", "1.1.0", "Beta, better.\n"))
    publish(skill_repo.root, old, rollback=True)
    ref = active_snapshot()
    assert ref is not None and ref.published_at > before.ref.published_at

    with django_assert_num_queries(0):
        after = load_index(ref)

    assert after.ref == ref
    assert after.visible(True).skills is before.visible(True).skills


@pytest.mark.django_db
def test_the_cache_keeps_only_a_few_indexes(skill_repo: SkillRepo) -> None:
    refs = []
    for number in range(index.INDEX_CACHE_SIZE + 1):
        sha = bump(skill_repo, "beta", f"1.{number}.0", f"Beta {number}.\n")
        result = publish(skill_repo.root, sha)
        refs.append(SnapshotRef(result.sha, result.published_at))
    first = load_index(refs[0])
    for ref in refs[1:]:
        load_index(ref)

    assert load_index(refs[-1]) is load_index(refs[-1])
    assert load_index(refs[0]) is not first  # evicted, built again


@pytest.mark.django_db
def test_a_pruned_snapshot_cannot_be_loaded(skill_repo: SkillRepo) -> None:
    old = publish(skill_repo.root, two_skills(skill_repo))
    publish(skill_repo.root, bump(skill_repo, "beta", "1.1.0", "Beta, better.\n"))
    prune_snapshots(1)

    with pytest.raises(SnapshotNotFound):
        load_index(SnapshotRef(old.sha, old.published_at))


def test_concurrent_first_loads_build_the_index_once(monkeypatch: pytest.MonkeyPatch) -> None:
    builds: list[str] = []
    ref = SnapshotRef("f" * 40, datetime(2026, 1, 1, tzinfo=UTC))

    def slow_build(wanted: SnapshotRef) -> SnapshotIndex:
        builds.append(wanted.sha)
        time.sleep(0.2)
        return SnapshotIndex(wanted, config=None, skills=[])  # type: ignore[arg-type]

    monkeypatch.setattr(index, "_build_index", slow_build)
    results: list[SnapshotIndex] = []
    threads = [threading.Thread(target=lambda: results.append(load_index(ref))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert builds == [ref.sha]
    assert len(results) == 8 and all(result is results[0] for result in results)


@pytest.mark.django_db
def test_the_heap_is_trimmed_after_each_build_and_never_on_a_hit(
    skill_repo: SkillRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    real_build, real_search = index._build_index, index._build_search_index

    def build(ref: SnapshotRef) -> SnapshotIndex:
        events.append("index built")
        return real_build(ref)

    def build_search(visible: index.VisibleIndex) -> object:
        events.append("search index built")
        return real_search(visible)

    monkeypatch.setattr(index, "_build_index", build)
    monkeypatch.setattr(index, "_build_search_index", build_search)
    monkeypatch.setattr(index, "release_free_memory", lambda: events.append("trimmed"))
    skill_repo.add_skill("alpha")
    skill_repo.add_skill("zeta", required_zdr=True)
    publish(skill_repo.root, skill_repo.commit())

    for _ in range(2):
        for cleared in (False, True):
            view = active_view(cleared)
            assert view is not None
            view.search_index()

    assert events == ["index built", "trimmed"] + ["search index built", "trimmed"] * 2


@pytest.mark.django_db
def test_there_is_no_view_before_the_first_publish() -> None:
    assert active_view(True) is None
    assert active_view(False) is None


@pytest.mark.django_db
def test_the_active_view_sees_what_its_clearance_allows(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("alpha", tags=["docs"])
    skill_repo.add_skill("zeta", body="Secret steps.\n", required_zdr=True)
    result = publish(skill_repo.root, skill_repo.commit())

    cleared, uncleared = active_view(True), active_view(False)

    assert cleared is not None and uncleared is not None
    assert cleared.ref == uncleared.ref == SnapshotRef(result.sha, result.published_at)
    assert [skill.id for skill in cleared.skills] == ["alpha", "zeta"]
    assert [skill.id for skill in uncleared.skills] == ["alpha"]
    assert uncleared.get("zeta") is None and cleared.get("zeta") is not None
    assert [hit.skill.id for hit in uncleared.search_index().search("secret")] == []
    assert [hit.skill.id for hit in cleared.search_index().search("secret")] == ["zeta"]


@pytest.mark.django_db
def test_a_view_serves_its_full_sha_or_a_unique_prefix_in_either_case() -> None:
    sha = "abcdef0" + "1" * 33
    stored_snapshot(sha)
    stored_snapshot("abcdef9" + "2" * 33)
    view = SnapshotView(SnapshotIndex(SnapshotRef(sha, datetime(2026, 1, 1, tzinfo=UTC)), None, []), False)  # type: ignore[arg-type]

    for revision in (sha, sha.upper(), "abcdef01", "ABCDEF0"):
        assert view.serves(revision), revision
    for revision in ("abcdef9", "abcdef", "abcdef0" + "2" * 33, sha + "1", " abcdef01", "abcdefg", ""):
        assert not view.serves(revision), revision


def test_concurrent_first_searches_build_one_search_index(monkeypatch: pytest.MonkeyPatch) -> None:
    from catalog import search

    builds: list[int] = []
    real = search.SearchIndex

    class SlowSearchIndex(real):  # type: ignore[misc, valid-type]
        def __init__(self, skills) -> None:  # type: ignore[no-untyped-def]
            builds.append(1)
            time.sleep(0.2)
            super().__init__(skills)

    monkeypatch.setattr(search, "SearchIndex", SlowSearchIndex)
    ref = SnapshotRef("e" * 40, datetime(2026, 1, 1, tzinfo=UTC))
    views = [SnapshotView(SnapshotIndex(ref, config=None, skills=[]), True) for _ in range(8)]  # type: ignore[arg-type]
    results: list[object] = []
    threads = [
        threading.Thread(target=lambda view=view: results.append(view.search_index())) for view in views
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert builds == [1]
    assert len(results) == 8 and all(result is results[0] for result in results)
    assert SnapshotView(views[0].index, False).search_index() is not results[0]  # another clearance


def test_the_search_cache_keeps_only_a_few_indexes() -> None:
    views = [
        SnapshotView(
            SnapshotIndex(SnapshotRef(f"{number:040x}", datetime(2026, 1, 1, tzinfo=UTC)), None, []), True
        )  # type: ignore[arg-type]
        for number in range(index.SEARCH_CACHE_SIZE + 1)
    ]
    first = views[0].search_index()
    for view in views[1:]:
        view.search_index()

    assert views[-1].search_index() is views[-1].search_index()
    assert views[0].search_index() is not first  # evicted, built again


@pytest.mark.django_db
def test_a_stored_config_above_todays_ceilings_is_served_clamped_to_them(skill_repo: SkillRepo) -> None:
    result = publish(skill_repo.root, two_skills(skill_repo))
    # A snapshot published when the ceilings were higher: its stored config is above them now.
    stored = {**DEFAULT_CONFIG, "file_page_bytes": CEILINGS["file_page_bytes"] * 4}
    stored["pagination"] = {"default_limit": 5000, "max_limit": 9000}
    Snapshot.objects.filter(sha=result.sha).update(config=stored)

    snapshot_index = load_index(active_snapshot())  # type: ignore[arg-type]

    assert snapshot_index.config.file_page_bytes == CEILINGS["file_page_bytes"]
    assert snapshot_index.config.pagination.default_limit == CEILINGS["pagination.default_limit"]
    assert snapshot_index.config.pagination.max_limit == CEILINGS["pagination.max_limit"]
    assert [skill.id for skill in snapshot_index.visible(zdr_cleared=False).skills] == ["alpha", "beta"]


def test_a_config_file_above_a_ceiling_is_still_refused_at_publish_time() -> None:
    with pytest.raises(ConfigError, match="above its ceiling"):
        config_from_dict({**DEFAULT_CONFIG, "file_page_bytes": CEILINGS["file_page_bytes"] + 1})


@pytest.mark.django_db
def test_the_active_view_is_made_once_per_active_snapshot_and_clearance(skill_repo: SkillRepo) -> None:
    first = publish(skill_repo.root, two_skills(skill_repo))
    uncleared, cleared = active_view(False), active_view(True)
    assert uncleared is not None and cleared is not None
    assert (active_view(False), active_view(True)) == (uncleared, cleared)
    assert active_view(False) is uncleared and active_view(True) is cleared
    assert uncleared.zdr_cleared is False and cleared.zdr_cleared is True
    second = publish(skill_repo.root, bump(skill_repo, "beta", "2.0.0", "Beta two.\n"))
    newer = active_view(False)
    assert newer is not None and newer.ref == SnapshotRef(second.sha, second.published_at)
    assert newer.ref != uncleared.ref and uncleared.ref.sha == first.sha
    rolled_back = publish(skill_repo.root, first.sha, rollback=True)
    again = active_view(False)
    assert again is not None and again.ref == SnapshotRef(first.sha, rolled_back.published_at)
    assert again is not uncleared  # the same SHA activated again: a new ref, a new view
    index.clear_index_cache()
    assert active_view(False) is not again
