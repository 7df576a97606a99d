"""list_tokens: the service tokens, never the tokens themselves nor their hashes."""

from django.core.management.base import BaseCommand

from accounts import tokens


class Command(BaseCommand):
    help = "List the service tokens: name, ZDR clearance, created, revoked."

    def handle(self, *args: object, **options: object) -> None:
        rows = [
            (
                row.name,
                "yes" if row.zdr else "no",
                row.created_at.isoformat(timespec="seconds"),
                row.revoked_at.isoformat(timespec="seconds") if row.revoked_at else "-",
            )
            for row in tokens.all_tokens()
        ]
        if not rows:
            self.stdout.write("No service tokens.")
            return
        table = [("NAME", "ZDR", "CREATED", "REVOKED"), *rows]
        widths = [max(len(line[col]) for line in table) for col in range(len(table[0]))]
        for line in table:
            self.stdout.write(
                "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
            )
