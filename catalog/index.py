"""The read side of the catalog: the active snapshot, one snapshot's index held in memory
once per process per SHA, and the view of it that one request reads.

    active_view(zdr_cleared) -> SnapshotView | None
        The active snapshot as a caller with that clearance may see it; None before the
        first publish. One cheap query per call (nothing is cached across requests: a
        publish is seen by the very next request), so a request calls it once and reads
        everything through the view it got.
    SnapshotView
        `ref`, `config`, `skills` (sorted by id), `get(id)`, `search_index()` (built once per
        process per SHA and clearance) and `serves(revision)`. A caller not cleared for ZDR
        gets a view in which required_zdr skills do not exist at all: the only way to skills.
    find_snapshot(revision) -> SnapshotRef | None
        A stored snapshot by full SHA or unique prefix (the revision rule, in one place).
    read_blob(sha256) -> bytes
        A file's bytes by content hash: one raw query, then kept in a per-process LRU
        bounded in bytes (BLOB_CACHE_BYTES; content-addressed, so never stale).
        BlobNotFound if no such blob is stored.
    load_index(ref) -> SnapshotIndex
        Cached per process per SHA (a small LRU); built from the database once.
        SnapshotNotFound if the snapshot was pruned since `ref` was resolved.
"""

import copy
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import InitVar, dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING

from django.db import connection
from django.utils.dateparse import parse_datetime

from catalog.config import RegistryConfig, config_from_dict
from catalog.models import Blob, SkillVersionFile, Snapshot, SnapshotSkill
from catalog.single_flight import SingleFlightLru

if TYPE_CHECKING:  # catalog.search builds on SkillEntry, so it is imported where it is used
    from catalog.search import SearchIndex

# Indexes held per process: the active one, the one before it (requests still in flight
# across a publish) and a pinned revision or two. Each holds every skill's metadata and
# instructions, so the bound matters more than the hit rate.
INDEX_CACHE_SIZE = 3
# Search structures per (snapshot SHA, clearance): the active snapshot and the one before
# it, for both clearances. A SHA names fixed content, so an entry never goes stale.
SEARCH_CACHE_SIZE = 4
_ITERATOR_CHUNK = 2000


@dataclass(frozen=True, slots=True)
class SnapshotRef:
    sha: str
    published_at: datetime


@dataclass(frozen=True, slots=True)
class FileEntry:
    path: str
    size: int
    sha256: str
    media_type: str
    executable: bool


@dataclass(frozen=True, slots=True)
class SkillEntry:
    id: str
    name: str
    description: str
    version: str
    tags: tuple[str, ...]
    keywords: tuple[str, ...]
    requires: tuple[str, ...]
    required_zdr: bool
    content_hash: str
    if TYPE_CHECKING:
        # What callers see: an argument of __init__, then a str attribute (the property set
        # on the class below).
        instructions: str
    else:
        instructions: InitVar[str]  # kept as UTF-8 in _instructions_utf8
    skill_md_sha256: str
    skill_md_size: int
    files: tuple[FileEntry, ...]  # sorted by path; SKILL.md is not one
    _files_by_path: dict[str, FileEntry] = field(init=False, repr=False, compare=False)
    # Instructions are most of an index's memory: as UTF-8, 1 byte an ASCII character,
    # where a str holding a single em dash takes 2 bytes for every character (64 % of the
    # bench corpus's bodies). Decoded when read (skills_get; search decodes at build).
    _instructions_utf8: bytes = field(default=b"", init=False, repr=False)

    def __post_init__(self, *init_vars: str) -> None:
        [instructions] = init_vars  # the one InitVar (a plain field to type checkers)
        object.__setattr__(self, "_files_by_path", {entry.path: entry for entry in self.files})
        object.__setattr__(self, "_instructions_utf8", instructions.encode("utf-8", "surrogatepass"))

    def file(self, path: str) -> FileEntry | None:
        """The supporting file at exactly `path` (no normalisation), if the skill lists it."""
        return self._files_by_path.get(path)


def _instructions(self: SkillEntry) -> str:
    """The instructions (the body of SKILL.md)."""
    return self._instructions_utf8.decode("utf-8", "surrogatepass")


# Set after the dataclass is made, so that `instructions` stays an __init__ argument.
if not TYPE_CHECKING:  # type checkers already see a str attribute
    SkillEntry.instructions = property(_instructions)


class VisibleIndex:
    """The skills one caller may see, sorted by id. Hidden skills are simply absent."""

    __slots__ = ("_by_id", "skills")

    def __init__(self, skills: tuple[SkillEntry, ...]) -> None:
        self.skills = skills
        self._by_id = {skill.id: skill for skill in skills}

    def get(self, skill_id: str) -> SkillEntry | None:
        return self._by_id.get(skill_id)

    def __len__(self) -> int:
        return len(self.skills)


