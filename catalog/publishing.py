"""publish(): make one commit the active snapshot (docs/reference.md#commands).

Resolve the revision, read that commit from git objects only, validate it (the version
rule against the active snapshot), then store and activate it in ONE transaction under
the publish lock. Any failure rolls the transaction back, so the active snapshot is
unchanged and no partial rows are ever visible.

Validation is incremental: a skill unchanged since the active snapshot is not read
again (catalog.reuse says which, and why that is sound). A first publish, a rollback, a
config change, a change of the rules or an active commit missing from the repository
validates everything.

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
import time
from dataclasses import dataclass
from datetime import datetime

import git
from django.utils import timezone
from gitdb.exc import BadName, BadObject

from catalog import checkpoints
from catalog.errors import PublishError
from catalog.fingerprint import rules_fingerprint
from catalog.locking import publish_lock
from catalog.models import Snapshot
from catalog.report import BaseSkill, ValidationReport
from catalog.reuse import active_skills, reusable_skills
from catalog.snapshots import ActiveSnapshot, read_active
from catalog.storage import ReusedSkill, store_snapshot
from catalog.trees import GitTree, Tree, TreeError, open_repo, resolve_commit
from catalog.validation import validate_tree

# Each attempt follows a publish that won the race; more than a few means something is wrong.
_MAX_ATTEMPTS = 5

logger = logging.getLogger(__name__)


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


class _StateChanged(Exception):
    """Another publish or prune changed what this one checked against: check again."""


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
    seen = read_active()
    if seen is not None and seen.sha == sha:
        return _already_active(seen)
    if seen is not None and not rollback:
        _check_descendant(repo, seen.sha, sha)
    # The tree holds a `git cat-file` process: closed whatever happens.
    with GitTree(repo, commit) as tree:
        return _validate_and_store(tree, seen, rollback=rollback, publisher=publisher)


def _validate_and_store(
    tree: GitTree, seen: ActiveSnapshot | None, *, rollback: bool, publisher: str
) -> PublishResult:
    sha = tree.sha
    fingerprint = rules_fingerprint()
    validate_started = time.monotonic()
    report: ValidationReport | None = None
    reused: dict[str, ReusedSkill] = {}
    # A stored snapshot passed validation when it was stored; a rollback has no version
    # rule to apply, so it needs no second look. A forward move is checked like any publish.
    if not (rollback and Snapshot.objects.filter(sha=sha).exists()):
        base: dict[str, BaseSkill] | None = None
        if not rollback and seen is not None:
            active = active_skills(seen.id)
            base = {sid: BaseSkill(skill.content_hash, skill.version) for sid, skill in active.items()}
            reused = reusable_skills(tree, seen, active, fingerprint)
        report = _validate(tree, base, reused)
    store_started = time.monotonic()

    with publish_lock():
        current = read_active()
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
        snapshot_id, counts = store_snapshot(tree, report, sha, reused, fingerprint)
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


def _already_active(active: ActiveSnapshot) -> PublishResult:
    skill_count = Snapshot.objects.values_list("skill_count", flat=True).get(id=active.id)
    return PublishResult(
        sha=active.sha,
        outcome=Outcome.ALREADY_ACTIVE,
        skill_count=skill_count,
        published_at=active.published_at or timezone.now(),
        previous_sha=active.sha,
    )


def _check_descendant(repo: git.Repo, active_sha: str, sha: str) -> None:
    """Refuse a commit that is not a descendant of the active one: an older build must
    never overwrite a newer one by accident (docs/reference.md#commands)."""
    hint = "pass --rollback to activate it anyway"
    try:
        active = repo.commit(active_sha)
    except (BadName, BadObject, ValueError):
        raise PublishError(
            f"the active snapshot {active_sha} is not a commit of this repository, so {sha} cannot be "
            f"shown to descend from it; {hint}"
        ) from None
    new = repo.commit(sha)
    if repo.is_ancestor(active, new):
        return
    if repo.is_ancestor(new, active):
        raise PublishError(
            f"{sha} is an ancestor of the active snapshot {active_sha}: publishing it would roll the "
            f"registry back; {hint}"
        )
    raise PublishError(
        f"{sha} is not a descendant of the active snapshot {active_sha} (another branch?); {hint}"
    )


def _validate(
    tree: Tree, base: dict[str, BaseSkill] | None, reused: dict[str, ReusedSkill]
) -> ValidationReport:
    report = validate_tree(tree, base, known_valid=reused.keys())
    if report.problems:
        lines = [problem.line() for problem in report.problems]
        count = len(lines)
        raise PublishError(
            f"{tree.label} is not valid ({count} problem{'s' if count != 1 else ''}):\n" + "\n".join(lines)
        )
    return report


def _activate(snapshot_id: int, publisher: str) -> datetime:
    checkpoints.reached("activate")
    now = timezone.now()
    # Deactivate first: the partial unique constraint allows at most one active row at any moment.
    Snapshot.objects.filter(is_active=True).exclude(id=snapshot_id).update(is_active=False)
    Snapshot.objects.filter(id=snapshot_id).update(is_active=True, published_at=now, published_by=publisher)
    return now
