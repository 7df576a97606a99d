"""The snapshot lifecycle (SPEC §4): publish a commit, list the stored snapshots, prune old ones.

publish(): resolve the revision, read that commit from git objects only, validate it
(the version rule against the active snapshot), then store and activate it in ONE
transaction under the publish lock. Any failure rolls the transaction back, so the
active snapshot is unchanged and no partial rows are ever visible.

Validation is incremental: a skill directory whose git tree id is the same as in the
active snapshot's commit, under the same registry.config.json blob and the same rules,
is not read again; its stored SkillVersion is reused as is (see _reusable_skills for
why that is sound). A first publish, a rollback, a config change, a change of the
validation code or an active commit missing from the repository validates everything.

Storage is content-addressed: a skill whose content hash is already stored is not
read again, and a file whose SHA-256 is already stored is not stored twice, so a
one-skill change on top of thousands of skills reads and writes one SkillVersion, its
new blobs and one small SnapshotSkill row per skill.

Concurrency: validation runs outside the lock (it is the slow part); inside the lock
the active snapshot is read again, and if another publish changed it meanwhile the
whole check is repeated against the new one (an older build then gets refused by the
descendant rule instead of overwriting a newer one).
"""

import dataclasses
import enum
import getpass
import logging
import os
import socket
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from itertools import islice
from typing import TypeVar

import git
from django.conf import settings
from django.db import OperationalError, connection, transaction
from django.db.models import Count, Exists, F, OuterRef, Sum
from django.utils import timezone
from gitdb.exc import BadName, BadObject

from catalog.config import CONFIG_FILENAME, MAX_CONFIG_BYTES, ConfigError, parse_config
from catalog.hashing import sha256_hex
from catalog.models import Blob, SkillVersion, SkillVersionFile, Snapshot, SnapshotSkill
from catalog.trees import EntryKind, GitTree, Tree, TreeEntry, TreeError, open_repo, resolve_commit
from catalog.validation import (
    BaseSkill,
    ValidatedSkill,
    ValidationReport,
    rules_fingerprint,
    validate_tree,
)

# Crash tests stop a publish at a named point of the store phase: with
# SKILLS_PUBLISH_PAUSE_AT=<name> the process prints PAUSE_MARKER + name to stderr
# and sleeps SKILLS_PUBLISH_PAUSE_SECONDS (default 60) there. Names: "blobs" (blobs
# written), "skills" (versions, snapshot and its skills written), "activate" (just
# before the active flag moves).
PAUSE_AT_ENV = "SKILLS_PUBLISH_PAUSE_AT"
PAUSE_SECONDS_ENV = "SKILLS_PUBLISH_PAUSE_SECONDS"
PAUSE_MARKER = "SKILLS_PUBLISH_PAUSED_AT="

# Any constant shared by every process of this project; "skills" in ASCII.
_PG_LOCK_KEY = 0x736B696C6C73
# `__in` lists stay well under SQLite's 999 bound variables.
_IN_CHUNK = 500
_INSERT_BATCH = 1000
# Blob bytes held in memory at once while storing: bounded, whatever the repository's size.
_BLOB_BATCH_BYTES = 8 * 1024 * 1024
# Each attempt follows a publish that won the race; more than a few means something is wrong.
_MAX_ATTEMPTS = 5

T = TypeVar("T")
logger = logging.getLogger(__name__)


class PublishError(Exception):
    """A publish or prune was refused; the message says why (the active snapshot is unchanged)."""


class Outcome(enum.Enum):
    PUBLISHED = "published"  # stored and activated
    REACTIVATED = "reactivated"  # already stored, activated again
    ALREADY_ACTIVE = "already_active"  # nothing to do


