"""The catalog tables read directly (no Django in this process), for tests that kill and
race publishes: which snapshots exist, which one is active, and everything wrong."""

import hashlib
from collections import defaultdict

from catalog.hashing import content_hash
from tests.support.databases import query


def snapshots(url: str) -> dict[str, bool]:
    """sha -> is_active of every stored snapshot."""
    return {sha: bool(active) for sha, active in query(url, "SELECT sha, is_active FROM catalog_snapshot")}


def active_sha(url: str) -> str | None:
    rows = [sha for sha, active in snapshots(url).items() if active]
    assert len(rows) <= 1, f"several active snapshots: {rows}"
    return rows[0] if rows else None


def integrity_problems(url: str) -> list[str]:
    """Everything wrong with the catalog tables; [] for a consistent database.

    At most one active snapshot; every snapshot's skill rows point at stored versions of
    the same id; every version's SKILL.md and files point at stored blobs of the same
    size; every blob's bytes have its SHA-256 and size; every version's content hash is
    its content's; every snapshot's counters are its rows'.
    """
    problems: list[str] = []
    active = query(url, "SELECT sha FROM catalog_snapshot WHERE is_active")
    if len(active) > 1:
        problems.append(f"{len(active)} active snapshots")

    blobs: dict[str, int] = {}
    for sha256, size, data in query(url, "SELECT sha256, size, data FROM catalog_blob"):
        data = bytes(data)
        blobs[sha256] = size
        if len(data) != size or hashlib.sha256(data).hexdigest() != sha256:
            problems.append(f"blob {sha256}: its bytes do not match its size or SHA-256")

    versions = {
        vid: (skill_id, skill_md, chash)
        for vid, skill_id, skill_md, chash in query(
            url, "SELECT id, skill_id, skill_md_id, content_hash FROM catalog_skillversion"
        )
    }
    files: dict[int, list[tuple[str, str, int]]] = defaultdict(list)
    for vid, path, size, blob in query(
        url, "SELECT skill_version_id, path, size, blob_id FROM catalog_skillversionfile"
    ):
        files[vid].append((path, blob, size))
        if vid not in versions:
            problems.append(f"file {path} of a missing skill version {vid}")
        if blobs.get(blob) != size:
            problems.append(f"file {path} of version {vid}: blob {blob} missing or of another size")
    skill_md_bytes = dict(
        query(
            url,
            "SELECT v.id, b.data FROM catalog_skillversion v JOIN catalog_blob b ON b.sha256 = v.skill_md_id",
        )
    )
    for vid, (skill_id, skill_md, chash) in versions.items():
        if skill_md not in blobs:
            problems.append(f"{skill_id} version {vid}: SKILL.md blob {skill_md} missing")
            continue
        listed = [(path, blob) for path, blob, _size in files[vid]]
        if content_hash(bytes(skill_md_bytes[vid]), listed) != chash:
            problems.append(f"{skill_id} version {vid}: content hash does not match its content")

    counts: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])  # skills, files, bytes
    for snap_id, vid, skill_id in query(
        url, "SELECT snapshot_id, skill_version_id, skill_id FROM catalog_snapshotskill"
    ):
        version = versions.get(vid)
        if version is None:
            problems.append(f"snapshot {snap_id}: {skill_id} points at a missing skill version {vid}")
            continue
        if version[0] != skill_id:
            problems.append(f"snapshot {snap_id}: {skill_id} points at a version of {version[0]}")
        counts[snap_id][0] += 1
        counts[snap_id][1] += 1 + len(files[vid])
        counts[snap_id][2] += blobs.get(version[1], 0) + sum(size for _p, _b, size in files[vid])
    snapshot_ids = set()
    for snap_id, sha, skill_count, file_count, total_bytes in query(
        url, "SELECT id, sha, skill_count, file_count, total_bytes FROM catalog_snapshot"
    ):
        snapshot_ids.add(snap_id)
        if counts[snap_id] != [skill_count, file_count, total_bytes]:
            problems.append(
                f"snapshot {sha}: rows {counts[snap_id]} != counters {[skill_count, file_count, total_bytes]}"
            )
    orphans = set(counts) - snapshot_ids
    if orphans:
        problems.append(f"skill rows of missing snapshots {sorted(orphans)}")
    return problems
