"""What one snapshot's index holds in memory: its ref, each skill's entry and file manifest,
and the skills each clearance may see.

    SnapshotIndex(ref, config, skills)
        Every skill of one snapshot, sorted by id; `visible(zdr_cleared)` is the only way to
        them, so a caller not cleared for ZDR is handed a set in which required_zdr skills
        do not exist at all.

The index is built from the database by catalog.index, which also holds it per process.
"""

import copy
from collections.abc import Iterable
from dataclasses import InitVar, dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

import lz4.block  # type: ignore[import-untyped]

from catalog.config import RegistryConfig
from catalog.report import OmittedFile
from catalog.textwords import fold_stable

# Instructions are most of an index's memory: 27.8 MB of UTF-8 at 10,000 skills of the bench
# corpus, 19.7 MB packed with LZ4 (its fast mode), unpacked in ~3 us each: every search hit's
# excerpt reads one, 20 a page. zlib packs them in 13.5 MB but unpacks in ~17 us, +0.3 ms a cold
# search page (docs/benchmarks.md, "Memory, session 4").
# Up to this many files a skill's file() is a scan of its manifest; past it, a dict by path
# (at 10,000 skills the dicts of every skill were 1.5 MB, for skills of 0-4 files).
FILES_SCANNED = 8


@dataclass(frozen=True, slots=True)
class SnapshotRef:
    """A stored snapshot by its commit SHA, and when it was (last) made active: what an
    answer names as the revision it came from."""

    sha: str
    published_at: datetime


@dataclass(frozen=True, slots=True)
class FileEntry:
    """One supporting file of a skill, as its manifest lists it; the bytes are a blob."""

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
    version: str | None  # None: an open-dialect skill without a version
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
        instructions: InitVar[str]  # kept as LZ4-packed UTF-8 in _instructions_packed
    skill_md_sha256: str
    skill_md_size: int
    files: tuple[FileEntry, ...]  # sorted by path; SKILL.md is not one
    # Where the skill sits in this snapshot's commit, relative to the repository root.
    path: str = ""
    # The whole frontmatter as written, as the compact JSON text stored at publish (its keys
    # in the order written: docs/reference.md#skill-format).
    frontmatter: str = "{}"
    omitted: tuple[OmittedFile, ...] = ()  # the files of its directory it does not serve, by path
    # None for a manifest of at most FILES_SCANNED files (scanned).
    _files_by_path: dict[str, FileEntry] | None = field(default=None, init=False, repr=False, compare=False)
    # Instructions as UTF-8 (1 byte an ASCII character, where a str holding a single em dash
    # takes 2 bytes for every character: 64 % of the bench corpus's bodies), packed with LZ4.
    # Unpacked when read (skills_get, excerpts; search at build).
    _instructions_packed: bytes = field(default=b"", init=False, repr=False)
    # Whether case folding the instructions only lower-cases their ASCII letters
    # (textwords.fold_stable): an excerpt is then found in their UTF-8 as kept, undecoded
    # (docs/benchmarks.md, "Excerpts, session 5"). Derived from the instructions.
    instructions_fold_stable: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self, *init_vars: str) -> None:
        [instructions] = init_vars  # the one InitVar (a plain field to type checkers)
        if len(self.files) > FILES_SCANNED:
            object.__setattr__(self, "_files_by_path", {entry.path: entry for entry in self.files})
        packed = lz4.block.compress(instructions.encode("utf-8", "surrogatepass"))
        object.__setattr__(self, "_instructions_packed", packed)
        object.__setattr__(self, "instructions_fold_stable", fold_stable(instructions))

    def instructions_utf8(self) -> bytes:
        """The instructions as UTF-8 (lone surrogates kept, as "surrogatepass" writes them)."""
        data: bytes = lz4.block.decompress(self._instructions_packed)
        return data

    def file(self, path: str) -> FileEntry | None:
        """The supporting file at exactly `path` (no normalisation), if the skill lists it."""
        if self._files_by_path is not None:
            return self._files_by_path.get(path)
        for entry in self.files:
            if entry.path == path:
                return entry
        return None


def _instructions(self: SkillEntry) -> str:
    """The instructions (the body of SKILL.md)."""
    return self.instructions_utf8().decode("utf-8", "surrogatepass")


# Set after the dataclass is made, so that `instructions` stays an __init__ argument.
if not TYPE_CHECKING:  # type checkers already see a str attribute
    SkillEntry.instructions = property(_instructions)


def may_see(zdr_cleared: bool, skill: SkillEntry) -> bool:
    """Whether a caller of that clearance may see `skill` (docs/reference.md#callers-and-clearance)."""
    return zdr_cleared or not skill.required_zdr


class VisibleIndex:
    """The skills one caller may see, sorted by id. Hidden skills are simply absent.

    Both clearances' views of a snapshot share one dict of every skill by id (10,000 skills:
    ~0.3 MB each): get() answers only for a skill this view's clearance may see (may_see)."""

    __slots__ = ("_by_id", "_zdr_cleared", "skills")

    def __init__(
        self, skills: tuple[SkillEntry, ...], zdr_cleared: bool, by_id: dict[str, SkillEntry] | None = None
    ) -> None:
        """`skills`: those of the snapshot a caller of that clearance may see; `by_id`: every
        skill of the snapshot by id (made from `skills` when not given)."""
        self.skills = skills
        self._zdr_cleared = zdr_cleared
        self._by_id = {skill.id: skill for skill in skills} if by_id is None else by_id

    def get(self, skill_id: str) -> SkillEntry | None:
        skill = self._by_id.get(skill_id)
        return skill if skill is not None and may_see(self._zdr_cleared, skill) else None

    def __len__(self) -> int:
        return len(self.skills)


class SnapshotIndex:
    """Every skill of one snapshot, in memory; callers read through `visible()`."""

    def __init__(self, ref: SnapshotRef, config: RegistryConfig, skills: Iterable[SkillEntry]) -> None:
        self.ref = ref
        self.config = config
        ordered = tuple(sorted(skills, key=lambda skill: skill.id))
        self._everyone = VisibleIndex(ordered, True)
        uncleared = tuple(skill for skill in ordered if may_see(False, skill))
        # The same tuple when no skill is hidden (76 KB at 10,000 skills).
        self._uncleared = VisibleIndex(
            ordered if len(uncleared) == len(ordered) else uncleared, False, self._everyone._by_id
        )

    def visible(self, zdr_cleared: bool) -> VisibleIndex:
        return self._everyone if zdr_cleared else self._uncleared

    def with_ref(self, ref: SnapshotRef) -> "SnapshotIndex":
        """The same skills under another ref of the same SHA (re-activation moves published_at)."""
        clone = copy.copy(self)
        clone.ref = ref
        return clone
