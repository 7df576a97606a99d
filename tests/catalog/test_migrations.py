"""The migration to the open dialect fills in what rows stored before it lack: each snapshot
skill's path and each skill version's frontmatter as written."""

import hashlib
import json

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.support.skillmd import skill_md

BEFORE = [("catalog", "0002_snapshot_rules_fingerprint")]
AFTER = [("catalog", "0003_open_dialect")]


@pytest.mark.django_db(transaction=True)
def test_rows_stored_before_get_their_path_and_frontmatter() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    raw = skill_md("demo", tags=["docs"]).encode()
    blob = apps.get_model("catalog", "Blob").objects.create(
        sha256=hashlib.sha256(raw).hexdigest(), size=len(raw), data=raw
    )
    version = apps.get_model("catalog", "SkillVersion").objects.create(
        content_hash="a" * 64,
        skill_id="demo",
        name="Demo",
        description="How to demo.",
        version="1.0.0",
        tags=["docs"],
        instructions="Do the thing, step by step.\n",
        skill_md=blob,
    )
    snapshot = apps.get_model("catalog", "Snapshot").objects.create(
        sha="b" * 40, skill_count=1, file_count=1, total_bytes=len(raw), config={"skills_dir": "team-skills"}
    )
    apps.get_model("catalog", "SnapshotSkill").objects.create(
        snapshot=snapshot, skill_version=version, skill_id="demo"
    )

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    apps = executor.loader.project_state(AFTER).apps
    row = apps.get_model("catalog", "SnapshotSkill").objects.get()
    assert (row.path, row.omitted) == ("team-skills/demo", [])
    front = apps.get_model("catalog", "SkillVersion").objects.get().frontmatter
    assert json.loads(front) == {
        "schema_version": 1,
        "id": "demo",
        "name": "demo",
        "description": "How to demo.",
        "version": "1.0.0",
        "tags": ["docs"],
    }
    assert list(json.loads(front)) == ["schema_version", "id", "name", "description", "version", "tags"]