@dataclass(frozen=True, slots=True)
class PublishResult:
    sha: str
    outcome: Outcome
    skill_count: int
    published_at: datetime
    previous_sha: str | None  # the snapshot active before this one, if any
    rollback: bool = False
    new_skill_versions: int = 0
    new_blobs: int = 0
    new_blob_bytes: int = 0
    reused_skills: int = 0  # unchanged since the active snapshot: taken from it, not read again
    elapsed_seconds: float = 0.0
    validate_seconds: float = 0.0  # reading and validating the commit, outside the lock
    store_seconds: float = 0.0  # waiting for the lock, storing and activating

    def summary(self) -> str:
        if self.outcome is Outcome.ALREADY_ACTIVE:
            return f"Already active: {self.sha}"
        took = f"in {self.elapsed_seconds:.1f}s"
        was = f"previously active: {self.previous_sha}" if self.previous_sha else "first snapshot"
        if self.outcome is Outcome.REACTIVATED:
            verb = "Rolled back to" if self.rollback else "Reactivated"
            return f"{verb} {self.sha}: {self.skill_count} skills ({was}) {took}"
        return (
            f"Published {self.sha}: {self.skill_count} skills ({self.new_skill_versions} new skill versions, "
            f"{self.new_blobs} new blobs, {self.new_blob_bytes} bytes; {was}) {took}"
        )


@dataclass(frozen=True, slots=True)
class StoredSnapshot:
    sha: str
    published_at: datetime | None
    is_active: bool
    skill_count: int
    published_by: str


@dataclass(frozen=True, slots=True)
class PruneResult:
    kept: list[StoredSnapshot]
    removed: list[StoredSnapshot]
    removed_skill_versions: int = 0
    removed_blobs: int = 0
    removed_blob_bytes: int = 0
    dry_run: bool = False


@dataclass(frozen=True, slots=True)
class _Active:
    """The active row as seen at one moment; compared again under the lock."""

    id: int
    sha: str
    published_at: datetime | None


class _StateChanged(Exception):
    """Another publish or prune changed what this one checked against: check again."""


@dataclass(frozen=True, slots=True)
class _ActiveSkill:
    """A skill of the active snapshot, as stored."""

    version_id: int
    content_hash: str
    version: str
    skill_md_size: int


@dataclass(frozen=True, slots=True)
class _ReusedSkill:
    """A skill of the active snapshot that the new commit holds unchanged."""

    version_id: int
    file_count: int  # SKILL.md included, as Snapshot.file_count counts
    total_bytes: int


@dataclass(slots=True)
class _StoreCounts:
    new_skill_versions: int = 0
    new_blobs: int = 0
    new_blob_bytes: int = 0
    version_ids: dict[str, int] = field(default_factory=dict)  # content hash -> SkillVersion id


# --- publish -------------------------------------------------------------------------------


def publish(
    repo_path: str | os.PathLike[str], rev: str, *, rollback: bool = False, published_by: str | None = None
) -> PublishResult:
    """Validate commit `rev` of the repository at `repo_path` and make it the active snapshot.

    Raises PublishError on any refusal; the active snapshot is then unchanged.
    """
    started = time.monotonic()
    publisher = (published_by or default_publisher())[:200]
    try:
        repo = open_repo(repo_path)
    except TreeError as exc:
        raise PublishError(str(exc)) from None
    try:
        try:
            commit = resolve_commit(repo, rev)
        except TreeError as exc:
            raise PublishError(str(exc)) from None
        for _attempt in range(_MAX_ATTEMPTS):
            try:
                result = _attempt_publish(repo, commit, rollback=rollback, publisher=publisher)
            except _StateChanged:
                continue
            result = dataclasses.replace(result, elapsed_seconds=time.monotonic() - started)
            logger.info(
                "publish %s: %s, %d skills (%d unchanged, not read again), %d new skill versions, "
                "%d new blobs (%d bytes); validated in %.2fs, stored in %.2fs, %.2fs in all",
                result.sha,
                result.outcome.value,
                result.skill_count,
                result.reused_skills,
                result.new_skill_versions,
                result.new_blobs,
                result.new_blob_bytes,
                result.validate_seconds,
                result.store_seconds,
                result.elapsed_seconds,
            )
            return result
        raise PublishError(
            f"the active snapshot kept changing while validating {commit.hexsha} "
            f"(concurrent publishes); try again"
        )
    finally:
        repo.close()


def default_publisher() -> str:
    """Who publishes: the GitHub Actions actor in CI, else user@host."""
    actor = os.environ.get("GITHUB_ACTOR", "").strip()
    if actor:
        return actor
    try:
        return f"{getpass.getuser()}@{socket.gethostname()}"
    except (OSError, KeyError):  # no login name in a bare container
        return "publish command"


