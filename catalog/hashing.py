"""The content hash of a skill (docs/reference.md#validation): SHA-256 over its SKILL.md
bytes and each supporting file's path and SHA-256, in path order. Stored in snapshots and
compared across revisions, so its byte layout must never change."""

import hashlib
from collections.abc import Iterable


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def content_hash(skill_md: bytes, files: Iterable[tuple[str, str]]) -> str:
    """`files` yields (path relative to the skill directory, sha256 hex) pairs."""
    digest = hashlib.sha256()
    digest.update(b"SKILL.md\0%d\0" % len(skill_md))
    digest.update(skill_md)
    for path, file_sha in sorted(files):
        digest.update(b"\0" + path.encode("utf-8") + b"\0" + file_sha.encode("ascii"))
    return digest.hexdigest()