class SnapshotIndex:
    """Every skill of one snapshot, in memory; callers read through `visible()`."""

    def __init__(self, ref: SnapshotRef, config: RegistryConfig, skills: Iterable[SkillEntry]) -> None:
        self.ref = ref
        self.config = config
        ordered = tuple(sorted(skills, key=lambda skill: skill.id))
        self._everyone = VisibleIndex(ordered)
        self._uncleared = VisibleIndex(tuple(skill for skill in ordered if not skill.required_zdr))

    def visible(self, zdr_cleared: bool) -> VisibleIndex:
        return self._everyone if zdr_cleared else self._uncleared

    def with_ref(self, ref: SnapshotRef) -> "SnapshotIndex":
        """The same skills under another ref of the same SHA (re-activation moves published_at)."""
        clone = copy.copy(self)
        clone.ref = ref
        return clone


@dataclass(frozen=True, slots=True)
class SnapshotView:
    """The one snapshot a request reads, through its caller's clearance.

    Made once per request (active_view), so every answer of the request comes from one
    revision even if a publish lands meanwhile.
    """

    index: SnapshotIndex
    zdr_cleared: bool
    visible: VisibleIndex = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "visible", self.index.visible(self.zdr_cleared))

    @property
    def ref(self) -> SnapshotRef:
        return self.index.ref

    @property
    def config(self) -> RegistryConfig:
        return self.index.config

    @property
    def skills(self) -> tuple[SkillEntry, ...]:
        """Every skill this caller may see, by id."""
        return self.visible.skills

    def get(self, skill_id: str) -> SkillEntry | None:
        """The skill with exactly this id, if this caller may see it."""
        return self.visible.get(skill_id)

    def search_index(self) -> "SearchIndex":
        """Search (and tag filtering) over these skills, built once per process per SHA and
        clearance: statistics over skills hidden from this caller never reach it."""
        return _search_indexes.get(
            (self.ref.sha, self.zdr_cleared), partial(_build_search_index, self.visible)
        )

    def serves(self, revision: str) -> bool:
        """Whether `revision` names this snapshot (see find_snapshot for the rule)."""
        wanted = _revision_key(revision)
        if wanted is None or not self.ref.sha.startswith(wanted):
            return False
        if wanted == self.ref.sha:
            return True
        found = find_snapshot(wanted)  # None when the prefix names several snapshots
        return found is not None and found.sha == self.ref.sha


def _build_search_index(visible: VisibleIndex) -> "SearchIndex":
    from catalog.search import SearchIndex  # here: catalog.search imports this module

    return SearchIndex(visible.skills)


class SnapshotNotFound(LookupError):
    """The snapshot is not stored (pruned after its ref was resolved)."""


class BlobNotFound(LookupError):
    """No blob with that SHA-256 is stored."""


def active_view(zdr_cleared: bool) -> SnapshotView | None:
    ref = active_snapshot()
    return None if ref is None else SnapshotView(load_index(ref), zdr_cleared)


# Every /mcp request that reads skills runs this first; a raw query skips the ORM's per-call
# query compilation, which cost 20 times the query itself (py-spy under gunicorn).
_ACTIVE_SQL = f"SELECT sha, published_at FROM {Snapshot._meta.db_table} WHERE is_active = %s"  # noqa: S608 - a constant table name


def active_snapshot() -> SnapshotRef | None:
    with connection.cursor() as cursor:
        cursor.execute(_ACTIVE_SQL, [True])
        row = cursor.fetchone()
    if row is None or row[1] is None:
        return None
    return SnapshotRef(sha=row[0], published_at=_as_aware_datetime(row[1]))


def _as_aware_datetime(value: datetime | str) -> datetime:
    """SQLite hands back text, PostgreSQL a datetime; both are stored in UTC."""
    if isinstance(value, str):
        parsed = parse_datetime(value)
        if parsed is None:
            raise ValueError(f"unreadable published_at {value!r}")
        value = parsed
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


# A revision names a snapshot by its full SHA or by a prefix of at least 7 hex characters,
# in either case (git prints lower case; people paste what they see).
MIN_REVISION_PREFIX = 7
_REVISION = re.compile(rf"[0-9a-f]{{{MIN_REVISION_PREFIX},40}}")


def _revision_key(revision: str) -> str | None:
    """`revision` in the form SHAs are stored in, or None when it cannot name one."""
    if not isinstance(revision, str):
        return None
    lowered = revision.lower()
    return lowered if _REVISION.fullmatch(lowered) else None