def _attempt_publish(repo: git.Repo, commit: git.Commit, *, rollback: bool, publisher: str) -> PublishResult:
    sha = commit.hexsha
    seen = _read_active()
    if seen is not None and seen.sha == sha:
        return _already_active(seen)
    if seen is not None and not rollback:
        _check_descendant(repo, seen.sha, sha)
    # The tree holds a `git cat-file` process: closed whatever happens.
    with GitTree(repo, commit) as tree:
        return _validate_and_store(tree, seen, rollback=rollback, publisher=publisher)


def _validate_and_store(
    tree: GitTree, seen: _Active | None, *, rollback: bool, publisher: str
) -> PublishResult:
    sha = tree.sha
    validate_started = time.monotonic()
    report: ValidationReport | None = None
    reused: dict[str, _ReusedSkill] = {}
    # A stored snapshot passed validation when it was stored; a rollback has no version
    # rule to apply, so it needs no second look. A forward move is checked like any publish.
    if not (rollback and Snapshot.objects.filter(sha=sha).exists()):
        base: dict[str, BaseSkill] | None = None
        if not rollback and seen is not None:
            active = _active_skills(seen.id)
            base = {sid: BaseSkill(skill.content_hash, skill.version) for sid, skill in active.items()}
            reused = _reusable_skills(tree, seen, active)
        report = _validate(tree, base, reused)
    store_started = time.monotonic()

    with publish_lock():
        current = _read_active()
        if current != seen:
            raise _StateChanged
        snapshot = Snapshot.objects.filter(sha=sha).first()
        if snapshot is not None:
            published_at = _activate(snapshot.id, publisher)
            return PublishResult(
                sha=sha,
                outcome=Outcome.REACTIVATED,
                skill_count=snapshot.skill_count,
                published_at=published_at,
                previous_sha=seen.sha if seen else None,
                rollback=rollback,
                reused_skills=len(report.known_valid) if report is not None else 0,
                validate_seconds=store_started - validate_started,
                store_seconds=time.monotonic() - store_started,
            )
        if report is None:
            raise _StateChanged  # pruned since we looked: validate it as a new snapshot
        snapshot_id, counts = _store(tree, report, sha, reused)
        published_at = _activate(snapshot_id, publisher)
    return PublishResult(
        sha=sha,
        outcome=Outcome.PUBLISHED,
        skill_count=len(report.skills) + len(report.known_valid),
        published_at=published_at,
        previous_sha=seen.sha if seen else None,
        rollback=rollback,
        new_skill_versions=counts.new_skill_versions,
        new_blobs=counts.new_blobs,
        new_blob_bytes=counts.new_blob_bytes,
        reused_skills=len(report.known_valid),
        validate_seconds=store_started - validate_started,
        store_seconds=time.monotonic() - store_started,
    )


def _read_active() -> _Active | None:
    row = Snapshot.objects.filter(is_active=True).values_list("id", "sha", "published_at").first()
    return _Active(*row) if row else None


def _already_active(active: _Active) -> PublishResult:
    snapshot = Snapshot.objects.values_list("skill_count", flat=True).get(id=active.id)
    return PublishResult(
        sha=active.sha,
        outcome=Outcome.ALREADY_ACTIVE,
        skill_count=snapshot,
        published_at=active.published_at or timezone.now(),
        previous_sha=active.sha,
    )


def _check_descendant(repo: git.Repo, active_sha: str, sha: str) -> None:
    """Refuse a commit that is not a descendant of the active one: an older build must
    never overwrite a newer one by accident (SPEC §4)."""
    hint = "pass --rollback to activate it anyway"
    try:
        repo.commit(active_sha)
    except (BadName, BadObject, ValueError):
        raise PublishError(
            f"the active snapshot {active_sha} is not a commit of this repository, so {sha} cannot be "
            f"shown to descend from it; {hint}"
        ) from None
    if repo.is_ancestor(active_sha, sha):
        return
    if repo.is_ancestor(sha, active_sha):
        raise PublishError(
            f"{sha} is an ancestor of the active snapshot {active_sha}: publishing it would roll the "
            f"registry back; {hint}"
        )
    raise PublishError(
        f"{sha} is not a descendant of the active snapshot {active_sha} (another branch?); {hint}"
    )


