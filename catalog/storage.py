"""Writing a validated snapshot's rows in bounded batches, inside the publish transaction.

Storage is content-addressed: a skill whose content hash is already stored is not read
again, and a file whose SHA-256 is already stored is not stored twice, so a one-skill
change on top of thousands of skills writes one SkillVersion, its new blobs and one
small SnapshotSkill row per skill.
"""

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any, TypeVar

from catalog import checkpoints
from catalog.errors import PublishError
from catalog.frontmatter_json import encode
from catalog.hashing import sha256_hex
from catalog.models import Blob, SkillVersion, SkillVersionFile, Snapshot, SnapshotSkill
from catalog.report import OmittedFile, ValidatedSkill, ValidationReport
from catalog.skill import FIELD_TYPES, SkillMetadata

if TYPE_CHECKING:
    # A name for annotations only: catalog.trees loads GitPython (2.7 MB of a serving worker's
    # RSS, which reads omitted_from_row from here and never a tree; docs/benchmarks.md, "Every
    # cache full, session 5"). Publishing imports catalog.trees itself.
    from catalog.trees import Tree

# `__in` lists stay well under SQLite's 999 bound variables.
IN_CHUNK = 500
_INSERT_BATCH = 1000
# Blob bytes held in memory at once while storing: bounded, whatever the repository's size.
_BLOB_BATCH_BYTES = 8 * 1024 * 1024

T = TypeVar("T")

# Each SkillMetadata field and the SkillVersion column that stores it. `path` is where the
# skill sits in one commit, so it is the snapshot's (SnapshotSkill.path), not the content's.
VERSION_COLUMNS: dict[str, str] = {
    name: "skill_id" if name == "id" else name for name in FIELD_TYPES if name != "path"
}


def metadata_columns(prefix: str = "") -> list[str]:
    """The lookups that read a SkillMetadata's stored columns (through `prefix`, e.g.
    "skill_version__"), in the order metadata_from_row expects them."""
    return [prefix + column for column in VERSION_COLUMNS.values()]


def metadata_from_row(values: Sequence[Any], path: str) -> SkillMetadata:
    return SkillMetadata.from_values({**dict(zip(VERSION_COLUMNS, values, strict=True)), "path": path})


def omitted_to_row(omitted: Iterable[OmittedFile]) -> list[dict[str, str]]:
    return [{"path": entry.path, "reason": entry.reason} for entry in omitted]


def omitted_from_row(value: Iterable[dict[str, str]]) -> tuple[OmittedFile, ...]:
    return tuple(OmittedFile(entry["path"], entry["reason"]) for entry in value)


@dataclass(frozen=True, slots=True)
class ReusedSkill:
    """A skill of the active snapshot that the new commit holds unchanged (catalog.reuse):
    the new snapshot points at its stored SkillVersion, at the same path."""

    skill_id: str
    version_id: int
    file_count: int  # SKILL.md included, as Snapshot.file_count counts
    total_bytes: int
    omitted: tuple[OmittedFile, ...] = ()


@dataclass(slots=True)
class StoreCounts:
    new_skill_versions: int = 0
    new_blobs: int = 0
    new_blob_bytes: int = 0
    version_ids: dict[str, int] = field(default_factory=dict)  # content hash -> SkillVersion id


