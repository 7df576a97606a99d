"""The read API the MCP layer uses: the active snapshot, and one snapshot's index
held in memory once per process per SHA.

CONTRACT (implemented by the publishing work; mcpapi relies on it):

    active_snapshot() -> SnapshotRef | None
        One cheap query per call (no caching across requests: a publish is seen
        by the very next request).
    find_snapshot(revision: str) -> SnapshotRef | None
        A stored snapshot by full SHA or unique prefix (>= 7 hex chars).
    load_index(ref: SnapshotRef) -> SnapshotIndex
        Cached per process per SHA (a small LRU); built from the database once.
        SnapshotNotFound if the snapshot was pruned since `ref` was resolved.
    read_blob(sha256: str) -> bytes
        A file's bytes by content hash: one raw query, then kept in a per-process LRU
        bounded in bytes (BLOB_CACHE_BYTES; content-addressed, so never stale).
        BlobNotFound if no such blob is stored.

    SnapshotIndex.visible(zdr_cleared: bool) -> VisibleIndex
        The ONLY way tools and resources reach skills: a caller not cleared for
        ZDR gets a view in which required_zdr skills do not exist at all.
"""

import copy
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import InitVar, dataclass, field
from datetime import UTC, datetime

from django.db import connection
from django.utils.dateparse import parse_datetime

from catalog.config import RegistryConfig, config_from_dict
from catalog.models import Blob, SkillVersionFile, Snapshot, SnapshotSkill

# Indexes held per process: the active one, the one before it (requests still in flight
# across a publish) and a pinned revision or two. Each holds every skill's metadata and
# instructions, so the bound matters more than the hit rate.
INDEX_CACHE_SIZE = 3
_REVISION = re.compile(r"[0-9a-f]{7,40}")
_ITERATOR_CHUNK = 2000
# The same settings as mcpapi.jsonrpc's encoder (tests compare the wire bytes).
_METADATA_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


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

    def manifest(self) -> dict:
        return {
            "path": self.path,
            "size": self.size,
            "sha256": self.sha256,
            "media_type": self.media_type,
            "executable": self.executable,
        }


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
    instructions: InitVar[str]  # kept as UTF-8 (see the `instructions` property below)
    skill_md_sha256: str
    skill_md_size: int
    files: tuple[FileEntry, ...]  # sorted by path; SKILL.md is not one
    _files_by_path: dict[str, FileEntry] = field(init=False, repr=False, compare=False)
    _metadata_json: str | None = field(default=None, init=False, repr=False, compare=False)
    # Instructions are most of an index's memory: as UTF-8, 1 byte an ASCII character,
    # where a str holding a single em dash takes 2 bytes for every character (64 % of the
    # bench corpus's bodies). Decoded when read (skills_get; search decodes at build).
    _instructions_utf8: bytes = field(default=b"", init=False, repr=False)

    def __post_init__(self, instructions: str) -> None:
        object.__setattr__(self, "_files_by_path", {entry.path: entry for entry in self.files})
        object.__setattr__(self, "_instructions_utf8", instructions.encode("utf-8", "surrogatepass"))

    def metadata_json(self) -> str:
        """metadata() as compact JSON, UTF-8 characters kept (byte for byte what
        mcpapi.jsonrpc.dumps_text makes of it), encoded on first use and then kept, so a
        page of skills is a join of stored fragments."""
        encoded = self._metadata_json
        if encoded is None:
            encoded = _METADATA_ENCODER.encode(self.metadata())
            object.__setattr__(self, "_metadata_json", encoded)
        return encoded

    def metadata(self) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "version": self.version,
            "tags": list(self.tags),
            "keywords": list(self.keywords),
            "requires": list(self.requires),
            "required_zdr": self.required_zdr,
            "content_hash": self.content_hash,
        }

    def file(self, path: str) -> FileEntry | None:
        """The supporting file at exactly `path` (no normalisation), if the skill lists it."""
        return self._files_by_path.get(path)


def _instructions(self: SkillEntry) -> str:
    """The instructions (the body of SKILL.md)."""
    return self._instructions_utf8.decode("utf-8", "surrogatepass")


# Set after the dataclass is made, so that `instructions` stays an __init__ argument.
SkillEntry.instructions = property(_instructions)  # type: ignore[assignment,method-assign]


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


class SnapshotNotFound(LookupError):
    """The snapshot is not stored (pruned after its ref was resolved)."""


class BlobNotFound(LookupError):
    """No blob with that SHA-256 is stored."""


# Every /mcp request runs this first; a raw query skips the ORM's per-call query
# compilation, which cost 20 times the query itself (py-spy under gunicorn).
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


def find_snapshot(revision: str) -> SnapshotRef | None:
    """A stored, published snapshot by full SHA or unique prefix of >= 7 lowercase hex chars;
    None when malformed, unknown or ambiguous."""
    if not isinstance(revision, str) or not _REVISION.fullmatch(revision):
        return None
    published = Snapshot.objects.filter(published_at__isnull=False)
    if len(revision) == 40:
        matches = published.filter(sha=revision)
    else:
        matches = published.filter(sha__startswith=revision)
    rows = list(matches.values_list("sha", "published_at")[:2])
    if len(rows) != 1:
        return None
    return SnapshotRef(sha=rows[0][0], published_at=rows[0][1])


_cache: OrderedDict[str, SnapshotIndex] = OrderedDict()
_cache_lock = threading.Lock()
# One build per SHA at a time: concurrent first requests wait for it instead of each
# building (and holding) their own copy; cache hits never wait behind a build.
_build_locks: dict[str, threading.Lock] = {}


def load_index(ref: SnapshotRef) -> SnapshotIndex:
    while True:
        with _cache_lock:
            index = _cache.get(ref.sha)
            if index is not None:
                _cache.move_to_end(ref.sha)
                if index.ref != ref:
                    # Same content, another activation time (a rollback re-activated it).
                    index = index.with_ref(ref)
                    _cache[ref.sha] = index
                return index
            build_lock = _build_locks.setdefault(ref.sha, threading.Lock())
        with build_lock:
            with _cache_lock:
                built = ref.sha in _cache
            if built:
                continue
            try:
                index = _build_index(ref)
            finally:
                with _cache_lock:
                    _build_locks.pop(ref.sha, None)
            with _cache_lock:
                _cache[ref.sha] = index
                while len(_cache) > INDEX_CACHE_SIZE:
                    _cache.popitem(last=False)
            return index


def clear_index_cache() -> None:
    """Forget every cached index and blob (tests; a process serving requests never needs it)."""
    global _blob_cache_bytes
    with _cache_lock:
        _cache.clear()
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