def _active_skills(snapshot_id: int) -> dict[str, _ActiveSkill]:
    rows = SnapshotSkill.objects.filter(snapshot_id=snapshot_id).values_list(
        "skill_id",
        "skill_version_id",
        "skill_version__content_hash",
        "skill_version__version",
        "skill_version__skill_md__size",
    )
    return {skill_id: _ActiveSkill(*row) for skill_id, *row in rows}


def _reusable_skills(
    tree: GitTree, seen: _Active, active: dict[str, _ActiveSkill]
) -> dict[str, _ReusedSkill]:
    """The skills of the active snapshot that `tree` holds unchanged, by id: validate_tree
    takes them as known valid, and the snapshot keeps their stored SkillVersion.

    Sound because a full validation of them would find nothing and pick the same rows:
    - the active snapshot was validated under the rules this process applies (same
      rules_fingerprint: by induction, every snapshot it reused from was too);
    - its commit is in this repository, and registry.config.json is the same blob (a
      regular file) in both commits: the same config governs both verdicts;
    - a skill directory with the same git tree id holds the same names, modes and bytes
      (git ids are hashes of exactly that), so every per-skill rule gives the same answer;
      SPEC's rules look at one skill directory and the config only, and the tree-wide
      ones (max_skills, stray entries) still run over the whole tree;
    - the active snapshot stored this commit's skill under that id (a snapshot holds only
      valid skills), so the same bytes give the same content hash: the version rule against
      the active snapshot has nothing to say, and the SkillVersion a full validation would
      look up by that hash is the very row the active snapshot points to.
    Anything else (a different config, other rules, an unknown commit) returns {}:
    every skill is then validated, as on a first publish.
    """
    fingerprint = rules_fingerprint()
    if not active or not fingerprint:
        return {}
    stored = Snapshot.objects.filter(id=seen.id).values_list("rules_fingerprint", flat=True).first()
    if stored != fingerprint:
        return {}
    try:
        before_commit = resolve_commit(tree.repo, seen.sha)
    except TreeError:
        return {}
    with GitTree(tree.repo, before_commit) as before:
        config_now, config_then = _root_entry(tree, CONFIG_FILENAME), _root_entry(before, CONFIG_FILENAME)
        if (
            config_now is None
            or config_then is None
            or config_now.kind is not EntryKind.FILE
            or (config_now.kind, config_now.oid) != (config_then.kind, config_then.oid)
        ):
            return {}
        raw = tree.read(CONFIG_FILENAME, MAX_CONFIG_BYTES)
        try:
            skills_dir = parse_config(raw or b"").skills_dir
        except ConfigError:
            return {}  # validation reports it
        now = _directory_ids(tree, skills_dir)
        then = _directory_ids(before, skills_dir)
    unchanged = [sid for sid, oid in now.items() if then.get(sid) == oid and sid in active]
    if not unchanged:
        return {}
    return _reused_rows(seen.id, {sid: active[sid] for sid in unchanged})


def _root_entry(tree: GitTree, path: str) -> TreeEntry | None:
    return next((entry for entry in tree.children("") if entry.path == path), None)


def _directory_ids(tree: GitTree, directory: str) -> dict[str, str]:
    """Name -> git tree id of each directory directly inside `directory`."""
    prefix = directory + "/"
    return {
        entry.path[len(prefix) :]: entry.oid
        for entry in tree.children(directory)
        if entry.kind is EntryKind.DIRECTORY and entry.oid
    }


def _reused_rows(snapshot_id: int, skills: dict[str, _ActiveSkill]) -> dict[str, _ReusedSkill]:
    """What the new snapshot's totals need of each reused skill, from the stored rows."""
    in_snapshot = SnapshotSkill.objects.filter(snapshot_id=snapshot_id).values("skill_version_id")
    files = {
        version_id: (count, size)
        for version_id, count, size in SkillVersionFile.objects.filter(skill_version_id__in=in_snapshot)
        .values("skill_version_id")
        .annotate(count=Count("id"), size=Sum("size"))
        .values_list("skill_version_id", "count", "size")
        .order_by()
    }
    result = {}
    for sid, skill in skills.items():
        count, size = files.get(skill.version_id, (0, 0))
        result[sid] = _ReusedSkill(skill.version_id, 1 + count, skill.skill_md_size + size)
    return result


