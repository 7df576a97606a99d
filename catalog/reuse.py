"""Which skills of the active snapshot a new commit holds unchanged, so that a publish
neither reads nor validates them again, and why that is sound (reusable_skills)."""

from dataclasses import dataclass

from django.db.models import Count, Sum

from catalog.config import CONFIG_FILENAME, MAX_CONFIG_BYTES, ConfigError, parse_config
from catalog.models import SkillVersionFile, Snapshot, SnapshotSkill
from catalog.snapshots import ActiveSnapshot
from catalog.storage import ReusedSkill
from catalog.trees import EntryKind, GitTree, TreeEntry, TreeError, resolve_commit


@dataclass(frozen=True, slots=True)
class ActiveSkill:
    """A skill of the active snapshot, as stored."""

    version_id: int
    content_hash: str
    version: str
    skill_md_size: int


def active_skills(snapshot_id: int) -> dict[str, ActiveSkill]:
    rows = SnapshotSkill.objects.filter(snapshot_id=snapshot_id).values_list(
        "skill_id",
        "skill_version_id",
        "skill_version__content_hash",
        "skill_version__version",
        "skill_version__skill_md__size",
    )
    return {
        skill_id: ActiveSkill(version_id, content_hash, version, skill_md_size)
        for skill_id, version_id, content_hash, version, skill_md_size in rows
    }


def reusable_skills(
    tree: GitTree, seen: ActiveSnapshot, active: dict[str, ActiveSkill], fingerprint: str
) -> dict[str, ReusedSkill]:
    """The skills of the active snapshot that `tree` holds unchanged, by id: validate_tree
    takes them as known valid, and the snapshot keeps their stored SkillVersion.

    Sound because a full validation of them would find nothing and pick the same rows:
    - the active snapshot was validated under the rules this process applies (the same
      `fingerprint`, catalog.fingerprint: by induction, every snapshot it reused from was too);
    - its commit is in this repository, and registry.config.json is the same blob (a
      regular file) in both commits: the same config governs both verdicts;
    - a skill directory with the same git tree id holds the same names, modes and bytes
      (git ids are hashes of exactly that), so every per-skill rule gives the same answer;
      the rules look at one skill directory and the config only, and the tree-wide ones
      (max_skills, stray entries) still run over the whole tree;
    - the active snapshot stored this commit's skill under that id (a snapshot holds only
      valid skills), so the same bytes give the same content hash: the version rule against
      the active snapshot has nothing to say, and the SkillVersion a full validation would
      look up by that hash is the very row the active snapshot points to.
    Anything else (a different config, other rules, an unknown commit) returns {}:
    every skill is then validated, as on a first publish.
    """
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


def _reused_rows(snapshot_id: int, skills: dict[str, ActiveSkill]) -> dict[str, ReusedSkill]:
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
        result[sid] = ReusedSkill(skill.version_id, 1 + count, skill.skill_md_size + size)
    return result