def store_snapshot(
    tree: "Tree", report: ValidationReport, sha: str, reused: dict[str, ReusedSkill], fingerprint: str
) -> tuple[int, StoreCounts]:
    """Insert what is missing (blobs, skill versions and their files), then the inactive
    snapshot and its skill rows; returns the new snapshot's id.

    The skills of report.known_valid (by path) keep the SkillVersion of `reused`; they are
    still referenced by the active snapshot (checked unchanged under the lock), so no prune
    can have removed them."""
    # A report without a config always holds its problem, and no report with errors is stored.
    assert report.config is not None
    kept = [(path, reused[path]) for path in report.known_valid]
    counts = StoreCounts()
    counts.version_ids = _existing_version_ids([skill.content_hash for skill in report.skills])
    new_skills = [skill for skill in report.skills if skill.content_hash not in counts.version_ids]

    _store_blobs(tree, new_skills, counts)
    checkpoints.reached("blobs")

    if new_skills:
        SkillVersion.objects.bulk_create(
            (_skill_version_row(skill) for skill in new_skills), batch_size=_INSERT_BATCH
        )
        counts.new_skill_versions = len(new_skills)
        counts.version_ids.update(_existing_version_ids([skill.content_hash for skill in new_skills]))
        SkillVersionFile.objects.bulk_create(
            (
                SkillVersionFile(
                    skill_version_id=counts.version_ids[skill.content_hash],
                    path=entry.path,
                    size=entry.size,
                    blob_id=entry.sha256,
                    media_type=entry.media_type,
                    executable=entry.executable,
                )
                for skill in new_skills
                for entry in skill.files
            ),
            batch_size=_INSERT_BATCH,
        )

    snapshot = Snapshot.objects.create(
        sha=sha,
        is_active=False,
        skill_count=len(report.skills) + len(kept),
        file_count=sum(1 + len(skill.files) for skill in report.skills)
        + sum(skill.file_count for _, skill in kept),
        total_bytes=sum(skill.skill_md_size + sum(f.size for f in skill.files) for skill in report.skills)
        + sum(skill.total_bytes for _, skill in kept),
        config=report.config.to_dict(),
        rules_fingerprint=fingerprint,
    )
    # In id order, validated and reused together: the same rows, in the same order, as a
    # full validation would insert.
    rows = sorted(
        [
            (skill.id, counts.version_ids[skill.content_hash], skill.metadata.path, skill.omitted)
            for skill in report.skills
        ]
        + [(skill.skill_id, skill.version_id, path, skill.omitted) for path, skill in kept],
        key=lambda row: row[0],
    )
    SnapshotSkill.objects.bulk_create(
        (
            SnapshotSkill(
                snapshot_id=snapshot.id,
                skill_version_id=version_id,
                skill_id=skill_id,
                path=path,
                omitted=omitted_to_row(omitted),
            )
            for skill_id, version_id, path, omitted in rows
        ),
        batch_size=_INSERT_BATCH,
    )
    checkpoints.reached("skills")
    return snapshot.id, counts


def chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def _skill_version_row(skill: ValidatedSkill) -> SkillVersion:
    values = skill.metadata.to_values()
    return SkillVersion(
        content_hash=skill.content_hash,
        instructions=skill.instructions,
        frontmatter=encode(skill.frontmatter),
        skill_md_id=skill.skill_md_sha256,
        **{column: values[name] for name, column in VERSION_COLUMNS.items()},
    )


def _existing_version_ids(content_hashes: Sequence[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for chunk in chunks(content_hashes, IN_CHUNK):
        found.update(SkillVersion.objects.filter(content_hash__in=chunk).values_list("content_hash", "id"))
    return found


def _store_blobs(tree: "Tree", skills: Sequence[ValidatedSkill], counts: StoreCounts) -> None:
    """Store every file of `skills` whose SHA-256 is not stored yet, reading only those
    bytes again from the tree, a bounded batch at a time."""
    wanted: dict[str, tuple[str, int]] = {}  # sha256 -> (repository path, size)
    for skill in skills:
        wanted.setdefault(skill.skill_md_sha256, (skill.skill_md_source, skill.skill_md_size))
        for entry in skill.files:
            wanted.setdefault(entry.sha256, (entry.source, entry.size))
    stored: set[str] = set()
    for chunk in chunks(list(wanted), IN_CHUNK):
        stored.update(Blob.objects.filter(sha256__in=chunk).values_list("sha256", flat=True))

    batch: list[Blob] = []
    batch_bytes = 0
    for sha256, (source, size) in wanted.items():
        if sha256 in stored:
            continue
        batch.append(Blob(sha256=sha256, size=size, data=_read_exact(tree, source, size, sha256)))
        batch_bytes += size
        counts.new_blobs += 1
        counts.new_blob_bytes += size
        if batch_bytes >= _BLOB_BATCH_BYTES or len(batch) >= _INSERT_BATCH:
            Blob.objects.bulk_create(batch)
            batch, batch_bytes = [], 0
    if batch:
        Blob.objects.bulk_create(batch)


def _read_exact(tree: "Tree", path: str, size: int, sha256: str) -> bytes:
    data = tree.read(path, size)
    # Git objects do not change, so a mismatch means the validator and the store disagree:
    # refuse rather than store bytes under a hash they do not have.
    if data is None or len(data) != size or sha256_hex(data) != sha256:
        raise PublishError(f"{path}: its bytes changed between validation and storage")
    return data
