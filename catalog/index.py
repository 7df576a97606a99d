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
    read_blob(sha256: str) -> bytes
        A file's bytes by content hash (one query; not cached in the index).

    SnapshotIndex.visible(zdr_cleared: bool) -> VisibleIndex
        The ONLY way tools and resources reach skills: a caller not cleared for
        ZDR gets a view in which required_zdr skills do not exist at all.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from catalog.config import RegistryConfig


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
    instructions: str
    skill_md_sha256: str
    skill_md_size: int
    files: tuple[FileEntry, ...]  # sorted by path; SKILL.md is not one
    _files_by_path: dict[str, FileEntry] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_files_by_path", {entry.path: entry for entry in self.files})

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


def active_snapshot() -> SnapshotRef | None:
    raise NotImplementedError


def find_snapshot(revision: str) -> SnapshotRef | None:
    raise NotImplementedError


def load_index(ref: SnapshotRef) -> SnapshotIndex:
    raise NotImplementedError


def read_blob(sha256: str) -> bytes:
    raise NotImplementedError