def find_snapshot(revision: str) -> SnapshotRef | None:
    """A stored, published snapshot by full SHA or by a prefix of >= 7 hex characters that no
    other stored snapshot shares, case-insensitive; None when malformed, unknown or ambiguous."""
    wanted = _revision_key(revision)
    if wanted is None:
        return None
    published = Snapshot.objects.filter(published_at__isnull=False)
    if len(wanted) == 40:
        matches = published.filter(sha=wanted)
    else:
        matches = published.filter(sha__startswith=wanted)
    rows = list(matches.values_list("sha", "published_at")[:2])
    if len(rows) != 1:
        return None
    [(sha, published_at)] = rows
    assert published_at is not None  # only published snapshots were asked for
    return SnapshotRef(sha=sha, published_at=published_at)


_indexes: SingleFlightLru[str, SnapshotIndex] = SingleFlightLru(INDEX_CACHE_SIZE)
_search_indexes: "SingleFlightLru[tuple[str, bool], SearchIndex]" = SingleFlightLru(SEARCH_CACHE_SIZE)


def load_index(ref: SnapshotRef) -> SnapshotIndex:
    index = _indexes.get(ref.sha, lambda: _build_index(ref))
    if index.ref != ref:
        # Same content, another activation time (a rollback re-activated it).
        index = index.with_ref(ref)
        _indexes.replace(ref.sha, index)
    return index


def clear_index_cache() -> None:
    """Forget every cached index, search index and blob (tests; serving never needs it)."""
    global _blob_cache_bytes
    _indexes.clear()
    _search_indexes.clear()
    with _blob_lock:
        _blob_cache.clear()
        _blob_cache_bytes = 0


# Blob bytes per process, by SHA-256: content-addressed, so an entry never goes stale.
# Bounded by the bytes held (hot SKILL.md and supporting files are a few KB each); a blob
# larger than a quarter of the bound is served but not kept.
BLOB_CACHE_BYTES = 32 * 1024 * 1024
_blob_cache: OrderedDict[str, bytes] = OrderedDict()
_blob_cache_bytes = 0
_blob_lock = threading.Lock()
# A raw query, like _ACTIVE_SQL: the ORM's query building was most of read_blob's cost.
_BLOB_SQL = f"SELECT data FROM {Blob._meta.db_table} WHERE sha256 = %s"  # noqa: S608 - a constant table name


def read_blob(sha256: str) -> bytes:
    global _blob_cache_bytes
    with _blob_lock:
        data = _blob_cache.get(sha256)
        if data is not None:
            _blob_cache.move_to_end(sha256)
            return data
    with connection.cursor() as cursor:
        cursor.execute(_BLOB_SQL, [sha256])
        row = cursor.fetchone()
    if row is None or row[0] is None:
        raise BlobNotFound(sha256)
    data = bytes(row[0])  # PostgreSQL hands back a memoryview
    if len(data) <= BLOB_CACHE_BYTES // 4:
        with _blob_lock:
            if sha256 not in _blob_cache:
                _blob_cache[sha256] = data
                _blob_cache_bytes += len(data)
                while _blob_cache_bytes > BLOB_CACHE_BYTES:
                    _, dropped = _blob_cache.popitem(last=False)
                    _blob_cache_bytes -= len(dropped)
    return data


def _build_index(ref: SnapshotRef) -> SnapshotIndex:
    row = Snapshot.objects.filter(sha=ref.sha).values_list("id", "config").first()
    if row is None:
        raise SnapshotNotFound(ref.sha)
    snapshot_id, config_data = row
    config = config_from_dict(config_data)

    files: dict[int, list[FileEntry]] = {}
    file_rows = SkillVersionFile.objects.filter(skill_version__snapshot_skills__snapshot_id=snapshot_id)
    for version_id, path, size, sha256, media_type, executable in file_rows.values_list(
        "skill_version_id", "path", "size", "blob_id", "media_type", "executable"
    ).iterator(chunk_size=_ITERATOR_CHUNK):
        files.setdefault(version_id, []).append(FileEntry(path, size, sha256, media_type, executable))

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
    ) in skill_rows.iterator(chunk_size=_ITERATOR_CHUNK):
        skills.append(
            SkillEntry(
                id=skill_id,
                name=name,
                description=description,
                version=version,
                tags=tuple(tags),
                keywords=tuple(keywords),
                requires=tuple(requires),
                required_zdr=required_zdr,
                content_hash=content_hash,
                instructions=instructions,
                skill_md_sha256=skill_md_sha256,
                skill_md_size=skill_md_size,
                # Sorted here, not by the database: collations differ, code points do not.
                files=tuple(sorted(files.pop(version_id, ()), key=lambda entry: entry.path)),
            )
        )
    return SnapshotIndex(ref, config, skills)