def _validate(
    tree: Tree, base: dict[str, BaseSkill] | None, reused: dict[str, _ReusedSkill]
) -> ValidationReport:
    report = validate_tree(tree, base, known_valid=reused.keys())
    if report.problems:
        lines = [f"{problem.path}: {problem.message}" for problem in report.problems]
        count = len(lines)
        raise PublishError(
            f"{tree.label} is not valid ({count} problem{'s' if count != 1 else ''}):\n" + "\n".join(lines)
        )
    if report.config is None:  # the contract says a bad config is a problem; never store without one
        raise PublishError(f"{tree.label}: registry.config.json could not be read")
    return report


def _activate(snapshot_id: int, publisher: str) -> datetime:
    _checkpoint("activate")
    now = timezone.now()
    # Deactivate first: the partial unique constraint allows at most one active row at any moment.
    Snapshot.objects.filter(is_active=True).exclude(id=snapshot_id).update(is_active=False)
    Snapshot.objects.filter(id=snapshot_id).update(is_active=True, published_at=now, published_by=publisher)
    return now


# --- storing -------------------------------------------------------------------------------


def _store(
    tree: Tree, report: ValidationReport, sha: str, reused: dict[str, _ReusedSkill]
) -> tuple[int, _StoreCounts]:
    """Insert what is missing (blobs, skill versions and their files), then the snapshot and
    its skill rows. Runs inside the publish transaction; returns the new snapshot's id.

    The skills of report.known_valid keep the SkillVersion of `reused`; they are still
    referenced by the active snapshot (checked unchanged under the lock), so no prune
    can have removed them."""
    assert report.config is not None
    kept = [(sid, reused[sid]) for sid in report.known_valid]
    counts = _StoreCounts()
    counts.version_ids = _existing_version_ids([skill.content_hash for skill in report.skills])
    new_skills = [skill for skill in report.skills if skill.content_hash not in counts.version_ids]

    _store_blobs(tree, new_skills, counts)
    _checkpoint("blobs")

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
        rules_fingerprint=rules_fingerprint(),
    )
    # In id order, validated and reused together: the same rows, in the same order, as a
    # full validation would insert.
    rows = sorted(
        [(skill.id, counts.version_ids[skill.content_hash]) for skill in report.skills]
        + [(sid, skill.version_id) for sid, skill in kept]
    )
    SnapshotSkill.objects.bulk_create(
        (
            SnapshotSkill(snapshot_id=snapshot.id, skill_version_id=version_id, skill_id=skill_id)
            for skill_id, version_id in rows
        ),
        batch_size=_INSERT_BATCH,
    )
    _checkpoint("skills")
    return snapshot.id, counts


def _skill_version_row(skill: ValidatedSkill) -> SkillVersion:
    return SkillVersion(
        content_hash=skill.content_hash,
        skill_id=skill.id,
        name=skill.name,
        description=skill.description,
        version=skill.version,
        tags=list(skill.tags),
        keywords=list(skill.keywords),
        requires=list(skill.requires),
        required_zdr=skill.required_zdr,
        instructions=skill.instructions,
        skill_md_id=skill.skill_md_sha256,
    )


