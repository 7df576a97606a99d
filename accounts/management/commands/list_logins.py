"""list_logins: the GitHub logins allowed in, from the database and the environment."""

from django.conf import settings
from django.core.management.base import BaseCommand

from accounts import logins


class Command(BaseCommand):
    help = "List the GitHub logins allowed in (database and environment) and their ZDR clearance."

    def handle(self, *args: object, **options: object) -> None:
        rows = [(row.login, "yes" if row.zdr else "no", "database") for row in logins.all_logins()]
        rows += [(login.lower(), "no", "ALLOWED_GITHUB_LOGINS") for login in settings.ALLOWED_GITHUB_LOGINS]
        rows += [(login.lower(), "yes", "ZDR_GITHUB_LOGINS") for login in settings.ZDR_GITHUB_LOGINS]
        if not rows:
            self.stdout.write("No GitHub logins are allowed.")
            return
        table = [("LOGIN", "ZDR", "SOURCE"), *sorted(rows)]
        widths = [max(len(line[col]) for line in table) for col in range(2)]
        for line in table:
            self.stdout.write(f"{line[0].ljust(widths[0])}  {line[1].ljust(widths[1])}  {line[2]}")
