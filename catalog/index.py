"""The read side of the catalog, as the other apps see it: the active snapshot, one
snapshot's index held in memory once per process per SHA, and the view of it that one
request reads. The parts live in catalog.entries (what an index holds), catalog.revisions
(the active snapshot, the revision rule) and catalog.blobs (file bytes); this module is
the one door to them (__all__).

    active_view(zdr_cleared) -> SnapshotView | None
        The active snapshot as a caller with that clearance may see it; None before the
        first publish. A publish is seen by the very next request (catalog.revisions: one
        cheap query, or none on SQLite while nothing was committed), so a request calls it
        once and reads everything through the view it got.
    SnapshotView
        `ref`, `config`, `skills` (sorted by id), `get(id)`, `search_index()` (built once per
        process per SHA and clearance) and `serves(revision)`. A caller not cleared for ZDR
        gets a view in which required_zdr skills do not exist at all: the only way to skills.
    load_index(ref) -> SnapshotIndex
        Cached per process per SHA (a small LRU); built from the database once.
        SnapshotNotFound if the snapshot was pruned since `ref` was resolved.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar

from catalog import collector, search
from catalog.blobs import BlobNotFound, clear_blob_cache, read_blob
from catalog.config import RegistryConfig, stored_config
from catalog.entries import FileEntry, SkillEntry, SnapshotIndex, SnapshotRef, VisibleIndex
from catalog.heap import release_free_memory
from catalog.models import SkillVersionFile, Snapshot, SnapshotSkill
from catalog.revisions import active_snapshot, find_snapshot, names
from catalog.single_flight import SingleFlightLru
from catalog.storage import omitted_from_row

__all__ = [
    "BlobNotFound",
    "FileEntry",
    "SkillEntry",
    "SnapshotIndex",
    "SnapshotNotFound",
    "SnapshotRef",
    "SnapshotView",
    "active_snapshot",
    "active_view",
    "clear_index_cache",
    "find_snapshot",
    "load_index",
    "read_blob",
]

# Indexes held per process: the active one, the one before it (requests still in flight
# across a publish) and a pinned revision or two. Each holds every skill's metadata and
# instructions, so the bound matters more than the hit rate.
INDEX_CACHE_SIZE = 3
# Search structures per (snapshot SHA, clearance): the active snapshot and the one before
# it, for both clearances. A SHA names fixed content, so an entry never goes stale.
SEARCH_CACHE_SIZE = 4
_ITERATOR_CHUNK = 2000
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SnapshotView:
    """The one snapshot a request reads, through its caller's clearance.

    Made once per request (active_view), so every answer of the request comes from one
    revision even if a publish lands meanwhile.
    """

    index: SnapshotIndex
    zdr_cleared: bool
    # Resolved once from the index: an index is immutable, so these never change under the view.
    ref: SnapshotRef = field(init=False)
    config: RegistryConfig = field(init=False, repr=False)
    visible: VisibleIndex = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "ref", self.index.ref)
        object.__setattr__(self, "config", self.index.config)
        object.__setattr__(self, "visible", self.index.visible(self.zdr_cleared))

    @property
    def skills(self) -> tuple[SkillEntry, ...]:
        """Every skill this caller may see, by id."""
        return self.visible.skills

    def get(self, skill_id: str) -> SkillEntry | None:
        """The skill with exactly this id, if this caller may see it."""
        return self.visible.get(skill_id)

    def search_index(self) -> search.SearchIndex:
        """Search (and tag filtering) over these skills, built once per process per SHA and
        clearance: statistics over skills hidden from this caller never reach it."""
        return _search_indexes.get(
            (self.ref.sha, self.zdr_cleared), partial(_trimmed, partial(_build_search_index, self.visible))
        )

    def serves(self, revision: str) -> bool:
        """Whether `revision` names this snapshot (the rule: catalog.revisions)."""
        return names(revision, self.ref.sha)


def _build_search_index(visible: VisibleIndex) -> search.SearchIndex:
    return search.SearchIndex(visible.skills)


def _trimmed(build: Callable[[], T]) -> T:
    """What `build` returns, frozen out of the cyclic collector's full collections with
    everything else then alive (catalog.collector: a full collection walking the indexes cost a
    worker 0.17-0.27 ms a cold search), and its temporaries (freed on return) handed back to the
    operating system: glibc keeps them otherwise, ~46 MB of a worker's RSS for a search index of
    10,000 skills (catalog.heap)."""
    built = build()
    collector.settle()
    release_free_memory()
    return built


class SnapshotNotFound(LookupError):
    """The snapshot is not stored (pruned after its ref was resolved)."""


def active_view(zdr_cleared: bool) -> SnapshotView | None:
    ref = active_snapshot()
    if ref is None:
        return None
    view = _active_views.get(zdr_cleared)
    # The same ref object while SQLite says nothing changed (catalog.unchanged); an equal one
    # from PostgreSQL. A view is a pure function of its ref's index and the clearance.
    if view is not None and (view.ref is ref or view.ref == ref):
        return view
    view = SnapshotView(load_index(ref), zdr_cleared)
    _active_views[zdr_cleared] = view
    return view


_indexes: SingleFlightLru[str, SnapshotIndex] = SingleFlightLru(INDEX_CACHE_SIZE)
# The view of the active snapshot per clearance, made once rather than on every request (the
# index look-up and the view's construction, 17,000 instructions of a warm call:
# docs/benchmarks.md, "The active snapshot without a query, session 5"). Replaced when another
# snapshot is active; at most these two views' indexes outlive their eviction from _indexes.
_active_views: dict[bool, SnapshotView] = {}
_search_indexes: SingleFlightLru[tuple[str, bool], search.SearchIndex] = SingleFlightLru(SEARCH_CACHE_SIZE)


def load_index(ref: SnapshotRef) -> SnapshotIndex:
    index = _indexes.get(ref.sha, partial(_trimmed, partial(_build_index, ref)))
    if index.ref != ref:
        # Same content, another activation time (a rollback re-activated it).
        index = index.with_ref(ref)
        _indexes.replace(ref.sha, index)
    return index


def clear_index_cache() -> None:
    """Forget every cached index, view, search index and blob (tests; serving never needs it)."""
    _indexes.clear()
    _active_views.clear()
    _search_indexes.clear()
    clear_blob_cache()


def _shared(pool: dict[object, object], value: T) -> T:
    """The one object of `pool` equal to `value` (`value` itself, the first time)."""
    return pool.setdefault(value, value)  # type: ignore[return-value]


def _build_index(ref: SnapshotRef) -> SnapshotIndex:
    row = Snapshot.objects.filter(sha=ref.sha).values_list("id", "config").first()
    if row is None:
        raise SnapshotNotFound(ref.sha)
    snapshot_id, config_data = row
    config = stored_config(config_data)

    # One object for equal values across the snapshot (tags from a small vocabulary, media
    # types, versions, common paths): 3-4 MB at 10,000 skills, where each row brings its own.
    pool: dict[object, object] = {}
    share = partial(_shared, pool)
    files: dict[int, list[FileEntry]] = {}
    file_rows = SkillVersionFile.objects.filter(skill_version__snapshot_skills__snapshot_id=snapshot_id)
    for version_id, path, size, sha256, media_type, executable in file_rows.values_list(
        "skill_version_id", "path", "size", "blob_id", "media_type", "executable"
    ).iterator(chunk_size=_ITERATOR_CHUNK):
        entry = FileEntry(share(path), size, sha256, share(media_type), executable)
        files.setdefault(version_id, []).append(share(entry))

    skills = []
    skill_rows = SnapshotSkill.objects.filter(snapshot_id=snapshot_id).values_list(
        "skill_version_id",
        "skill_id",
        "skill_version__name",
        "skill_version__description",
        "skill_version__version",
        "skill_version__tags",
        "skill_version__keywords",
        "skill_version__requires",
        "skill_version__required_zdr",
        "skill_version__content_hash",
        "skill_version__instructions",
        "skill_version__skill_md_id",
        "skill_version__skill_md__size",
        "skill_version__frontmatter",
        "path",
        "omitted",
    )
    for (
        version_id,
        skill_id,
        name,
        description,
        version,
        tags,
        keywords,
        requires,
        required_zdr,
        content_hash,
        instructions,
        skill_md_sha256,
        skill_md_size,
        frontmatter,
        path,
        omitted,
    ) in skill_rows.iterator(chunk_size=_ITERATOR_CHUNK):
        skills.append(
            SkillEntry(
                id=skill_id,
                name=name,
                description=description,
                version=share(version),
                tags=share(tuple(map(share, tags))),
                keywords=share(tuple(map(share, keywords))),
                requires=share(tuple(map(share, requires))),
                required_zdr=required_zdr,
                content_hash=content_hash,
                instructions=instructions,
                skill_md_sha256=skill_md_sha256,
                skill_md_size=skill_md_size,
                # Sorted here, not by the database: collations differ, code points do not.
                files=share(tuple(sorted(files.pop(version_id, ()), key=lambda entry: entry.path))),
                path=path,
                frontmatter=frontmatter,
                omitted=omitted_from_row(omitted),
            )
        )
    return SnapshotIndex(ref, config, skills)