def _existing_version_ids(content_hashes: Sequence[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for chunk in _chunks(content_hashes, _IN_CHUNK):
        found.update(SkillVersion.objects.filter(content_hash__in=chunk).values_list("content_hash", "id"))
    return found


def _store_blobs(tree: Tree, skills: Sequence[ValidatedSkill], counts: _StoreCounts) -> None:
    """Store every file of `skills` whose SHA-256 is not stored yet, reading only those
    bytes again from the tree, a bounded batch at a time."""
    wanted: dict[str, tuple[str, int]] = {}  # sha256 -> (repository path, size)
    for skill in skills:
        wanted.setdefault(skill.skill_md_sha256, (skill.skill_md_source, skill.skill_md_size))
        for entry in skill.files:
            wanted.setdefault(entry.sha256, (entry.source, entry.size))
    stored: set[str] = set()
    for chunk in _chunks(list(wanted), _IN_CHUNK):
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


def _read_exact(tree: Tree, path: str, size: int, sha256: str) -> bytes:
    data = tree.read(path, size)
    # Git objects do not change, so a mismatch means the validator and the store disagree:
    # refuse rather than store bytes under a hash they do not have.
    if data is None or len(data) != size or sha256_hex(data) != sha256:
        raise PublishError(f"{path}: its bytes changed between validation and storage")
    return data


# --- the lock ------------------------------------------------------------------------------


@contextmanager
def publish_lock() -> Iterator[None]:
    """One transaction holding the publish lock: publishes and prunes run one at a time.

    PostgreSQL: a transaction-scoped advisory lock. SQLite: the IMMEDIATE transaction
    (settings) takes the database write lock at BEGIN. Either way a second publisher
    waits up to PUBLISH_LOCK_TIMEOUT_SECONDS, then is refused with PublishError.
    """
    timeout = settings.PUBLISH_LOCK_TIMEOUT_SECONDS
    locked = False
    with _sqlite_busy_timeout(timeout):
        try:
            with transaction.atomic():
                if connection.vendor == "postgresql":
                    _pg_advisory_lock(timeout)
                locked = True
                yield
        except OperationalError as exc:
            if locked or not _is_lock_timeout(exc):
                raise
            raise PublishError(
                f"another publish held the publish lock for more than {timeout:g}s "
                "(PUBLISH_LOCK_TIMEOUT_SECONDS); nothing was changed"
            ) from None


@contextmanager
def _sqlite_busy_timeout(seconds: float) -> Iterator[None]:
    """On SQLite, wait up to `seconds` for the write lock on this connection only, so
    serving keeps its own (short) busy timeout."""
    if connection.vendor != "sqlite":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA busy_timeout")
        previous = int(cursor.fetchone()[0])
        cursor.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA busy_timeout = {previous}")


def _pg_advisory_lock(seconds: float) -> None:
    with connection.cursor() as cursor:
        # lock_timeout 0 would mean "wait forever"; the smallest real wait is 1 ms.
        cursor.execute("SELECT set_config('lock_timeout', %s, true)", [f"{max(1, int(seconds * 1000))}ms"])
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_PG_LOCK_KEY])
        cursor.execute("SET LOCAL lock_timeout TO DEFAULT")


def _is_lock_timeout(exc: OperationalError) -> bool:
    if connection.vendor == "sqlite":
        return "locked" in str(exc)
    return getattr(exc.__cause__, "sqlstate", None) == "55P03"  # lock_not_available


def _checkpoint(name: str) -> None:
    """A named point of the store phase where a crash test can stop this process."""
    if os.environ.get(PAUSE_AT_ENV) != name:
        return
    print(f"{PAUSE_MARKER}{name}", file=sys.stderr, flush=True)
    time.sleep(float(os.environ.get(PAUSE_SECONDS_ENV) or 60))


# --- listing and pruning -------------------------------------------------------------------


def stored_snapshots() -> list[StoredSnapshot]:
    """Every stored snapshot, most recently activated first."""
    rows = Snapshot.objects.order_by(
        F("published_at").desc(nulls_last=True), "-created_at", "-id"
    ).values_list("sha", "published_at", "is_active", "skill_count", "published_by")
    return [StoredSnapshot(*row) for row in rows]


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
        for chunk in _chunks([snap.sha for snap in removed], _IN_CHUNK):
            Snapshot.objects.filter(sha__in=chunk).delete()

        orphan_versions = list(
            SkillVersion.objects.filter(
                ~Exists(SnapshotSkill.objects.filter(skill_version=OuterRef("pk")))
            ).values_list("id", flat=True)
        )
        for chunk in _chunks(orphan_versions, _IN_CHUNK):
            SkillVersion.objects.filter(id__in=chunk).only("id").delete()

        orphan_blobs = list(
            Blob.objects.filter(
                ~Exists(SkillVersionFile.objects.filter(blob=OuterRef("pk"))),
                ~Exists(SkillVersion.objects.filter(skill_md=OuterRef("pk"))),
            ).values_list("sha256", "size")
        )
        for chunk in _chunks([sha256 for sha256, _size in orphan_blobs], _IN_CHUNK):
            Blob.objects.filter(sha256__in=chunk).only("sha256").delete()

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


def _chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk
