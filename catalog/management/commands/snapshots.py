"""manage.py snapshots: one line per stored snapshot, most recently activated first
(docs/reference.md#commands)."""

from typing import Any

from django.core.management.base import BaseCommand

from catalog.snapshots import snapshot_lines


class Command(BaseCommand):
    help = "List the stored snapshots: '* <sha> <published_at> <N> skills', '*' marking the active one."

    def handle(self, *args: Any, **options: Any) -> None:
        for line in snapshot_lines():
            self.stdout.write(line)
