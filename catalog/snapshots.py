"""The stored snapshots (docs/reference.md#commands): the active one, the listing, pruning."""

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Exists, F, OuterRef

from catalog.errors import PublishError
from catalog.locking import publish_lock
from catalog.models import Blob, SkillVersion, SkillVersionFile, Snapshot, SnapshotSkill
from catalog.storage import IN_CHUNK, chunks


@dataclass(frozen=True, slots=True)
class ActiveSnapshot:
    """The active row as seen at one moment; a publish compares it again under the lock."""

    id: int
    sha: str
    published_at: datetime | None


@dataclass(frozen=True, slots=True)
class StoredSnapshot:
    sha: str
    published_at: datetime | None
    is_active: bool
    skill_count: int
    published_by: str

    def line(self, first_word: str) -> str:
        """`<first_word> <sha> <published_at> <N> skills`, as the commands print it."""
        # Never-activated snapshots cannot exist (store and activate are one transaction).
        when = self.published_at.isoformat() if self.published_at else "-"
        return f"{first_word} {self.sha} {when} {self.skill_count} skills"


@dataclass(frozen=True, slots=True)
class PruneResult:
    kept: list[StoredSnapshot]
    removed: list[StoredSnapshot]
    removed_skill_versions: int = 0
    removed_blobs: int = 0
    removed_blob_bytes: int = 0
    dry_run: bool = False

    def lines(self) -> list[str]:
        """What prune_snapshots prints: each removed snapshot, then the totals."""
        verb = "Would remove" if self.dry_run else "Removed"
        return [snapshot.line(verb) for snapshot in self.removed] + [
            f"{verb} {len(self.removed)} snapshots, {self.removed_skill_versions} skill versions, "
            f"{self.removed_blobs} blobs ({self.removed_blob_bytes} bytes); "
            f"kept {len(self.kept)} snapshots."
        ]


def read_active() -> ActiveSnapshot | None:
    row = Snapshot.objects.filter(is_active=True).values_list("id", "sha", "published_at").first()
    return ActiveSnapshot(*row) if row else None


def stored_snapshots() -> list[StoredSnapshot]:
    """Every stored snapshot, most recently activated first."""
    rows = Snapshot.objects.order_by(
        F("published_at").desc(nulls_last=True), "-created_at", "-id"
    ).values_list("sha", "published_at", "is_active", "skill_count", "published_by")
    return [StoredSnapshot(*row) for row in rows]


def snapshot_lines() -> list[str]:
    """What the snapshots command prints: one line per snapshot, `*` marking the active one."""
    return [snapshot.line("*" if snapshot.is_active else " ") for snapshot in stored_snapshots()]


def prune_snapshots(keep: int, *, dry_run: bool = False) -> PruneResult:
    """Keep the `keep` most recently activated snapshots (the active one always among
    them) and delete the rest, then the skill versions and blobs nothing references.

    One transaction under the publish lock, so a concurrent publish never sees a blob
    vanish between its "is it stored?" check and its insert. A dry run rolls back.
    """
    if keep < 1:
        raise PublishError("--keep must be at least 1: the active snapshot is always kept")
    with publish_lock():
        snapshots = stored_snapshots()
        active = [snap for snap in snapshots if snap.is_active]
        others = [snap for snap in snapshots if not snap.is_active]
        kept = active + others[: keep - len(active)]
        kept_shas = {snap.sha for snap in kept}
        removed = [snap for snap in snapshots if snap.sha not in kept_shas]
        for shas in chunks([snap.sha for snap in removed], IN_CHUNK):
            Snapshot.objects.filter(sha__in=shas).delete()

        orphan_versions = list(
            SkillVersion.objects.filter(
                ~Exists(SnapshotSkill.objects.filter(skill_version=OuterRef("pk")))
            ).values_list("id", flat=True)
        )
        for version_ids in chunks(orphan_versions, IN_CHUNK):
            SkillVersion.objects.filter(id__in=version_ids).only("id").delete()

        orphan_blobs = list(
            Blob.objects.filter(
                ~Exists(SkillVersionFile.objects.filter(blob=OuterRef("pk"))),
                ~Exists(SkillVersion.objects.filter(skill_md=OuterRef("pk"))),
            ).values_list("sha256", "size")
        )
        for blob_shas in chunks([sha256 for sha256, _size in orphan_blobs], IN_CHUNK):
            Blob.objects.filter(sha256__in=blob_shas).only("sha256").delete()

        if dry_run:
            transaction.set_rollback(True)
    return PruneResult(
        kept=kept,
        removed=removed,
        removed_skill_versions=len(orphan_versions),
        removed_blobs=len(orphan_blobs),
        removed_blob_bytes=sum(size for _sha, size in orphan_blobs),
        dry_run=dry_run,
    )
