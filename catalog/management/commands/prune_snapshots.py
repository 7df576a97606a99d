"""manage.py prune_snapshots --keep N [--dry-run]: delete old snapshots and what only they used."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog.errors import PublishError
from catalog.snapshots import prune_snapshots


class Command(BaseCommand):
    help = (
        "Keep the N most recently activated snapshots (the active one always among them); delete the "
        "others, then the skill versions and blobs no remaining snapshot uses. One transaction."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--keep", type=int, required=True, metavar="N", help="Snapshots to keep (>= 1).")
        parser.add_argument(
            "--dry-run", action="store_true", help="Report what would be removed; change nothing."
        )

    def handle(self, *args: Any, keep: int, dry_run: bool, **options: Any) -> None:
        try:
            result = prune_snapshots(keep, dry_run=dry_run)
        except PublishError as exc:
            raise CommandError(str(exc)) from None
        for line in result.lines():
            self.stdout.write(line)
