"""Snapshots of the skills repository, content-addressed (docs/reference.md#commands).

A snapshot is one published commit. Its skills are SkillVersion rows shared by
every snapshot that holds the same content (keyed by the skill's content hash),
and file bytes are Blob rows shared by everything with the same SHA-256. So a
one-skill change on top of 10,000 skills stores one SkillVersion, its new blobs
and 10,000 small SnapshotSkill rows.

Rows are written only by publish (catalog.storage, catalog.publishing) and prune
(catalog.snapshots), in one transaction under the publish lock; everything else only
reads them.
"""

from django.db import models
from django.db.models import Q

SHA256_HEX_LENGTH = 64
GIT_SHA_LENGTH = 40


class Blob(models.Model):
    """A file's bytes, stored once per SHA-256 across all snapshots."""

    sha256 = models.CharField(primary_key=True, max_length=SHA256_HEX_LENGTH)
    size = models.PositiveIntegerField()
    data = models.BinaryField()

    def __str__(self) -> str:
        return f"blob {self.sha256} ({self.size} bytes)"


class SkillVersion(models.Model):
    """One distinct skill content. The content hash covers SKILL.md's bytes and every
    supporting file's path and SHA-256, so an equal hash means an identical skill."""

    content_hash = models.CharField(max_length=SHA256_HEX_LENGTH, unique=True)
    skill_id = models.CharField(max_length=64)
    name = models.CharField(max_length=100)
    description = models.TextField()
    version = models.TextField()  # SemVer puts no bound on pre-release/build parts
    tags = models.JSONField(default=list)
    keywords = models.JSONField(default=list)
    requires = models.JSONField(default=list)
    required_zdr = models.BooleanField(default=False)
    instructions = models.TextField()
    skill_md = models.ForeignKey(Blob, on_delete=models.PROTECT, related_name="skill_versions")

    def __str__(self) -> str:
        return f"{self.skill_id} {self.version} ({self.content_hash[:12]})"


class SkillVersionFile(models.Model):
    """A supporting file of a skill version (SKILL.md is not one)."""

    skill_version = models.ForeignKey(SkillVersion, on_delete=models.CASCADE, related_name="files")
    path = models.TextField()  # relative to the skill directory
    size = models.PositiveIntegerField()
    blob = models.ForeignKey(Blob, on_delete=models.PROTECT, related_name="skill_files")
    media_type = models.CharField(max_length=100)
    executable = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["skill_version", "path"], name="catalog_file_unique_path"),
        ]

    def __str__(self) -> str:
        return f"{self.path} ({self.blob_id})"


class Snapshot(models.Model):
    """One published commit of the skills repository. At most one is active."""

    sha = models.CharField(max_length=GIT_SHA_LENGTH, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The time of the latest activation (a rollback moves it); null only before the first.
    published_at = models.DateTimeField(null=True, blank=True)
    is_active = models.BooleanField(default=False)
    # Who or what activated it last: $GITHUB_ACTOR, user@host, ...
    published_by = models.CharField(max_length=200, blank=True)
    skill_count = models.PositiveIntegerField()
    file_count = models.PositiveIntegerField()  # every stored file, SKILL.md included
    total_bytes = models.PositiveBigIntegerField()  # the sizes of those files
    # registry.config.json at this commit: it governs serving this snapshot.
    config = models.JSONField()
    # catalog.fingerprint.rules_fingerprint() of the code that validated it ("" if unknown): a
    # later publish reuses its verdict on unchanged skills only under the very same rules.
    rules_fingerprint = models.CharField(max_length=SHA256_HEX_LENGTH, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["is_active"], condition=Q(is_active=True), name="catalog_one_active_snapshot"
            ),
        ]

    def __str__(self) -> str:
        return f"snapshot {self.sha}{' (active)' if self.is_active else ''}"


class SnapshotSkill(models.Model):
    """A snapshot holds a skill version under its id."""

    snapshot = models.ForeignKey(Snapshot, on_delete=models.CASCADE, related_name="skills")
    skill_version = models.ForeignKey(SkillVersion, on_delete=models.PROTECT, related_name="snapshot_skills")
    # Denormalised from the version so that "one skill per id per snapshot" is a constraint.
    skill_id = models.CharField(max_length=64)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["snapshot", "skill_id"], name="catalog_snapshot_unique_skill"),
        ]

    def __str__(self) -> str:
        return f"{self.skill_id} in {self.snapshot_id}"
