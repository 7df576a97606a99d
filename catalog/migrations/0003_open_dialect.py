"""The open Agent Skills dialect: versions may be null, each skill version keeps its
frontmatter as written, each snapshot skill its path and the files it leaves out.

Rows stored before this migration are registry-dialect skills at `<skills_dir>/<id>`
that leave nothing out: their path comes from the snapshot's config, their frontmatter
from their stored SKILL.md.
"""

from django.db import migrations, models

_BATCH = 500


def _fill(apps, schema_editor):
    # Imported here: the parser of today reads the SKILL.md bytes stored yesterday, which
    # passed its rules then (a stored skill is a valid one).
    from catalog.frontmatter_json import encode
    from catalog.skillfile import parse_skill_file

    snapshot_skill = apps.get_model("catalog", "SnapshotSkill")
    skill_version = apps.get_model("catalog", "SkillVersion")
    blob = apps.get_model("catalog", "Blob")
    snapshots = apps.get_model("catalog", "Snapshot")
    for snapshot_id, config in snapshots.objects.values_list("id", "config").iterator():
        skills_dir = (config or {}).get("skills_dir", "skills")
        rows = list(snapshot_skill.objects.filter(snapshot_id=snapshot_id, path=""))
        for row in rows:
            row.path = f"{skills_dir}/{row.skill_id}"
        snapshot_skill.objects.bulk_update(rows, ["path"], batch_size=_BATCH)
    pending = skill_version.objects.filter(frontmatter="{}").values_list("id", "skill_md_id")
    for version_id, sha256 in pending.iterator():
        data = blob.objects.filter(sha256=sha256).values_list("data", flat=True).first()
        if data is None:
            continue
        parsed = parse_skill_file(bytes(data))
        if parsed.frontmatter is not None:
            skill_version.objects.filter(id=version_id).update(frontmatter=encode(parsed.frontmatter))


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0002_snapshot_rules_fingerprint"),
    ]

    operations = [
        migrations.AddField(
            model_name="skillversion",
            name="frontmatter",
            field=models.TextField(default="{}"),
        ),
        migrations.AddField(
            model_name="snapshotskill",
            name="omitted",
            field=models.JSONField(default=list),
        ),
        migrations.AddField(
            model_name="snapshotskill",
            name="path",
            field=models.TextField(default=""),
        ),
        migrations.AlterField(
            model_name="skillversion",
            name="version",
            field=models.TextField(null=True),
        ),
        migrations.RunPython(_fill, migrations.RunPython.noop),
    ]
