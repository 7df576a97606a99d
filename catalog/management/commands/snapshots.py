"""manage.py snapshots: one line per stored snapshot, most recently activated first (SPEC §4)."""

from typing import Any

from django.core.management.base import BaseCommand

from catalog.publishing import stored_snapshots


class Command(BaseCommand):
    help = "List the stored snapshots: '* <sha> <published_at> <N> skills', '*' marking the active one."

    def handle(self, *args: Any, **options: Any) -> None:
        for snapshot in stored_snapshots():
            marker = "*" if snapshot.is_active else " "
            # Never-activated snapshots cannot exist (store and activate are one transaction).
            when = snapshot.published_at.isoformat() if snapshot.published_at else "-"
            self.stdout.write(f"{marker} {snapshot.sha} {when} {snapshot.skill_count} skills")
